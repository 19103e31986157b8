package admissionmanifest

import (
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// manifestDecoder is the decoder of kube-apiserver's manifest loaders: a
// scheme holding every external version of admissionregistration.k8s.io
// and the unversioned v1 List and Status, read strictly and without
// conversion, so that an object of another version, of another kind or of
// another group is decoded as what it is and then refused by type. It is
// built once and never changed.
var manifestDecoder = sync.OnceValue(func() runtime.Decoder {
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
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
})

// decodeDocument decodes one document of a manifest file.
func decodeDocument(doc []byte) (runtime.Object, error) {
	obj, _, err := manifestDecoder().Decode(doc, nil, nil)
	return obj, err
}
