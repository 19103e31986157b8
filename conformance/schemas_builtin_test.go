package conformance

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/conformance/schemagen"
	"github.com/gatehouse-dev/gatehouse/internal/builtinschema"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// TestBuiltinSchemaIsGenerated fails while the embedded schema of built-in
// kinds is not what cmd/schemagen writes now (run `go run ./cmd/schemagen`).
func TestBuiltinSchemaIsGenerated(t *testing.T) {
	want, err := schemagen.Generate()
	require.NoError(t, err)
	if !bytes.Equal(want, builtinschema.Data()) {
		t.Fatal("internal/builtinschema/types.smdz is stale: run `go run ./cmd/schemagen` in conformance/")
	}
}

func clientGoParser(t testing.TB) *typed.Parser {
	t.Helper()
	y, err := schemagen.SchemaYAML()
	require.NoError(t, err)
	p, err := typed.NewParser(typed.YAMLObject(y))
	require.NoError(t, err)
	return p
}

// TestBuiltinSchemaEqualsClientGo checks, for every kind client-go's static
// type converter knows, that gatehouse knows it too and that the types it
// decodes are exactly (reflect.DeepEqual) the parser's.
func TestBuiltinSchemaEqualsClientGo(t *testing.T) {
	p := clientGoParser(t)
	theirs := map[string]typed.ParseableType{}
	for _, name := range p.TypeNames() {
		theirs[name] = p.Type(name)
	}
	set := builtinschema.New()
	ours, err := set.Kinds()
	require.NoError(t, err)
	var want, got []string
	roots := schemagen.Roots(p)
	for _, r := range roots {
		want = append(want, fmt.Sprintf("%s/%s %s", r.Group, r.Version, r.Kind))
	}
	for _, k := range ours {
		got = append(got, fmt.Sprintf("%s/%s %s", k.Group, k.Version, k.Kind))
	}
	sort.Strings(want)
	sort.Strings(got)
	require.Equal(t, want, got)
	types := 0
	for _, r := range roots {
		pt, ok, err := set.Lookup(builtinschema.GVK{Group: r.Group, Version: r.Version, Kind: r.Kind})
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, r.Type, *pt.TypeRef.NamedType)
		for _, td := range pt.Schema.Types {
			theirDef, ok := p.Schema.FindNamedType(td.Name)
			require.True(t, ok, td.Name)
			if !reflect.DeepEqual(theirDef, td) {
				t.Errorf("%s/%s %s: type %s differs from client-go's", r.Group, r.Version, r.Kind, td.Name)
			}
			types++
		}
	}
	t.Logf("%d kinds, %d types in their closures, all equal to client-go's", len(roots), types)
}

