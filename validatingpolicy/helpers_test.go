package validatingpolicy

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// policy is a policy on every resource, with its defaults, and options.
func policy(name string, opts ...func(*admissionregistrationv1.ValidatingAdmissionPolicy)) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
		},
	}}}
	for _, o := range opts {
		o(p)
	}
	admissionmanifest.SetDefaultsValidatingAdmissionPolicy(p)
	return p
}

func validations(v ...admissionregistrationv1.Validation) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Validations = append(p.Spec.Validations, v...)
	}
}

func expr(e string) admissionregistrationv1.Validation {
	return admissionregistrationv1.Validation{Expression: e}
}

func annotations(a ...admissionregistrationv1.AuditAnnotation) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, a...)
	}
}

func failurePolicy(fp admissionregistrationv1.FailurePolicyType) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.FailurePolicy = &fp }
}

func paramKind(apiVersion, kind string) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: apiVersion, Kind: kind}
	}
}

func conditions(c ...admissionregistrationv1.MatchCondition) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.MatchConditions = c }
}

func variables(v ...admissionregistrationv1.Variable) func(*admissionregistrationv1.ValidatingAdmissionPolicy) {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.Variables = v }
}

func binding(name, policy string, actions ...admissionregistrationv1.ValidationAction) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
	b.Spec.PolicyName, b.Spec.ValidationActions = policy, actions
	return b
}

func withParamRef(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, ref admissionregistrationv1.ParamRef) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b.Spec.ParamRef = &ref
	return b
}

const (
	deny  = admissionregistrationv1.Deny
	warn  = admissionregistrationv1.Warn
	audit = admissionregistrationv1.Audit
)

func pod(namespace, name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

func create(obj *unstructured.Unstructured) *Request {
	return &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: obj.GetName(), Namespace: obj.GetNamespace(),
		UserInfo: authenticationv1.UserInfo{Username: "alice"}, Object: obj}
}

func configMap(namespace, name string, data map[string]any, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": data}}
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

// namespaces knows dev (env=dev) and prod (env=prod); others are not found.
var namespaces = NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
	switch name {
	case "dev", "prod":
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": name}}}, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
})

// allowAll allows every authorizer check.
type allowAll struct{}

func (allowAll) Authorize(context.Context, *AuthorizationAttributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}
