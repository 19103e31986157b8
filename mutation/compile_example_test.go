package mutation_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

const examplePolicies = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  variables:
  - name: image
    expression: '"mesh/proxy:" + "v1"'
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{initContainers: [
          Object.spec.initContainers{name: "mesh-proxy", image: variables.image}]}}
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: 1}].filter(p, p.value == 2)'
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar
spec:
  policyName: sidecar
`

// Decode reads policies and bindings of any served version as v1, with their
// defaults; the Compiler compiles a policy once, and tells what an
// ApplyConfiguration may write.
func ExampleCompiler() {
	objs, err := mutation.Decode([]byte(examplePolicies))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(objs.Policies), "policy,", len(objs.Bindings), "binding; failurePolicy defaulted to", *objs.Policies[0].Spec.FailurePolicy)

	c, err := mutation.NewCompiler()
	if err != nil {
		panic(err)
	}
	p := c.Compile(objs.Policies[0])
	fmt.Println("compile errors:", p.CompileErrors())
	fields, known := p.WrittenFields(0)
	fmt.Println("mutation 0 writes", fields, known)
	// Output:
	// 1 policy, 1 binding; failurePolicy defaulted to Fail
	// compile errors: []
	// mutation 0 writes [.spec.initContainers[*].image .spec.initContainers[*].name] true
}

// The Validator gives kube-apiserver's REST errors on a policy.
func ExampleValidator() {
	objs, err := mutation.Decode([]byte(examplePolicies))
	if err != nil {
		panic(err)
	}
	p := objs.Policies[0]
	p.Spec.ReinvocationPolicy = "Sometimes"
	p.Spec.Mutations[1].JSONPatch.Expression = `[JSONPatch{op: 1}]`
	v, err := mutation.NewValidator(mutation.ValidatorOptions{})
	if err != nil {
		panic(err)
	}
	for _, e := range v.ValidateMutatingAdmissionPolicy(p, nil) {
		fmt.Println(e.Field + ": " + e.Type.String())
	}
	// Output:
	// spec.mutations[1].jsonPatch.expression: Invalid value
	// spec.reinvocationPolicy: Unsupported value
}
