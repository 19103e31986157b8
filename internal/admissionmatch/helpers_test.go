package admissionmatch

import (
	"context"
	"errors"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	podGVK         = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	namespacesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	namespaceGVK   = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	deploymentsV1  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	deploymentsExt = schema.GroupVersionResource{Group: "extensions", Version: "v1beta1", Resource: "deployments"}
	deploymentV1   = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	deploymentExt  = schema.GroupVersionKind{Group: "extensions", Version: "v1beta1", Kind: "Deployment"}
)

var errLookup = errors.New("lookup failed")

// testNamespaces: "default" {env: prod}, "dev" {env: dev}, "broken" fails,
// any other is NotFound.
var testNamespaces = NamespaceLookupFunc(func(_ context.Context, name string) (map[string]string, error) {
	switch name {
	case "default":
		return map[string]string{"env": "prod"}, nil
	case "dev":
		return map[string]string{"env": "dev"}, nil
	case "broken":
		return nil, errLookup
	}
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
})

// testEquivalents: apps/v1 and extensions/v1beta1 deployments are
// equivalent; the kind of extensions' scale subresource is unknown.
var testEquivalents = EquivalentsFuncs{
	Resources: func(r schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
		if r.Resource == "deployments" {
			return []schema.GroupVersionResource{deploymentsV1, deploymentsExt}
		}
		return nil
	},
	Kind: func(r schema.GroupVersionResource, sub string) schema.GroupVersionKind {
		switch {
		case r == deploymentsV1:
			return deploymentV1
		case r == deploymentsExt && sub == "":
			return deploymentExt
		}
		return schema.GroupVersionKind{}
	},
}

func pod(labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels}}
}

// podCreate is a CREATE of a Pod in namespace "default".
func podCreate() *Request {
	return &Request{
		Operation: admissionv1.Create, Kind: podGVK, Resource: podsGVR, Name: "p", Namespace: "default",
		Object: pod(map[string]string{"app": "web"}), Namespaces: testNamespaces, Equivalents: testEquivalents,
	}
}

func ruleOf(ops []string, groups, versions, resources []string) admissionregistrationv1.RuleWithOperations {
	r := admissionregistrationv1.RuleWithOperations{
		Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources},
	}
	for _, op := range ops {
		r.Operations = append(r.Operations, admissionregistrationv1.OperationType(op))
	}
	return r
}

func scoped(r admissionregistrationv1.RuleWithOperations, s admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
	r.Scope = &s
	return r
}

func ptr[T any](v T) *T { return &v }

var (
	everything = &metav1.LabelSelector{}
	prod       = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	web        = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	badLabel   = &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}
)

// noExemptions makes a hook see every request.
var noExemptions = Options{Static: true, ExcludedResources: []schema.GroupResource{}}

func webhookOf(rules []admissionregistrationv1.RuleWithOperations, ns, obj *metav1.LabelSelector, policy *admissionregistrationv1.MatchPolicyType) *Webhook {
	return CompileWebhook(WebhookCriteria{Rules: rules, NamespaceSelector: ns, ObjectSelector: obj, MatchPolicy: policy}, noExemptions)
}

var _ runtime.Object = (*corev1.Pod)(nil)
