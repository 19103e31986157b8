package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	"github.com/gatehouse-dev/gatehouse/resources"
)

// The differential tests of resources.NoneConverter against
// k8s.io/apiextensions-apiserver v0.37.2: the converters its
// CRConverterFactory makes for CRDs with conversion strategy None, called as
// kube-apiserver's admission calls them (admission.ConvertToGVK of
// k8s.io/apiserver v0.37.2, with the CRD handler's unstructured creator and
// safe converter), and gatehouse's converter of the same CRD: the same
// objects and the same error texts, for objects and targets of the CRD's
// group and others, served, unserved, unknown and malformed versions, kinds
// and list kinds, objects without metadata, and objects already in the
// target version.

// convCRD has served, unserved and storage versions.
func convCRD(group, kind string) *apiextensionsv1.CustomResourceDefinition {
	plural := strings.ToLower(kind) + "s"
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true},
				{Name: "v1beta1", Served: true},
				{Name: "v1alpha1", Served: false},
				{Name: "v2", Served: false},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
		},
	}
}

// unstructuredCreator is the CRD handler's creator (unexported in
// apiextensions-apiserver's customresource_handler.go): an Unstructured of
// the kind asked for.
type unstructuredCreator struct{}

func (unstructuredCreator) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	ret := &unstructured.Unstructured{}
	ret.SetGroupVersionKind(kind)
	return ret, nil
}

type converterPair struct {
	kube admission.ObjectInterfaces
	ours resources.Converter
	kind schema.GroupKind
}

func newConverterPair(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition) converterPair {
	t.Helper()
	f, err := conversion.NewCRConverterFactory(nil, nil)
	require.NoError(t, err)
	safe, _, err := f.NewConverter(crd)
	require.NoError(t, err)
	data, err := json.Marshal(crd)
	require.NoError(t, err)
	ours, err := resources.NewNoneConverter(data)
	require.NoError(t, err)
	return converterPair{
		kube: &admission.RuntimeObjectInterfaces{ObjectCreater: unstructuredCreator{}, ObjectConvertor: safe},
		ours: ours,
		kind: schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind},
	}
}

// check converts in to to both ways and compares.
func (p converterPair) check(t testing.TB, in *unstructured.Unstructured, to schema.GroupVersionKind) {
	t.Helper()
	desc := fmt.Sprintf("%v to %v", in.Object, to)
	before := in.DeepCopy()
	got, gotErr := p.ours.Convert(in, to)
	require.Equal(t, before, in, "gatehouse modified its input: %s", desc)

	from := in.GroupVersionKind()
	listKind := schema.GroupKind{Group: p.kind.Group, Kind: p.kind.Kind + "List"}
	if from != to && to.GroupKind() != p.kind && to.GroupKind() != listKind && from.GroupKind() != p.kind && from.GroupKind() != listKind {
		// kube-apiserver's converter is the request's CRD's whatever the
		// kinds; gatehouse's chooses the CRD by kind, and has none here.
		require.ErrorContains(t, gotErr, "neither kind is a custom resource of the converter's CRDs", desc)
		return
	}
	kubeIn := in.DeepCopy()
	want, wantErr := admission.ConvertToGVK(kubeIn, to, p.kube)
	if wantErr != nil {
		require.EqualError(t, gotErr, wantErr.Error(), desc)
		require.Nil(t, got, desc)
		return
	}
	require.NoError(t, gotErr, desc)
	require.Equal(t, want.(*unstructured.Unstructured).UnstructuredContent(), got.UnstructuredContent(), desc)
}

var (
	convAPIVersions = []string{"example.com/v1", "example.com/v1beta1", "example.com/v1alpha1", "example.com/v2", "example.com/v9", "other.io/v1", "v1", "", "a/b/c", "example.com/", "/v1", "example.com", "example.com/v1/"}
	convKinds       = []string{"Widget", "WidgetList", "Other", ""}
	convGroups      = []string{"example.com", "other.io", ""}
	convVersions    = []string{"v1", "v1beta1", "v1alpha1", "v2", "v9", ""}
)

func randomObject(r *rand.Rand) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	switch r.Intn(10) {
	case 0: // no apiVersion
	case 1:
		u.Object["apiVersion"] = int64(1) // not a string
	default:
		u.Object["apiVersion"] = convAPIVersions[r.Intn(len(convAPIVersions))]
	}
	if r.Intn(8) != 0 {
		u.Object["kind"] = convKinds[r.Intn(len(convKinds))]
	}
	if r.Intn(3) != 0 {
		u.Object["metadata"] = map[string]any{"name": "w", "namespace": "ns", "uid": "1", "labels": map[string]any{"a": "b"}}
	}
	if r.Intn(2) == 0 {
		u.Object["spec"] = map[string]any{"size": int64(r.Intn(5)), "tags": []any{"x", true, nil, 1.5}}
	}
	if strings.HasSuffix(u.GetKind(), "List") || r.Intn(6) == 0 {
		item := map[string]any{"apiVersion": convAPIVersions[r.Intn(len(convAPIVersions))], "kind": "Widget", "metadata": map[string]any{"name": "i"}}
		u.Object["items"] = []any{item}
	}
	if r.Intn(20) == 0 {
		u.Object = nil
	}
	return u
}