func builtinFiller(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.4).NumElements(0, 2).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31n(100))
			} else {
				*x = intstr.FromString(fmt.Sprintf("%d%%", c.Intn(100)))
			}
		},
		func(x *runtime.RawExtension, c randfill.Continue) {
			if c.Bool() {
				x.Raw = []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"K","a":[%d]}`, c.Intn(9)))
			}
		},
		func(x *metav1.Time, c randfill.Continue) {
			if c.Bool() {
				*x = metav1.Unix(c.Int63n(1<<31), 0)
			}
		},
		func(x *metav1.MicroTime, c randfill.Continue) {
			if c.Bool() {
				*x = metav1.NewMicroTime(metav1.Unix(c.Int63n(1<<31), 0).Time)
			}
		},
		func(x *metav1.FieldsV1, c randfill.Continue) {
			if c.Bool() {
				x.SetRawString(`{"f:metadata":{}}`)
			}
		},
	)
}

// sampleObject returns a random object of gvk as unstructured content, or
// nil if the random Go value does not convert (some types hold values only
// their own marshalers can write).
func sampleObject(gvk schema.GroupVersionKind, f *randfill.Filler) map[string]any {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	f.Fill(obj)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	u["apiVersion"] = gvk.GroupVersion().String()
	u["kind"] = gvk.Kind
	return u
}

// typedOutcome is what converting or merging gives: an error text or a
// value.
type typedOutcome struct {
	err string
	v   *typed.TypedValue
}

func typedResult(tv *typed.TypedValue, err error) typedOutcome {
	if err != nil {
		return typedOutcome{err: err.Error()}
	}
	return typedOutcome{v: tv}
}

func (d *schemaDiff) same(a, b typedOutcome) bool {
	d.compared++
	if a.err == "" && b.err == "" {
		d.values++
	}
	if !sameOutcome(a, b) {
		d.differences++
		return false
	}
	return true
}

// sameOutcome compares two outcomes. Errors are compared as sets of lines:
// structured-merge-diff reports a map's errors in the order it iterates the
// value's Go map, at random. It also stops iterating a map at its first
// undeclared field, so that which other errors it finds is random too (in
// kube-apiserver as here): errors that report an undeclared field are only
// compared for that.
func sameOutcome(a, b typedOutcome) bool {
	if a.err != "" || b.err != "" {
		const undeclared = "field not declared in schema"
		if strings.Contains(a.err, undeclared) || strings.Contains(b.err, undeclared) {
			return strings.Contains(a.err, undeclared) && strings.Contains(b.err, undeclared)
		}
		return errorLines(a.err) == errorLines(b.err)
	}
	return value.Equals(a.v.AsValue(), b.v.AsValue())
}

func errorLines(err string) string {
	lines := strings.Split(strings.TrimPrefix(err, "errors:\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

type schemaDiff struct {
	compared, differences int
	values                int // outcomes that are values, not errors
}

// compareTyped converts objects with both converters, strictly and with
// AllowDuplicates, and merges each pair, counting the outcomes that differ.
func (d *schemaDiff) compareTyped(t *testing.T, what string, kube managedfields.TypeConverter, ours *mutation.Schema, objs []map[string]any) {
	t.Helper()
	var kubeTyped, ourTyped []typedOutcome
	for i, o := range objs {
		for _, opts := range [][]typed.ValidationOptions{nil, {typed.AllowDuplicates}} {
			a := typedResult(kube.ObjectToTyped(&unstructured.Unstructured{Object: o}, opts...))
			b := typedResult(ours.FromUnstructured(o, opts...))
			if !d.same(a, b) {
				t.Errorf("%s: object %d: kube-apiserver %q, gatehouse %q", what, i, a.err, b.err)
			}
			if opts == nil {
				kubeTyped = append(kubeTyped, a)
				ourTyped = append(ourTyped, b)
			}
		}
	}
	for i := range objs {
		for j := range objs {
			if i == j || kubeTyped[i].v == nil || kubeTyped[j].v == nil || ourTyped[i].v == nil || ourTyped[j].v == nil {
				continue
			}
			a := typedResult(kubeTyped[i].v.Merge(kubeTyped[j].v))
			b := typedResult(ourTyped[i].v.Merge(ourTyped[j].v))
			if !d.same(a, b) {
				t.Errorf("%s: merge %d into %d: kube-apiserver %q, gatehouse %q", what, j, i, a.err, b.err)
			}
		}
	}
}

// TestBuiltinTypedValuesMatchKube converts random objects of every built-in
// kind with client-go's static type converter and with gatehouse's schema,
// and merges them pairwise: the outcomes must be the same.
func TestBuiltinTypedValuesMatchKube(t *testing.T) {
	kube := applyconfigurations.NewTypeConverter(scheme.Scheme)
	schemas := mutation.BuiltIn()
	p := clientGoParser(t)
	var d schemaDiff
	skipped := 0
	rng := rand.New(rand.NewSource(1))
	for _, r := range schemagen.Roots(p) {
		gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		ours, err := schemas.Lookup(gvk)
		require.NoError(t, err, gvk)
		var objs []map[string]any
		for i := 0; i < 4; i++ {
			if o := sampleObject(gvk, builtinFiller(rng.Int63())); o != nil {
				objs = append(objs, o)
			} else {
				skipped++
			}
		}
		// A listType=map list with a duplicate key and an undeclared field.
		objs = append(objs, map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind,
			"metadata": map[string]any{"ownerReferences": []any{map[string]any{"uid": "a"}, map[string]any{"uid": "a"}}}},
			map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "notAField": 1})
		d.compareTyped(t, gvk.String(), kube, ours, objs)
	}
	t.Logf("%d kinds: %d outcomes compared (%d values, the others errors), %d differences (%d random objects not convertible, skipped)", len(schemagen.Roots(p)), d.compared, d.values, d.differences, skipped)
	assert.Greater(t, d.values, d.compared/2, "most outcomes are values")
	assert.Zero(t, d.differences)
}

// TestBuiltinTypedKindsMatchClientGo checks that gatehouse holds as Go
// types (mutation.Schemas.Normalize round-trips them, dropping a field the
// type lacks) exactly the built-in kinds that client-go's scheme, which
// kube-apiserver's types are, recognizes.
func TestBuiltinTypedKindsMatchClientGo(t *testing.T) {
	schemas := mutation.BuiltIn()
	typed := 0
	for _, r := range schemagen.Roots(clientGoParser(t)) {
		gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		apiVersion, kind := gvk.ToAPIVersionAndKind()
		got, err := schemas.Normalize(map[string]any{"apiVersion": apiVersion, "kind": kind, "notAField": int64(1)}, gvk)
		require.NoError(t, err, gvk)
		_, kept := got["notAField"]
		want := scheme.Scheme.Recognizes(gvk)
		assert.Equal(t, want, !kept, "%v: typed", gvk)
		if want {
			typed++
		}
	}
	t.Logf("%d kinds, %d typed", len(schemagen.Roots(clientGoParser(t))), typed)
}
