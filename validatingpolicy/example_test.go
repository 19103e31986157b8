package validatingpolicy_test

import (
	"context"
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

const replicaLimit = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'replicas must be at most 5, not ' + string(object.spec.replicas)"
    reason: Forbidden
  auditAnnotations:
  - key: replicas
    valueExpression: "string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-warn
spec:
  policyName: replica-limit
  validationActions: [Warn, Audit]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-deny
spec:
  policyName: replica-limit
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: production
`

func deployment(namespace string, replicas int64) *validatingpolicy.Request {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": namespace},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}}},
	}}
	return &validatingpolicy.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource:  schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Name:      "web", Namespace: namespace, Object: obj,
	}
}

// A policy with two bindings: one warns and audits everywhere, the other
// denies in namespaces labelled environment=production (here, none: every
// namespace exists without labels, as no NamespaceLookup is given).
func ExampleDispatcher_Validate() {
	objs, err := validatingpolicy.Decode([]byte(replicaLimit))
	if err != nil {
		panic(err)
	}
	d, err := validatingpolicy.NewDispatcher(objs.Policies, objs.Bindings, validatingpolicy.Options{})
	if err != nil {
		panic(err)
	}
	res, err := d.Validate(context.Background(), deployment("dev", 8))
	fmt.Println("error:", err)
	fmt.Println("warning:", res.Warnings[0])
	fmt.Println("replicas:", res.AuditAnnotations["replica-limit/replicas"])
	// Output:
	// error: <nil>
	// warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': replicas must be at most 5, not 8
	// replicas: 8
}

// Explain tells why: each policy, binding and validation.
func ExampleDispatcher_Explain() {
	objs, err := validatingpolicy.Decode([]byte(replicaLimit))
	if err != nil {
		panic(err)
	}
	d, err := validatingpolicy.NewDispatcher(objs.Policies, objs.Bindings, validatingpolicy.Options{})
	if err != nil {
		panic(err)
	}
	_, trace, _ := d.Explain(context.Background(), deployment("dev", 3))
	fmt.Print(trace)
	// Output:
	// policy replica-limit: matched apps/v1, Resource=deployments
	//   binding replica-limit-warn: matched, actions [Warn Audit]
	//     validation 0: passed
	//     audit annotation replicas: "3"
	//   binding replica-limit-deny: not matched (namespaceSelector)
}

// Compile reports the expressions that will fail at admission: here params,
// which only a policy with a paramKind has.
func ExampleCompiler_Compile() {
	objs, err := validatingpolicy.Decode([]byte(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: typo
spec:
  validations:
  - expression: "object.spec.replicas <= params.maxReplicas"
`))
	if err != nil {
		panic(err)
	}
	c, err := validatingpolicy.NewCompiler()
	if err != nil {
		panic(err)
	}
	for _, err := range c.Compile(objs.Policies[0]).CompileErrors() {
		fmt.Println(err)
	}
	// Output:
	// validation 0: compilation failed: ERROR: <input>:1:25: undeclared reference to 'params' (in container '')
	//  | object.spec.replicas <= params.maxReplicas
	//  | ........................^
}

const bigDeployments = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: big-deployments
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5 || authorizer.requestResource.check('scale-beyond-limit').allowed()"
    message: "more than 5 replicas needs the scale-beyond-limit verb"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: big-deployments
spec:
  policyName: big-deployments
  validationActions: [Deny]
`

// platformTeam allows the scale-beyond-limit verb on deployments to the
// members of the platform group, and has no opinion otherwise.
type platformTeam struct{}

func (platformTeam) Authorize(_ context.Context, a *validatingpolicy.AuthorizationAttributes) (validatingpolicy.Decision, string, error) {
	if a.User != nil && slices.Contains(a.User.Groups, "platform") && a.Verb == "scale-beyond-limit" && a.Resource == "deployments" {
		return validatingpolicy.DecisionAllow, "platform team", nil
	}
	return validatingpolicy.DecisionNoOpinion, "", nil
}

// Expressions ask the caller's Authorizer (validatingpolicy.Authorizer, the
// same type as matchcond's and mutation's) through the authorizer
// variable.
func ExampleAuthorizer() {
	objs, err := validatingpolicy.Decode([]byte(bigDeployments))
	if err != nil {
		panic(err)
	}
	d, err := validatingpolicy.NewDispatcher(objs.Policies, objs.Bindings, validatingpolicy.Options{Authorizer: platformTeam{}})
	if err != nil {
		panic(err)
	}
	for _, groups := range [][]string{{"developers"}, {"platform"}} {
		req := deployment("dev", 8)
		req.UserInfo = authenticationv1.UserInfo{Username: "jane", Groups: groups}
		_, err := d.Validate(context.Background(), req)
		fmt.Printf("%v: %v\n", groups, err)
	}
	// Output:
	// [developers]: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'big-deployments' with binding 'big-deployments' denied request: more than 5 replicas needs the scale-beyond-limit verb
	// [platform]: <nil>
}
