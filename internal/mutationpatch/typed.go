package mutationpatch

import (
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	internalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	authenticationv1 "k8s.io/api/authentication/v1"
	authenticationv1alpha1 "k8s.io/api/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1alpha2 "k8s.io/api/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/api/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	nodev1 "k8s.io/api/node/v1"
	nodev1alpha1 "k8s.io/api/node/v1alpha1"
	nodev1beta1 "k8s.io/api/node/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1alpha1 "k8s.io/api/rbac/v1alpha1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// typedKinds is what kube-apiserver's scheme does with the objects of its
// built-in (typed) kinds: it makes the Go type of a kind, converts
// unstructured content to it and back, and decodes JSON strictly into it.
// After each mutation of a built-in kind kube-apiserver holds the object as
// its Go type, so what the next mutation sees is the result of that round
// trip: empty omitempty fields dropped (kubernetes#129309), struct fields
// without omitempty added, quantities and times in canonical form.
type typedKinds struct {
	scheme *runtime.Scheme
	// strict is kube-apiserver's JSON serializer for JSON Patch documents:
	// not pretty, strict.
	strict *json.Serializer
}

// builtinTypes returns the scheme of the built-in kinds of k8s.io/api
// v0.37.2, the Go types kube-apiserver admits, built once: the built-in
// group versions client-go's scheme registers.
var builtinTypes = sync.OnceValues(func() (*typedKinds, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionregistrationv1.AddToScheme,
		admissionregistrationv1alpha1.AddToScheme,
		admissionregistrationv1beta1.AddToScheme,
		internalv1alpha1.AddToScheme,
		appsv1.AddToScheme,
		appsv1beta1.AddToScheme,
		appsv1beta2.AddToScheme,
		authenticationv1.AddToScheme,
		authenticationv1alpha1.AddToScheme,
		authenticationv1beta1.AddToScheme,
		authorizationv1.AddToScheme,
		authorizationv1beta1.AddToScheme,
		autoscalingv1.AddToScheme,
		autoscalingv2.AddToScheme,
		batchv1.AddToScheme,
		batchv1beta1.AddToScheme,
		certificatesv1.AddToScheme,
		certificatesv1alpha1.AddToScheme,
		certificatesv1beta1.AddToScheme,
		coordinationv1.AddToScheme,
		coordinationv1alpha2.AddToScheme,
		coordinationv1beta1.AddToScheme,
		corev1.AddToScheme,
		discoveryv1.AddToScheme,
		discoveryv1beta1.AddToScheme,
		eventsv1.AddToScheme,
		eventsv1beta1.AddToScheme,
		extensionsv1beta1.AddToScheme,
		flowcontrolv1.AddToScheme,
		flowcontrolv1beta1.AddToScheme,
		flowcontrolv1beta2.AddToScheme,
		flowcontrolv1beta3.AddToScheme,
		lifecyclev1alpha1.AddToScheme,
		networkingv1.AddToScheme,
		networkingv1beta1.AddToScheme,
		nodev1.AddToScheme,
		nodev1alpha1.AddToScheme,
		nodev1beta1.AddToScheme,
		policyv1.AddToScheme,
		policyv1beta1.AddToScheme,
		rbacv1.AddToScheme,
		rbacv1alpha1.AddToScheme,
		rbacv1beta1.AddToScheme,
		resourcev1.AddToScheme,
		resourcev1alpha3.AddToScheme,
		resourcev1beta1.AddToScheme,
		resourcev1beta2.AddToScheme,
		schedulingv1.AddToScheme,
		schedulingv1alpha3.AddToScheme,
		schedulingv1beta1.AddToScheme,
		storagev1.AddToScheme,
		storagev1alpha1.AddToScheme,
		storagev1beta1.AddToScheme,
		storagemigrationv1.AddToScheme,
		storagemigrationv1beta1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("registering the built-in types: %w", err)
		}
	}
	return &typedKinds{
		scheme: s,
		strict: json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{Strict: true}),
	}, nil
})

// isTyped tells whether objects of gvk are held as a Go type.
func (t *typedKinds) isTyped(gvk schema.GroupVersionKind) bool {
	return t.scheme.Recognizes(gvk)
}

// roundTrip converts obj, unstructured content of the built-in kind gvk, to
// its Go type and back, as kube-apiserver's dispatcher converts the result of
// an ApplyConfiguration to the Go type (ObjectConvertor.ConvertToVersion)
// and its CEL activation back to unstructured content for the next mutation.
func (t *typedKinds) roundTrip(gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, error) {
	typed, err := t.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return nil, fmt.Errorf("unable to convert unstructured object to %v: %v", gvk, err)
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
}

// Normalize returns object, unstructured content of kind gvk, as
// kube-apiserver holds it: for a built-in kind, converted to its Go type and
// back (what its CEL sees as object); otherwise object itself.
func Normalize(object map[string]any, gvk schema.GroupVersionKind, builtin bool) (map[string]any, error) {
	if !builtin {
		return object, nil
	}
	tk, err := builtinTypes()
	if err != nil {
		return nil, err
	}
	if !tk.isTyped(gvk) {
		return object, nil
	}
	return tk.roundTrip(gvk, object)
}

// IsBuiltin tells whether objects of gvk are built-in: kube-apiserver holds
// them as their Go type (and Normalize round-trips them through it).
func IsBuiltin(gvk schema.GroupVersionKind) bool {
	tk, err := builtinTypes()
	return err == nil && tk.isTyped(gvk)
}
