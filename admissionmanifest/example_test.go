package admissionmanifest_test

import (
	"fmt"

	"sigs.k8s.io/yaml"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// Validate a webhook configuration as kube-apiserver's REST API would on
// create: decode it, apply the v1 defaults, validate.
func ExampleValidator_ValidateValidatingWebhookConfiguration() {
	manifest := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy.example.com
webhooks:
- name: pods.policy.example.com
  clientConfig:
    url: http://admin:s3cret@policy.example.com/validate
  rules:
  - operations: ["CREATE", "*"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["pods", "*/*"]
  timeoutSeconds: 60
  admissionReviewVersions: ["v1"]
  matchConditions:
  - name: not-kube-system
    expression: object.metadata.namespace != 'kube-system' &&
`
	var c admissionregistrationv1.ValidatingWebhookConfiguration
	if err := yaml.UnmarshalStrict([]byte(manifest), &c); err != nil {
		fmt.Println(err)
		return
	}
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(&c)

	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	errs, warnings := v.ValidateValidatingWebhookConfiguration(&c, nil)
	for _, e := range errs {
		fmt.Println(e)
	}
	fmt.Println(len(warnings), "warnings")
	// Output:
	// webhooks[0].rules[0].operations: Invalid value: ["CREATE","*"]: if '*' is present, must not specify other operations
	// webhooks[0].rules[0].resources: Invalid value: ["pods","*/*"]: if '*/*' is present, must not specify other resources
	// webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun
	// webhooks[0].timeoutSeconds: Invalid value: 60: the timeout value must be between 1 and 30 seconds
	// webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]
	// webhooks[0].clientConfig.url: Invalid value: "admin:xxxxx": user information is not permitted in the URL
	// webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.namespace != 'kube-system' &&": compilation failed: ERROR: <input>:1:46: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
	//  | object.metadata.namespace != 'kube-system' &&
	//  | .............................................^
	// 0 warnings
}

// The manifest loaders validate as the REST API, without the reservation of
// the static suffix, which their objects must have.
func ExampleStaticNamePolicy() {
	c := &admissionregistrationv1.MutatingWebhookConfiguration{}
	c.Name = "defaults.static.k8s.io"
	for _, names := range []admissionmanifest.StaticNamePolicy{admissionmanifest.StaticNamesReserved, admissionmanifest.StaticNamesAllowed} {
		v, err := admissionmanifest.NewValidator(admissionmanifest.Options{StaticNames: names})
		if err != nil {
			fmt.Println(err)
			return
		}
		errs, _ := v.Validate(c, nil)
		fmt.Println(errs)
	}
	// Output:
	// [metadata.name: Invalid value: "defaults.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API]
	// []
}

// Validate a policy and its binding; Validate takes any of the admission
// types.
func ExampleValidator_Validate() {
	manifest := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: replicas
    expression: object.spec.replicas
  validations:
  - expression: variables.replicas <= 5
    messageExpression: "'at most 5 replicas, not ' + string(variables.replicas)"
  auditAnnotations:
  - key: replicas
    valueExpression: variables.replicas
`
	var p admissionregistrationv1.ValidatingAdmissionPolicy
	if err := yaml.UnmarshalStrict([]byte(manifest), &p); err != nil {
		fmt.Println(err)
		return
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	binding.Name = "replica-limit-binding"
	binding.Spec.PolicyName = p.Name
	binding.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{"Deny", "Warn"}

	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, obj := range []runtime.Object{&p, binding} {
		admissionmanifest.SetDefaults(obj)
		errs, _ := v.Validate(obj, nil)
		for _, e := range errs {
			fmt.Println(e)
		}
	}
	// Output:
	// spec.auditAnnotations[0].valueExpression: Invalid value: "variables.replicas": must evaluate to one of [string null_type] but got dyn
	// spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)
}
