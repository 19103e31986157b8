package conformance

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// kube-apiserver's generic server sets json-patch's copy bound to its
// JSONPatchMaxCopyBytes, 3 MiB by default, for the whole process; the
// oracle runs with the same bound.
func init() { jsonpatch.AccumulatedCopySizeLimit = 3 << 20 }

// applyWorld holds both sides of the patch application comparison:
// kube-apiserver's type converters (client-go's static converter for
// built-in kinds, the converter of the OpenAPI v3 it publishes for a CRD)
// and gatehouse's schemas.
type applyWorld struct {
	kubeBuiltin managedfields.TypeConverter
	kubeCRD     map[schema.GroupVersionKind]managedfields.TypeConverter
	schemas     *mutation.Schemas
	strict      *kjson.Serializer
}

func newApplyWorld(t testing.TB, crdFiles ...string) *applyWorld {
	t.Helper()
	w := &applyWorld{
		kubeBuiltin: applyconfigurations.NewTypeConverter(scheme.Scheme),
		kubeCRD:     map[schema.GroupVersionKind]managedfields.TypeConverter{},
		schemas:     mutation.BuiltIn(),
		strict:      kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjson.SerializerOptions{Strict: true}),
	}
	for _, f := range crdFiles {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, w.schemas.AddCRD(data))
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, yaml.Unmarshal(data, crd))
		for _, v := range crd.Spec.Versions {
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			w.kubeCRD[gvk] = kubeCRDConverterTB(t, crd, v.Name)
		}
	}
	return w
}

// applyCase is one patch applied to one object.
type applyCase struct {
	name   string
	gvk    schema.GroupVersionKind
	object map[string]any // unstructured content as kube-apiserver holds it
	ac     map[string]any // an ApplyConfiguration, or
	jp     []byte         // a JSON patch
}

// applyOutcome is the object after a patch, or the error.
type applyOutcome struct {
	object map[string]any
	err    string
	code   int32 // a StatusError's code, 0 for a plain error
}

func applyOutcomeOf(obj map[string]any, err error) applyOutcome {
	if err != nil {
		o := applyOutcome{err: err.Error()}
		var se *apierrors.StatusError
		if errors.As(err, &se) {
			o.code = se.Status().Code
		}
		return o
	}
	return applyOutcome{object: obj}
}

func (o applyOutcome) String() string {
	if o.err != "" {
		return fmt.Sprintf("error (%d) %s", o.code, o.err)
	}
	b, _ := utiljson.Marshal(o.object)
	return string(b)
}

func sameApplyOutcome(a, b applyOutcome) bool {
	if strings.HasPrefix(a.err, "panic: ") {
		// gatehouse reports the panic as a 500 StatusError.
		return b.code == 500 && b.err == "Internal error occurred: JSON Patch: json-patch panicked: "+strings.TrimPrefix(a.err, "panic: ")
	}
	return sameApplyError(a.err, b.err) && a.code == b.code && equality.Semantic.DeepEqual(a.object, b.object)
}

// atomicsMessage is the start of kube-apiserver's atomic rule error.
const atomicsMessage = "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: "

// sameApplyError compares error texts; kube-apiserver lists the atomic
// fields of one map in Go's random map order, gatehouse in the order of the
// sorted field names, so those lists are compared as sets.
func sameApplyError(kube, ours string) bool {
	k, kok := strings.CutPrefix(kube, atomicsMessage)
	o, ook := strings.CutPrefix(ours, atomicsMessage)
	if !kok || !ook {
		if kube == ours {
			return true
		}
		// structured-merge-diff lists several errors in map order.
		kl, ol := strings.Split(kube, "\n"), strings.Split(ours, "\n")
		slices.Sort(kl)
		slices.Sort(ol)
		return len(kl) > 1 && slices.Equal(kl, ol)
	}
	kp, op := strings.Split(k, ", "), strings.Split(o, ", ")
	slices.Sort(kp)
	slices.Sort(op)
	return slices.Equal(kp, op)
}

// typedKind tells whether kube-apiserver holds objects of gvk as a Go type.
func (w *applyWorld) typedKind(gvk schema.GroupVersionKind) bool {
	_, crd := w.kubeCRD[gvk]
	return !crd && scheme.Scheme.Recognizes(gvk)
}

