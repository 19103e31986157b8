package resources

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/servedresources"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func gvr(g, v, r string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: g, Version: v, Resource: r}
}

// TestBuiltInAgreesWithServed checks each version's registry against its
// table of served resources: every default-served (sub)resource with its
// kind, and as its equivalents the default-served versions of every group
// resource of its storage.
func TestBuiltInAgreesWithServed(t *testing.T) {
	for _, v := range kube.SupportedVersions() {
		t.Run(v.String(), func(t *testing.T) {
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			reg := BuiltInFor(target)
			served := servedresources.ForVersion(v)
			byStorage := map[string]map[schema.GroupVersionResource]bool{}
			for _, s := range served {
				if s.Default && s.Subresource == "" {
					if byStorage[s.Storage] == nil {
						byStorage[s.Storage] = map[schema.GroupVersionResource]bool{}
					}
					byStorage[s.Storage][gvr(s.Group, s.Version, s.Resource)] = true
				}
			}
			n := 0
			for _, s := range served {
				r := gvr(s.Group, s.Version, s.Resource)
				kind := reg.KindFor(r, s.Subresource)
				if !s.Default {
					assert.Empty(t, kind, "%v %s is not served by default", r, s.Subresource)
					continue
				}
				n++
				assert.Equal(t, schema.GroupVersionKind{Group: s.KindGroup, Version: s.KindVersion, Kind: s.Kind}, kind, "%v %s", r, s.Subresource)
				var want []schema.GroupVersionResource
				for other := range byStorage[s.Storage] {
					if reg.KindFor(other, s.Subresource) != (schema.GroupVersionKind{}) {
						want = append(want, other)
					}
				}
				assert.ElementsMatch(t, want, reg.EquivalentResourcesFor(r, s.Subresource), "%v %s", r, s.Subresource)
			}
			assert.Greater(t, n, 100)
		})
	}
}

// TestBuiltInForVersions checks resources whose serving differs between
// versions: the registry of each version has their kind only where that
// version serves them by default.
func TestBuiltInForVersions(t *testing.T) {
	pcr := schema.GroupVersionKind{Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest"}
	map1 := schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy"}
	dtr := schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceTaintRule"}
	none := schema.GroupVersionKind{}
	for _, tc := range []struct {
		resource schema.GroupVersionResource
		// kinds at 1.35, 1.36, 1.37, 1.38.
		kinds [4]schema.GroupVersionKind
	}{
		// GA in 1.37 (v1beta1, off by default, in 1.36).
		{gvr("certificates.k8s.io", "v1", "podcertificaterequests"), [4]schema.GroupVersionKind{none, none, pcr, pcr}},
		// GA in 1.36 (v1beta1, off by default, in 1.35).
		{gvr("admissionregistration.k8s.io", "v1", "mutatingadmissionpolicies"), [4]schema.GroupVersionKind{none, map1, map1, map1}},
		// GA in 1.37 (v1alpha3 in 1.35, v1beta2 in 1.36: off by default).
		{gvr("resource.k8s.io", "v1", "devicetaintrules"), [4]schema.GroupVersionKind{none, none, dtr, dtr}},
		// Served at every version, off by default.
		{gvr("resource.k8s.io", "v1beta1", "resourceclaims"), [4]schema.GroupVersionKind{}},
	} {
		for i, v := range kube.SupportedVersions() {
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			assert.Equal(t, tc.kinds[i], BuiltInFor(target).KindFor(tc.resource, ""), "%v at %s", tc.resource, v)
		}
	}
	// BuiltIn is the newest release's.
	require.Equal(t, kube.V1_37, kube.LatestVersion())
	assert.Equal(t, pcr, BuiltIn().KindFor(gvr("certificates.k8s.io", "v1", "podcertificaterequests"), ""))
}

func TestBuiltIn(t *testing.T) {
	reg := BuiltIn()
	for _, tc := range []struct {
		resource    schema.GroupVersionResource
		subresource string
		kind        schema.GroupVersionKind
		equivalents []schema.GroupVersionResource
	}{
		{gvr("apps", "v1", "deployments"), "", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, []schema.GroupVersionResource{gvr("apps", "v1", "deployments")}},
		{gvr("apps", "v1", "deployments"), "scale", schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, []schema.GroupVersionResource{gvr("apps", "v1", "deployments")}},
		{gvr("", "v1", "pods"), "eviction", schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}, []schema.GroupVersionResource{gvr("", "v1", "pods")}},
		{gvr("", "v1", "pods"), "exec", schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}, []schema.GroupVersionResource{gvr("", "v1", "pods")}},
		{gvr("", "v1", "pods"), "status", schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, []schema.GroupVersionResource{gvr("", "v1", "pods")}},
		{gvr("", "v1", "serviceaccounts"), "token", schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"}, []schema.GroupVersionResource{gvr("", "v1", "serviceaccounts")}},
		{gvr("", "v1", "events"), "", schema.GroupVersionKind{Version: "v1", Kind: "Event"}, []schema.GroupVersionResource{gvr("", "v1", "events"), gvr("events.k8s.io", "v1", "events")}},
		{gvr("events.k8s.io", "v1", "events"), "", schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, []schema.GroupVersionResource{gvr("", "v1", "events"), gvr("events.k8s.io", "v1", "events")}},
		{gvr("autoscaling", "v1", "horizontalpodautoscalers"), "status", schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}, []schema.GroupVersionResource{gvr("autoscaling", "v2", "horizontalpodautoscalers"), gvr("autoscaling", "v1", "horizontalpodautoscalers")}},
		// Not served by default: no kind, but the equivalents of its group
		// resource, as kube-apiserver's registry answers.
		{gvr("resource.k8s.io", "v1beta1", "resourceclaims"), "", schema.GroupVersionKind{}, []schema.GroupVersionResource{gvr("resource.k8s.io", "v1", "resourceclaims")}},
		{gvr("lifecycle.k8s.io", "v1alpha1", "evictions"), "", schema.GroupVersionKind{}, nil},
		{gvr("", "v1", "pods"), "nonesuch", schema.GroupVersionKind{}, nil},
	} {
		assert.Equal(t, tc.kind, reg.KindFor(tc.resource, tc.subresource), "%v %s", tc.resource, tc.subresource)
		assert.Equal(t, tc.equivalents, reg.EquivalentResourcesFor(tc.resource, tc.subresource), "%v %s", tc.resource, tc.subresource)
	}
}

