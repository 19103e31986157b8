package policycheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// TestServedPerVersion checks that the rules and paramKinds are checked
// against the resources the target's version serves: PodCertificateRequests
// (certificates.k8s.io/v1) are served from 1.37, MutatingAdmissionPolicies
// (admissionregistration.k8s.io/v1) from 1.36.
func TestServedPerVersion(t *testing.T) {
	policy := func() Policy {
		return Policy{Kind: "ValidatingAdmissionPolicy", Name: "p",
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"certificates.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"podcertificaterequests"}}}}}},
			ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"},
		}
	}
	for _, tc := range []struct {
		version string
		rules   []string // the rules of the findings
	}{
		{"1.35", []string{RuleUnknownResource, RuleUnknownParamKind}},
		{"1.36", []string{RuleUnknownResource}},
		{"1.37", nil},
		{"1.38", nil},
	} {
		target, err := kube.ParseTarget(tc.version)
		require.NoError(t, err)
		kinds, _, err := Options{Kube: target}.Prepare()
		require.NoError(t, err)
		assert.Equal(t, target.Version(), kinds.Version())
		var rules []string
		for _, f := range Check(&Input{Policies: []Policy{policy()}, Kinds: kinds}) {
			if f.Rule == RuleUnknownResource || f.Rule == RuleUnknownParamKind {
				rules = append(rules, f.Rule)
				assert.Contains(t, f.Message, "Kubernetes "+tc.version, "%+v", f)
			}
		}
		assert.ElementsMatch(t, tc.rules, rules, tc.version)
	}
	assert.Equal(t, kube.LatestVersion(), NewKinds().Version())
}
