package matchcond

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// TestAdmissionExplain: Explain decides as Match and lists every
// condition's outcome, also after a false one; none when the budget ran
// out.
func TestAdmissionExplain(t *testing.T) {
	attrs := &AdmissionAttributes{Request: &admissionv1.AdmissionRequest{Operation: admissionv1.Create}}
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	const errText = "expression 'request.userInfo.groups[3] == ''' resulted in error: no such key: groups"
	for _, tc := range []struct {
		name  string
		fp    admissionregistrationv1.FailurePolicyType
		exprs []string
		want  []AdmissionConditionResult // Err as its text in errs
		errs  []string
	}{{
		name: "all true", fp: fail, exprs: []string{"true", "1 == 1"},
		want: []AdmissionConditionResult{{Name: "c0", Value: true}, {Name: "c1", Value: true}},
		errs: []string{"", ""},
	}, {
		name: "false then error: both listed", fp: fail, exprs: []string{"false", "request.userInfo.groups[3] == ''"},
		want: []AdmissionConditionResult{{Name: "c0"}, {Name: "c1"}},
		errs: []string{"", errText},
	}, {
		name: "error under Ignore", fp: ignore, exprs: []string{"true", "request.userInfo.groups[3] == ''"},
		want: []AdmissionConditionResult{{Name: "c0", Value: true}, {Name: "c1"}},
		errs: []string{"", errText},
	}, {
		name: "out of budget: none", fp: fail, exprs: []string{"lists.range(900000).size() > 0", "lists.range(900000).size() > 0", "lists.range(900000).size() > 0", "lists.range(900000).size() > 0"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := compileAdmission(t, AdmissionOptions{FailurePolicy: &tc.fp}, tc.exprs...)
			res, outcomes := m.Explain(context.Background(), attrs)
			assert.Equal(t, m.Match(context.Background(), attrs), res)
			require.Len(t, outcomes, len(tc.want))
			for i := range outcomes {
				if tc.errs[i] == "" {
					assert.NoError(t, outcomes[i].Err)
				} else {
					assert.EqualError(t, outcomes[i].Err, tc.errs[i])
				}
				outcomes[i].Err = nil
			}
			assert.Equal(t, tc.want, outcomes)
			if tc.want == nil {
				assert.True(t, res.Error == nil || strings.Contains(res.Error.Error(), "cost"), "%v", res.Error)
			}
		})
	}
}