func TestBuiltInIsFresh(t *testing.T) {
	a, b := BuiltIn(), BuiltIn()
	a.RegisterKindFor(gvr("apps", "v1beta2", "deployments"), "", schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"})
	assert.Equal(t, []schema.GroupVersionResource{gvr("apps", "v1", "deployments"), gvr("apps", "v1beta2", "deployments")}, a.EquivalentResourcesFor(gvr("apps", "v1", "deployments"), ""))
	assert.Equal(t, []schema.GroupVersionResource{gvr("apps", "v1", "deployments")}, b.EquivalentResourcesFor(gvr("apps", "v1", "deployments"), ""))
}

func TestRegisterCRD(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1, served: true, storage: true, subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}}
  - {name: v1beta1, served: false, storage: false, subresources: {status: {}}}
`
	reg := BuiltIn()
	require.NoError(t, RegisterCRD(reg, []byte(crd)))
	both := []schema.GroupVersionResource{gvr("example.com", "v1", "widgets"), gvr("example.com", "v1beta1", "widgets")}
	assert.Equal(t, both, reg.EquivalentResourcesFor(gvr("example.com", "v1beta1", "widgets"), ""))
	assert.Equal(t, both, reg.EquivalentResourcesFor(gvr("example.com", "v1", "widgets"), "status"))
	assert.Equal(t, both[:1], reg.EquivalentResourcesFor(gvr("example.com", "v1", "widgets"), "scale"))
	assert.Equal(t, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Widget"}, reg.KindFor(gvr("example.com", "v1beta1", "widgets"), "status"))
	assert.Equal(t, schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, reg.KindFor(gvr("example.com", "v1", "widgets"), "scale"))
	// The built-in resources are untouched.
	assert.Len(t, reg.EquivalentResourcesFor(gvr("", "v1", "events"), ""), 2)

	assert.EqualError(t, RegisterCRD(reg, []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group: example.com, names: {kind: W}, versions: [{name: v1}]}\n")), "CRD W.example.com: spec.names.plural is required")
	assert.ErrorContains(t, RegisterCRD(reg, []byte("kind: Pod")), "decoding the CRD: not an apiextensions.k8s.io/v1 CustomResourceDefinition")
}
