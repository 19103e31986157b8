package admission

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/metrics"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// fakePodSecurity records what it saw and answers as told.
type fakePodSecurity struct {
	seen    []*Request
	verdict Verdict
	err     error
}

func (f *fakePodSecurity) Validate(_ context.Context, req *Request) (Verdict, error) {
	f.seen = append(f.seen, req)
	return f.verdict, f.err
}

func TestChainPodSecurity(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New(`violates PodSecurity "restricted:latest": privileged`))
	for _, tc := range []struct {
		name        string
		op          admissionv1.Operation
		verdict     Verdict
		err         error
		called      bool
		wantErr     error
		warnings    []string
		annotations map[string]string
		deniedBy    string
		// rejected is the PodSecurity metric's label, "" when not observed.
		rejected string
	}{{
		name: "allowed: its warnings first, its annotations with the others", op: admissionv1.Create, called: true,
		verdict: Verdict{Warnings: []string{`would violate PodSecurity "baseline:latest": x`},
			AuditAnnotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest", "require-team/team": "from-psa"}},
		warnings: []string{`would violate PodSecurity "baseline:latest": x`,
			"Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'require-team': team unknown"},
		// PodSecurity ran first: its value of a shared key wins.
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest", "require-team/team": "from-psa"},
		rejected:    "false",
	}, {
		name: "denied: the request ends with its status, its annotations kept", op: admissionv1.Create, called: true,
		verdict: Verdict{AuditAnnotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"}},
		err:     forbidden, wantErr: forbidden, deniedBy: PluginPodSecurity,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"},
		rejected:    "true",
	}, {
		name: "DELETE: not called", op: admissionv1.Delete,
		annotations: map[string]string{"require-team/team": "a"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mutation.Decode([]byte(labelPolicies))
			require.NoError(t, err)
			v, err := validatingpolicy.Decode([]byte(requirePolicies))
			require.NoError(t, err)
			ps := &fakePodSecurity{verdict: tc.verdict, err: tc.err}
			sink := metrics.NewMemory()
			c, err := New(Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings, ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings},
				Options{Metrics: sink, PodSecurity: ps})
			require.NoError(t, err)
			req := podRequest(tc.op, map[string]string{"team": "a"})
			if tc.op == admissionv1.Create {
				req = podRequest(tc.op, nil)
			}
			res, trace, err := c.Explain(context.Background(), req)
			assert.Equal(t, tc.wantErr, err)
			assert.Equal(t, tc.warnings, res.Warnings)
			assert.Equal(t, tc.annotations, res.AuditAnnotations)
			assert.Equal(t, tc.deniedBy, trace.DeniedBy)
			if !tc.called {
				assert.Empty(t, ps.seen)
				assert.Nil(t, trace.PodSecurity)
				return
			}
			require.Len(t, ps.seen, 1)
			// It sees the admitted object, after the mutating policy.
			assert.Equal(t, "unknown", ps.seen[0].Object.GetLabels()["team"])
			assert.Nil(t, req.Object.GetLabels(), "the request's object is not modified")
			require.NotNil(t, trace.PodSecurity)
			assert.Equal(t, tc.verdict, trace.PodSecurity.Verdict)
			assert.Equal(t, tc.err, trace.PodSecurity.Err)
			if tc.err != nil {
				assert.Nil(t, trace.ValidatingPolicies, "the validating policies did not run")
			}
			assert.Equal(t, uint64(1), sink.HistogramOf(metrics.AdmissionControllerDuration, PluginPodSecurity, "validate", string(tc.op), tc.rejected).Count)
		})
	}
}

// TestChainValidateRunsPodSecurity: Chain.Validate, the validating phase
// alone, runs it too; ValidatorFunc adapts a function.
func TestChainValidateRunsPodSecurity(t *testing.T) {
	calls := 0
	c, err := New(Config{}, Options{PodSecurity: ValidatorFunc(func(_ context.Context, req *Request) (Verdict, error) {
		calls++
		return Verdict{Warnings: []string{"w"}, AuditAnnotations: map[string]string{"k": "v"}}, nil
	})})
	require.NoError(t, err)
	for _, tc := range []struct {
		op    admissionv1.Operation
		calls int
	}{{admissionv1.Create, 1}, {admissionv1.Update, 2}, {admissionv1.Connect, 2}, {admissionv1.Delete, 2}} {
		req := podRequest(tc.op, nil)
		res, err := c.Validate(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, tc.calls, calls, tc.op)
		if tc.op == admissionv1.Create || tc.op == admissionv1.Update {
			assert.Equal(t, []string{"w"}, res.Warnings)
			assert.Equal(t, map[string]string{"k": "v"}, res.AuditAnnotations)
		} else {
			assert.Empty(t, res.Warnings)
		}
	}
}
