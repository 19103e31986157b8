package admissionmanifest

import (
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kjson "sigs.k8s.io/json"
)

// manifestScheme is the scheme of kube-apiserver's manifest loaders: every
// external version of admissionregistration.k8s.io and the unversioned v1
// List and Status, and its decoder, strict and without conversion, so that
// an object of another version, of another kind or of another group is
// decoded as what it is and then refused by type. It is built once and
// never changed.
var manifestScheme = sync.OnceValues(func() (*runtime.Scheme, runtime.Decoder) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionregistrationv1.AddToScheme,
		admissionregistrationv1beta1.AddToScheme,
		admissionregistrationv1alpha1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err) // registering known types into a new scheme cannot fail
		}
	}
	scheme.AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.List{}, &metav1.Status{})
	return scheme, serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
})

// decodeDocument decodes one document of a manifest file, as
// kube-apiserver's loaders do. A document in the plain subset of YAML
// (see load_fastyaml.go) that decodes without any error is decoded by a
// fast path: converted to JSON once and unmarshalled strictly into its
// type. Anything else, and every error, goes through apimachinery's
// decoder, which kube-apiserver uses, for its exact result and error text.
func decodeDocument(doc []byte) (runtime.Object, error) {
	if obj := fastDecodeDocument(doc); obj != nil {
		return obj, nil
	}
	return decodeDocumentExact(doc)
}

// decodeDocumentExact is kube-apiserver's decoding, through apimachinery.
func decodeDocumentExact(doc []byte) (runtime.Object, error) {
	_, decoder := manifestScheme()
	obj, _, err := decoder.Decode(doc, nil, nil)
	return obj, err
}

// fastDecodeDocument returns the object of a document in the plain subset
// of YAML whose type is known and whose fields are all known and well
// typed, or nil. v1 Lists are left to the exact decoder: their items keep
// the JSON text kube-apiserver's conversion writes, which error messages
// show.
func fastDecodeDocument(doc []byte) runtime.Object {
	data, apiVersion, kind, ok := plainYAMLToJSON(doc)
	if !ok {
		return nil
	}
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	if gvk.Kind == "" || gvk.Version == "" || gvk.Version == runtime.APIVersionInternal || (gvk.Group == "" && gvk.Kind == "List") {
		return nil
	}
	scheme, _ := manifestScheme()
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil
	}
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if err != nil || len(strictErrs) > 0 {
		return nil
	}
	return obj
}
