package mutation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// The REST API validates new expressions with its version's environment
// and cel-go: duration(int) compiles on 1.36 (cel-go 0.26) and not from
// 1.37; includes() is a new expression's function from 1.38 only.
func TestValidatorPerVersion(t *testing.T) {
	objs, err := Decode([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  variables:
  - name: long
    expression: "duration(size(object.metadata.name)) > duration('1s')"
  - name: listed
    expression: "['a'].includes(object.metadata.name)"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}"
`))
	require.NoError(t, err)
	for _, c := range []struct {
		version          string
		duration, listed bool // whether the variable is valid
	}{
		{"1.35", true, false},
		{"1.36", true, false},
		{"1.37", false, false},
		{"1.38", false, true},
	} {
		target, err := kube.ParseTarget(c.version)
		require.NoError(t, err)
		v, err := NewValidator(ValidatorOptions{Kube: target})
		require.NoError(t, err)
		invalid := map[string]string{}
		for _, e := range v.ValidateMutatingAdmissionPolicy(objs.Policies[0], nil) {
			invalid[e.Field] = e.Error()
		}
		assert.Equal(t, !c.duration, invalid["spec.variables[0].expression"] != "", "%s: %v", c.version, invalid)
		assert.Equal(t, !c.listed, invalid["spec.variables[1].expression"] != "", "%s: %v", c.version, invalid)
		assert.Len(t, invalid, map[bool]int{true: 0, false: 1}[c.duration]+map[bool]int{true: 0, false: 1}[c.listed], c.version)
	}
}
