package validatingpolicy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// The validation_failure audit annotation holds every Audit failure of the
// request from 1.37, the first one only before (k8s.io/apiserver v0.36.6
// published each as a list of one, refusing the later ones as overwrites).
func TestAuditFailuresPerVersion(t *testing.T) {
	policies := []*admissionregistrationv1.ValidatingAdmissionPolicy{
		policy("p", validations(expr("false"), expr("1 > 2"))),
		policy("q", validations(expr("false"))),
	}
	bindings := []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		binding("b", "p", admissionregistrationv1.Audit),
		binding("c", "q", admissionregistrationv1.Audit),
	}
	all := `[{"message":"failed expression: false","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]},` +
		`{"message":"failed expression: 1 \u003e 2","policy":"p","binding":"b","expressionIndex":1,"validationActions":["Audit"]},` +
		`{"message":"failed expression: false","policy":"q","binding":"c","expressionIndex":0,"validationActions":["Audit"]}]`
	first := `[{"message":"failed expression: false","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]`
	for version, want := range map[string]string{"1.35": first, "1.36": first, "1.37": all, "1.38": all} {
		target, err := kube.ParseTarget(version)
		require.NoError(t, err)
		d, err := NewDispatcher(policies, bindings, Options{Kube: target})
		require.NoError(t, err)
		res, err := d.Validate(context.Background(), create(pod("default", "p", nil)))
		require.NoError(t, err)
		assert.Equal(t, want, res.AuditAnnotations[ValidationFailureAnnotation], version)
	}
}

// A policy's expressions compile in the version's environment: includes()
// does not exist before 1.37, so there the validation fails to compile and,
// under failurePolicy Fail, denies (kube-apiserver fails a request on a
// policy that does not compile).
func TestPolicyCELPerVersion(t *testing.T) {
	policies := []*admissionregistrationv1.ValidatingAdmissionPolicy{policy("p", validations(expr("['a', 'b'].includes('a')")))}
	bindings := []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{binding("b", "p", admissionregistrationv1.Deny)}
	for version, denied := range map[string]bool{"1.35": true, "1.36": true, "1.37": false, "1.38": false} {
		target, err := kube.ParseTarget(version)
		require.NoError(t, err)
		d, err := NewDispatcher(policies, bindings, Options{Kube: target})
		require.NoError(t, err)
		_, err = d.Validate(context.Background(), create(pod("default", "p", nil)))
		if !denied {
			assert.NoError(t, err, version)
			continue
		}
		require.Error(t, err, version)
		assert.Contains(t, err.Error(), "undeclared reference to 'includes'", version)
	}
}

// The checker estimates costs as the version's cel-go charges them: the
// global matches() is nearly free on 1.36 (cel-go 0.26), charged as
// s.matches() from 1.37 (cel-go 0.29).
func TestCheckCostPerVersion(t *testing.T) {
	objs, err := Decode([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: names}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: "object.spec.containers.all(c, object.spec.containers.all(d, matches(d.name, c.name)))"
`))
	require.NoError(t, err)
	costly := func(v string) bool {
		target, err := kube.ParseTarget(v)
		require.NoError(t, err)
		findings, err := Check(objs, CheckOptions{Kube: target})
		require.NoError(t, err)
		for _, f := range findings {
			if f.Rule == "cost-near-limit" {
				return true
			}
		}
		return false
	}
	assert.False(t, costly("1.35"))
	assert.False(t, costly("1.36"))
	assert.True(t, costly("1.37"))
	assert.True(t, costly("1.38"))
}