// kubeObject is the versioned object kube-apiserver admits.
func (w *applyWorld) kubeObject(gvk schema.GroupVersionKind, object map[string]any) (runtime.Object, error) {
	u := runtime.DeepCopyJSON(object)
	if !w.typedKind(gvk) {
		return &unstructured.Unstructured{Object: u}, nil
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// normalize is object as kube-apiserver holds it: through the Go type of a
// built-in kind.
func (w *applyWorld) normalize(t testing.TB, gvk schema.GroupVersionKind, object map[string]any) map[string]any {
	t.Helper()
	obj, err := w.kubeObject(gvk, object)
	require.NoError(t, err)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	return u
}

// kube applies the case as kube-apiserver's patchers (ApplyStructuredMergeDiff,
// the JSON patcher after evaluation) and dispatcher (conversion back to the
// Go type) do, and returns what the next mutation's CEL sees as object.
func (w *applyWorld) kube(c applyCase) (o applyOutcome) {
	defer func() {
		// This oracle's scheme is client-go's; kube-apiserver's errors
		// name its legacyscheme.
		o.err = strings.Replace(o.err, fmt.Sprintf("in scheme %q", scheme.Scheme.Name()), `in scheme "pkg/api/legacyscheme/scheme.go:30"`, 1)
	}()
	defer func() {
		// json-patch v4 panics on some patches; kube-apiserver's handler
		// recovers and fails the request with a 500.
		if r := recover(); r != nil {
			o = applyOutcome{err: fmt.Sprintf("panic: %v", r), code: 500}
		}
	}()
	out, err := w.kubeApply(c)
	if err != nil {
		return applyOutcomeOf(nil, err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	return applyOutcomeOf(u, err)
}

func (w *applyWorld) kubeApply(c applyCase) (runtime.Object, error) {
	tc := w.kubeBuiltin
	if crd, ok := w.kubeCRD[c.gvk]; ok {
		tc = crd
	} else if !scheme.Scheme.Recognizes(c.gvk) {
		// The manager has no converter for the kind: dispatchOne's 503.
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", c.gvk))
	}
	original, err := w.kubeObject(c.gvk, c.object)
	if err != nil {
		return nil, err
	}
	var out runtime.Object
	if c.jp != nil {
		out, err = w.kubeJSONPatch(c, original)
	} else {
		p := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(c.ac)}
		p.SetGroupVersionKind(c.gvk)
		out, err = patch.ApplyStructuredMergeDiff(tc, original, p)
		if err != nil {
			err = fmt.Errorf("error applying patch: %w", err)
		}
	}
	if err != nil {
		return nil, err
	}
	if _, ok := original.(*unstructured.Unstructured); !ok {
		return scheme.Scheme.ConvertToVersion(out, c.gvk.GroupVersion())
	}
	return out, nil
}

// kubeJSONPatch is jsonPatcher.Patch after the evaluation of the
// expression.
func (w *applyWorld) kubeJSONPatch(c applyCase, original runtime.Object) (runtime.Object, error) {
	ops, err := jsonpatch.DecodePatch(c.jp)
	if err != nil {
		return nil, err
	}
	doc, err := runtime.Encode(w.strict, original)
	if err != nil {
		return nil, fmt.Errorf("failed to create JSON patch: %w", err)
	}
	patched, err := ops.Apply(doc)
	if err != nil {
		if errors.Is(err, jsonpatch.ErrTestFailed) {
			return original, nil
		}
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	var into runtime.Object
	if _, ok := original.(*unstructured.Unstructured); ok {
		into = &unstructured.Unstructured{}
	} else if into, err = scheme.Scheme.New(c.gvk); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, _, err := w.strict.Decode(patched, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// gatehouse applies the case with gatehouse's application, with the
// schema lookup of mutation.applyPatch.
func (w *applyWorld) gatehouse(c applyCase) applyOutcome {
	s, err := w.schemas.Lookup(c.gvk)
	if errors.Is(err, mutation.ErrNoSchema) {
		return applyOutcomeOf(nil, apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", c.gvk)))
	}
	if err != nil {
		return applyOutcomeOf(nil, err)
	}
	_, crd := w.kubeCRD[c.gvk]
	if c.jp != nil {
		return applyOutcomeOf(mutationpatch.JSONPatch(c.jp, c.object, c.gvk, !crd))
	}
	return applyOutcomeOf(mutationpatch.ApplyConfiguration(c.ac, c.object, c.gvk, s, !crd))
}

// kubeCRDConverterTB is kubeCRDConverter for benchmarks too.
func kubeCRDConverterTB(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition, version string) managedfields.TypeConverter {
	t.Helper()
	doc, err := builder.BuildOpenAPIV3(crd, version, builder.Options{V2: false})
	require.NoError(t, err)
	tc, err := managedfields.NewTypeConverter(doc.Components.Schemas, false)
	require.NoError(t, err)
	return tc
}