func randomTarget(r *rand.Rand) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: convGroups[r.Intn(len(convGroups))], Version: convVersions[r.Intn(len(convVersions))], Kind: convKinds[r.Intn(3)]}
}

func TestNoneConverterMatchesAPIExtensions(t *testing.T) {
	p := newConverterPair(t, convCRD("example.com", "Widget"))
	r := rand.New(rand.NewSource(27))
	const n = 20000
	outcomes := map[string]int{}
	for range n {
		in, to := randomObject(r), randomTarget(r)
		p.check(t, in, to)
		out, err := p.ours.Convert(in, to)
		switch {
		case err == nil && in.GroupVersionKind() == to:
			outcomes["already there"]++
		case err == nil:
			outcomes["converted "+out.GetAPIVersion()]++
		default:
			outcomes[strings.SplitN(err.Error(), ":", 2)[0]]++
		}
	}
	// Every kind of outcome is reached.
	for _, want := range []string{"already there", "converted example.com/v1", "converted example.com/v1alpha1", "request to convert CR to an invalid group/version", "request to convert CR from an invalid group/version"} {
		require.Positive(t, outcomes[want], "%s: %v", want, outcomes)
	}
	notSuitable := 0
	for k, v := range outcomes {
		if strings.Contains(k, "is unstructured and is not suitable for converting to") {
			notSuitable += v
		}
	}
	require.Positive(t, notSuitable, "%v", outcomes)
}

// TestNoneConverterListItems: an object of a list kind is converted as one
// object; its items keep their apiVersion, as through kube-apiserver's
// admission (apiextensions converts items only of an UnstructuredList).
func TestNoneConverterListItems(t *testing.T) {
	p := newConverterPair(t, convCRD("example.com", "Widget"))
	list := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{},
		"items": []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}, map[string]any{"apiVersion": "example.com/v9", "kind": "Widget"}},
	}}
	p.check(t, list, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "WidgetList"})
	got, err := p.ours.Convert(list, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "WidgetList"})
	require.NoError(t, err)
	require.Equal(t, "example.com/v1", got.Object["items"].([]any)[0].(map[string]any)["apiVersion"])
}

// FuzzNoneConverterMatchesAPIExtensions compares the two converters on an
// object of the fuzzed apiVersion and kind (metadata and items optional)
// converted to the fuzzed target. Its seed corpus runs in go test.
func FuzzNoneConverterMatchesAPIExtensions(f *testing.F) {
	for _, s := range []struct {
		apiVersion, kind           string
		toGroup, toVersion, toKind string
		metadata, items            bool
	}{
		{"example.com/v1", "Widget", "example.com", "v1beta1", "Widget", true, false},
		{"example.com/v1", "Widget", "example.com", "v1", "Widget", true, false},
		{"example.com/v1", "Widget", "example.com", "v2", "Widget", false, false},
		{"example.com/v1beta1", "Other", "example.com", "v1", "Widget", true, false},
		{"example.com/v1", "WidgetList", "example.com", "v1alpha1", "WidgetList", true, true},
		{"example.com/v9", "Widget", "example.com", "v1", "Widget", true, false},
		{"example.com/v1", "Widget", "example.com", "v9", "Widget", true, false},
		{"other.io/v1", "Widget", "example.com", "v1", "Widget", true, false},
		{"example.com/v1", "Widget", "other.io", "v1", "Widget", true, false},
		{"a/b/c", "Widget", "example.com", "v1", "Widget", true, false},
		{"", "", "example.com", "v1", "Widget", false, false},
		{"v1", "Widget", "", "v1", "Widget", true, false},
		{"example.com/", "Widget", "example.com", "", "Widget", true, false},
	} {
		f.Add(s.apiVersion, s.kind, s.toGroup, s.toVersion, s.toKind, s.metadata, s.items)
	}
	p := newConverterPair(f, convCRD("example.com", "Widget"))
	f.Fuzz(func(t *testing.T, apiVersion, kind, toGroup, toVersion, toKind string, metadata, items bool) {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "spec": map[string]any{"x": "y"}}}
		if metadata {
			u.Object["metadata"] = map[string]any{"name": "w"}
		}
		if items {
			u.Object["items"] = []any{map[string]any{"apiVersion": apiVersion, "kind": kind}}
		}
		p.check(t, u, schema.GroupVersionKind{Group: toGroup, Version: toVersion, Kind: toKind})
	})
}
