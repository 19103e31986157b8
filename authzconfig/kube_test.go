package authzconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Match conditions compile in the version's environment of stored
// expressions: includes() from 1.37 only; duration(int) before 1.37 only
// (cel-go 0.26 declares it; it then fails at every evaluation). The texts
// are those of each version's kube-apiserver (conformance's
// TestCELMatchesKubeAPIServerPerVersion compares the environments).
func TestMatchConditionsPerVersion(t *testing.T) {
	with := func(expr string) *Configuration {
		return webhookWith(func(w *WebhookConfiguration) {
			w.MatchConditionSubjectAccessReviewVersion = "v1"
			w.MatchConditions = []WebhookMatchCondition{{Expression: expr}}
		})
	}
	includes := "request.groups.includes('admins')"
	duration := "duration(size(request.groups)) > duration('0s')"
	for _, tt := range []struct {
		version, expr string
		errText       string
	}{
		{"1.35", includes, "undeclared reference to 'includes'"},
		{"1.36", includes, "undeclared reference to 'includes'"},
		{"1.37", includes, ""},
		{"1.38", includes, ""},
		{"1.35", duration, ""},
		{"1.36", duration, ""},
		{"1.37", duration, "found no matching overload for 'duration' applied to '(int)'"},
		// A literal duration(5): kube's duration-literal check before 1.37,
		// cel-go's missing overload from 1.37 (found by conformance's
		// TestAuthzConfigVersionDifferences).
		{"1.35", "duration(5) > duration('1s')", "ERROR: <input>:1:10: invalid duration argument"},
		{"1.36", "duration(5) > duration('1s')", "ERROR: <input>:1:10: invalid duration argument"},
		{"1.37", "duration(5) > duration('1s')", "ERROR: <input>:1:9: found no matching overload for 'duration' applied to '(int)'"},
	} {
		target, err := kube.ParseTarget(tt.version)
		require.NoError(t, err)
		errs := Validate(with(tt.expr), ValidateOptions{Stat: fakeStat, Kube: target})
		if tt.errText == "" {
			assert.Empty(t, errs, "%s at %s", tt.expr, tt.version)
			continue
		}
		require.Len(t, errs, 1, "%s at %s", tt.expr, tt.version)
		assert.Equal(t, "authorizers[0].matchConditions[0].expression", errs[0].Field)
		assert.Contains(t, errs[0].Detail, tt.errText, tt.version)
	}
}
