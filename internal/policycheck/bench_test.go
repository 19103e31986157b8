package policycheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// BenchmarkCheckVsCompile compares checking a policy (op=check, with a
// Checker prepared once) with compiling it (op=compile, with a Compiler
// prepared once), for the same ValidatingAdmissionPolicy on Deployments
// with three validations.
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
		c, err := validatingpolicy.NewChecker(validatingpolicy.CheckOptions{})
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			c.Check(objs)
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

// BenchmarkMutationCheckVsCompile is BenchmarkCheckVsCompile for a
// MutatingAdmissionPolicy, reinvocationPolicy Never (check=static) and
// IfNeeded (check=idempotence: the check then compiles the policy and
// applies it twice to a sample object).
func BenchmarkMutationCheckVsCompile(b *testing.B) {
	doc := func(reinvocation string) string {
		return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: ` + reinvocation + `
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}]
  matchConditions: [{name: unlabelled, expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{metadata: Object.metadata{labels: {'team': 'x'}}, spec: Object.spec{minReadySeconds: object.spec.replicas}}"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p}
`
	}
	for _, c := range []struct{ name, reinvocation string }{{"check=static", "Never"}, {"check=idempotence", "IfNeeded"}} {
		objs, err := mutation.Decode([]byte(doc(c.reinvocation)))
		require.NoError(b, err)
		b.Run(c.name, func(b *testing.B) {
			checker, err := mutation.NewChecker(mutation.CheckOptions{})
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				checker.Check(objs)
			}
		})
	}
	objs, err := mutation.Decode([]byte(doc("Never")))
	require.NoError(b, err)
	b.Run("op=compile", func(b *testing.B) {
		c, err := mutation.NewCompiler()
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			c.Compile(objs.Policies[0])
		}
	})
}
