package mutation_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// A manifest of a policy and its binding, decoded from v1beta1 as v1 with
// kube-apiserver's defaults, then validated as kube-apiserver's REST API
// validates it on create.
func ExampleDecode() {
	objs, err := mutation.Decode([]byte(`
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: sidecar.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE, DELETE]
      resources: [pods]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "proxy", image: "proxy:v1"}]}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: sidecar.example.com
spec:
  policyName: sidecar.example.com
`))
	if err != nil {
		panic(err)
	}
	v, err := mutation.NewValidator(mutation.ValidatorOptions{})
	if err != nil {
		panic(err)
	}
	p := objs.Policies[0]
	fmt.Println(p.APIVersion, *p.Spec.FailurePolicy, *p.Spec.MatchConstraints.MatchPolicy)
	for _, e := range v.ValidateMutatingAdmissionPolicy(p, nil) {
		fmt.Println(e)
	}
	fmt.Println(len(v.ValidateMutatingAdmissionPolicyBinding(objs.Bindings[0], nil)), "binding errors")
	// Output:
	// admissionregistration.k8s.io/v1 Fail Equivalent
	// spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"
	// spec.reinvocationPolicy: Required value
	// 0 binding errors
}
