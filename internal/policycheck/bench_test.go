package policycheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// BenchmarkCheckVsCompile compares checking a policy (op=check) with
// compiling it (op=compile), for the same ValidatingAdmissionPolicy on
// Deployments with three validations.
func BenchmarkCheckVsCompile(b *testing.B) {
	const doc = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}]
  variables: [{name: containers, expression: "object.spec.template.spec.containers"}]
  validations:
  - expression: "!has(object.spec.replicas) || object.spec.replicas <= 5"
  - expression: "variables.containers.all(c, c.?securityContext.?privileged.orValue(false) == false)"
  - expression: "object.metadata.labels['team'] != ''"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
`
	objs, err := validatingpolicy.Decode([]byte(doc))
	require.NoError(b, err)
	b.Run("op=check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := validatingpolicy.Check(objs, validatingpolicy.CheckOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=compile", func(b *testing.B) {
		c, err := validatingpolicy.NewCompiler()
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			c.Compile(objs.Policies[0])
		}
	})
}
