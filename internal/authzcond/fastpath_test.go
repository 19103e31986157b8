package authzcond

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/stretchr/testify/assert"
	authorizationv1 "k8s.io/api/authorization/v1"
)

func TestFastPlanEligibility(t *testing.T) {
	tests := []struct {
		expr string
		fast bool
	}{
		{"has(request.resourceAttributes)", true},
		{"request.resourceAttributes.namespace == 'kube-system'", true},
		{"!('system:serviceaccounts:kube-system' in request.groups)", true},
		{"request.?resourceAttributes.namespace.orValue('') == ''", true},
		{"request.user.startsWith('system:') && size(request.groups) > 2", true},
		{"request.groups.exists(g, g.startsWith('system:'))", true},
		// A library function: its cost is the Kubernetes estimator's.
		{"request.user.lowerAscii() == 'a'", false},
		// Quadratic in the size bound: beyond the limit.
		{"request.groups.all(g, request.groups.all(h, g.contains(h)))", false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			m := compile(t, tt.expr)
			assert.Equal(t, tt.fast, m.conditions[0].fast != nil)
		})
	}
}

// The fast plan and kube-apiserver's tracked program give the same results
// and the same errors.
func TestFastPlanMatchesTrackedProgram(t *testing.T) {
	exprs := []string{
		"has(request.resourceAttributes)",
		"has(request.nonResourceAttributes)",
		"request.resourceAttributes.namespace == 'kube-system'",
		"request.nonResourceAttributes.path.startsWith('/healthz')",
		"!('system:serviceaccounts:kube-system' in request.groups)",
		"request.?resourceAttributes.namespace.orValue('x') == 'x'",
		"request.?resourceAttributes.?fieldSelector.hasValue()",
		"request.resourceAttributes.?labelSelector.rawSelector.orValue('') == 'a=b'",
		"request.resourceAttributes.?labelSelector.rawSelector.or(request.resourceAttributes.?name).hasValue()",
		"request.extra['scopes'][0] == 'a'",
		"request.extra.exists(k, k == 'scopes')",
		"size(request.extra) == 0",
		"request.groups[1] == 'system:authenticated'",
		"request.groups[10] == ''",
		"request.uid == '' || request.user.matches('^system:')",
		"type(request) == map",
		"dyn(request).size() == 5",
		"request.resourceAttributes == dyn(request).resourceAttributes",
		"request.groups.filter(g, g.endsWith('kube-system')).size() == 1",
		"request.groups.all(g, g != '')",
		"int(size(request.user)) / 0 == 1",
		"request.resourceAttributes.fieldSelector.requirements.exists(r, r.operator == 'In')",
	}
	specs := []*authorizationv1.SubjectAccessReviewSpec{kubeSystemPods, defaultSecret, healthz, {}}
	for _, expr := range exprs {
		m := compile(t, expr)
		if m.conditions[0].fast == nil {
			continue // comparing types: the estimator cannot bound it
		}
		for i, spec := range specs {
			t.Run(fmt.Sprintf("%s/%d", expr, i), func(t *testing.T) {
				fast, fastErr := m.Match(context.Background(), spec)
				tracked, _, trackedErr := m.Explain(context.Background(), spec)
				assert.Equal(t, tracked, fast)
				assert.Equal(t, fmt.Sprint(trackedErr), fmt.Sprint(fastErr))
			})
		}
	}
}

func TestResultTypeError(t *testing.T) {
	_, err := authzResult("x", evalResult{val: types.Int(1)})
	assert.EqualError(t, err, "cel evaluation error: expression 'x' eval result type should be bool but got int")
}
