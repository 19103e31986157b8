package admissionpolicy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func configMap(namespace, name, value string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"value": value}}}
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

func TestAdmissionRequest(t *testing.T) {
	a := &Attributes{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"},
		Resource: schema.GroupVersionResource{Group: "apps", Version: "v1beta1", Resource: "deployments"}, SubResource: "scale",
		Name: "d", Namespace: "ns", UserInfo: authenticationv1.UserInfo{Username: "u"}, DryRun: true}
	r := a.AdmissionRequest(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	assert.Equal(t, "v1", r.Kind.Version, "the matched kind")
	assert.Equal(t, "v1beta1", r.RequestKind.Version, "the request's own kind")
	assert.Equal(t, "v1beta1", r.RequestResource.Version)
	assert.Equal(t, "scale", r.SubResource)
	assert.Equal(t, "scale", r.RequestSubResource)
	assert.NotNil(t, r.UserInfo.Extra, "extra is never nil")
	assert.True(t, *r.DryRun)
	assert.Empty(t, r.UID)
}

func TestNamespaceOf(t *testing.T) {
	pod := &Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Namespace: "ns"}
	assert.Equal(t, "ns", pod.NamespaceOf())
	ns := &Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Namespace: "ns"}
	assert.Equal(t, "", ns.NamespaceOf(), "a Namespace's own name does not count")
}

func TestForbiddenName(t *testing.T) {
	obj := func(name, generateName string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetName(name)
		u.SetGenerateName(generateName)
		return u
	}
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"n", obj("o", ""), "n"},
		{"", obj("o", "g-"), "o"},
		{"", obj("", "g-"), "g-"},
		{"", obj("", ""), "Unknown"},
		{"", nil, "Unknown"},
	} {
		assert.Equal(t, tc.want, ForbiddenName(tc.name, tc.obj))
	}
}
