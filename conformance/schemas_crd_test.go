package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/builtinschema"
	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kube-openapi/pkg/schemaconv"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/yaml"
)

// crdDocuments returns the documents of the CRD files of testdata/crds.
func crdDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/crds/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	docs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 0; ; i++ {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			docs[fmt.Sprintf("%s#%d", filepath.Base(f), i)] = doc
		}
	}
	return docs
}

// kubeCRDConverter is kube-apiserver's type converter of one CRD version:
// the OpenAPI v3 it publishes for it, converted as the mutating admission
// policy plugin converts /openapi/v3.
func kubeCRDConverter(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string) managedfields.TypeConverter {
	t.Helper()
	doc, err := builder.BuildOpenAPIV3(crd, version, builder.Options{V2: false})
	require.NoError(t, err)
	tc, err := managedfields.NewTypeConverter(doc.Components.Schemas, false)
	require.NoError(t, err)
	return tc
}

// TestCRDTypedValuesMatchKube converts and merges objects generated from
// each version's schema of real-world and generated CRDs with
// kube-apiserver's converter and with gatehouse's: the outcomes must be the
// same.
func TestCRDTypedValuesMatchKube(t *testing.T) {
	builtin := mutation.BuiltIn()
	var d schemaDiff
	crds, versions, skipped := 0, 0, 0
	rng := rand.New(rand.NewSource(2))
	docs := crdDocuments(t)
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		doc := docs[name]
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, yaml.Unmarshal(doc, &crd), name)
		if crd.APIVersion != "apiextensions.k8s.io/v1" || crd.Kind != "CustomResourceDefinition" {
			skipped++ // apiextensions.k8s.io/v1beta1: not accepted by kube-apiserver 1.37 either
			continue
		}
		if crd.Spec.Names.ListKind == "" {
			crd.Spec.Names.ListKind = crd.Spec.Names.Kind + "List"
		}
		// A CRD of a built-in kind (kcp's copies of RBAC) is moved to
		// another group: a built-in kind's schema is the built-in one.
		if _, err := builtin.Lookup(schema.GroupVersionKind{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name, Kind: crd.Spec.Names.Kind}); err == nil {
			crd.Spec.Group += ".crd.test"
			var err error
			doc, err = yaml.Marshal(&crd)
			require.NoError(t, err)
		}
		schemas := mutation.BuiltIn()
		require.NoError(t, schemas.AddCRD(doc), name)
		crds++
		for _, v := range crd.Spec.Versions {
			versions++
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			kube := kubeCRDConverter(t, &crd, v.Name)
			ours, err := schemas.Lookup(gvk)
			require.NoError(t, err, gvk)
			var props *apiextensionsv1.JSONSchemaProps
			if v.Schema != nil {
				props = v.Schema.OpenAPIV3Schema
			}
			g := objectGenerator{rng: rng}
			var objs []map[string]any
			for i := 0; i < 12; i++ {
				o := g.root(props, i%4 == 3)
				o["apiVersion"] = gvk.GroupVersion().String()
				o["kind"] = gvk.Kind
				objs = append(objs, o)
			}
			d.compareTyped(t, name+" "+gvk.String(), kube, ours, objs)
		}
	}
	t.Logf("%d CRDs (%d versions): %d outcomes compared (%d values, the others errors), %d differences; %d documents not apiextensions.k8s.io/v1, skipped",
		crds, versions, d.compared, d.values, d.differences, skipped)
	assert.Zero(t, d.differences)
	assert.Greater(t, d.values, d.compared/3)
}

// objectGenerator writes random objects that follow a CRD schema, with key
// values from small pools so that merges meet the same keys, and now and
// then an undeclared field.
type objectGenerator struct {
	rng      *rand.Rand
	mistakes bool
}

func (g *objectGenerator) root(p *apiextensionsv1.JSONSchemaProps, mistakes bool) map[string]any {
	g.mistakes = mistakes
	var o map[string]any
	if p != nil {
		o, _ = g.value(p, 0).(map[string]any)
	}
	if o == nil {
		o = map[string]any{"free": g.deduced(0)}
	}
	o["metadata"] = map[string]any{"name": "x", "labels": map[string]any{g.pick("a", "b"): "1"}}
	return o
}

func (g *objectGenerator) pick(s ...string) string { return s[g.rng.Intn(len(s))] }

func (g *objectGenerator) deduced(depth int) any {
	switch n := g.rng.Intn(5); {
	case depth > 3 || n == 0:
		return g.pick("a", "b")
	case n == 1:
		return int64(g.rng.Intn(3))
	case n == 2:
		return []any{g.deduced(depth + 1)}
	default:
		return map[string]any{g.pick("p", "q"): g.deduced(depth + 1)}
	}
}

func (g *objectGenerator) value(p *apiextensionsv1.JSONSchemaProps, depth int) any {
	if depth > 12 {
		return nil
	}
	if p.XIntOrString {
		if g.rng.Intn(2) == 0 {
			return int64(g.rng.Intn(3))
		}
		return g.pick("10%", "a")
	}
	if len(p.Enum) > 0 {
		var v any
		_ = yaml.Unmarshal(p.Enum[g.rng.Intn(len(p.Enum))].Raw, &v)
		return v
	}
	switch p.Type {
	case "object":
		m := map[string]any{}
		names := make([]string, 0, len(p.Properties))
		for name := range p.Properties {
			names = append(names, name)
		}
		sort.Strings(names) // a deterministic use of the random source
		for _, name := range names {
			sub := p.Properties[name]
			if g.rng.Intn(10) < 7 {
				if v := g.value(&sub, depth+1); v != nil {
					m[name] = v
				}
			}
		}
		if ap := p.AdditionalProperties; ap != nil && ap.Schema != nil {
			for i := g.rng.Intn(3); i > 0; i-- {
				if v := g.value(ap.Schema, depth+1); v != nil {
					m[g.pick("k1", "k2", "k3")] = v
				}
			}
		}
		if p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields && g.rng.Intn(2) == 0 {
			m[g.pick("u1", "u2")] = g.deduced(depth)
		}
		if p.XEmbeddedResource {
			m["apiVersion"] = "v1"
			m["kind"] = g.pick("A", "B")
			m["metadata"] = map[string]any{"name": g.pick("a", "b"), "annotations": map[string]any{g.pick("x", "y"): "1"}}
		}
		if g.mistakes && g.rng.Intn(6) == 0 {
			m["zzUndeclared"] = "1"
		}
		return m
	case "array":
		if p.Items == nil || p.Items.Schema == nil {
			return []any{}
		}
		var l []any
		for i := g.rng.Intn(4); i > 0; i-- {
			if v := g.value(p.Items.Schema, depth+1); v != nil {
				l = append(l, v)
			}
		}
		if l == nil {
			l = []any{}
		}
		return l
	case "string":
		if p.Format == "date-time" {
			return "2026-01-02T03:04:05Z"
		}
		return g.pick("a", "b", "c")
	case "integer":
		return int64(g.rng.Intn(3))
	case "number":
		return g.pick2(1.5, 2.0)
	case "boolean":
		return g.rng.Intn(2) == 0
	default:
		return g.deduced(depth)
	}
}

func (g *objectGenerator) pick2(a, b float64) float64 {
	if g.rng.Intn(2) == 0 {
		return a
	}
	return b
}

// sortedAtom returns a copy of a whose struct fields, at every level of
// inlined types, are sorted by name: schemaconv lists them in the random
// order of a Go map.
func sortedAtom(a smdschema.Atom) smdschema.Atom {
	if a.List != nil {
		l := *a.List
		l.ElementType = sortedRef(l.ElementType)
		a.List = &l
	}
	if a.Map != nil {
		m := smdschema.Map{Unions: a.Map.Unions, ElementRelationship: a.Map.ElementRelationship, ElementType: sortedRef(a.Map.ElementType)}
		for _, f := range a.Map.Fields {
			f.Type = sortedRef(f.Type)
			m.Fields = append(m.Fields, f)
		}
		sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Name < m.Fields[j].Name })
		a.Map = &m
	}
	return a
}

// isDeducedAtom tells whether a is the atom of the type
// __untyped_deduced_: a reference to that type and the same atom inlined are
// the same type. client-go's schema inlines it for FieldsV1's values where
// schemaconv names it.
func isDeducedAtom(a smdschema.Atom) bool {
	return a.Scalar != nil && *a.Scalar == "untyped" &&
		a.List != nil && a.List.ElementRelationship == smdschema.Atomic && a.List.Keys == nil &&
		a.List.ElementType.NamedType != nil && *a.List.ElementType.NamedType == crdschema.Untyped &&
		a.Map != nil && a.Map.ElementRelationship == smdschema.Separable && a.Map.Fields == nil && a.Map.Unions == nil &&
		a.Map.ElementType.NamedType != nil && *a.Map.ElementType.NamedType == crdschema.Deduced
}

func sortedRef(r smdschema.TypeRef) smdschema.TypeRef {
	if r.NamedType == nil && isDeducedAtom(r.Inlined) {
		name := crdschema.Deduced
		return smdschema.TypeRef{NamedType: &name, ElementRelationship: r.ElementRelationship, Nullable: r.Nullable}
	}
	r.Inlined = sortedAtom(r.Inlined)
	return r
}

// TestCRDSchemasEqualKube compares the SMD types themselves: each CRD
// version's root type with the one schemaconv makes of the OpenAPI v3
// kube-apiserver publishes, and every named type it reaches (ObjectMeta's
// closure, from client-go's schema here and from the generated OpenAPI
// there).
func TestCRDSchemasEqualKube(t *testing.T) {
	builtin := builtinschema.New()
	compared := 0
	for name, doc := range crdDocuments(t) {
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, yaml.Unmarshal(doc, &crd), name)
		if crd.APIVersion != "apiextensions.k8s.io/v1" {
			continue
		}
		if crd.Spec.Names.ListKind == "" {
			crd.Spec.Names.ListKind = crd.Spec.Names.Kind + "List"
		}
		ours, err := crdschema.Decode(doc)
		require.NoError(t, err)
		versions, err := crdschema.Convert(ours)
		require.NoError(t, err, name)
		for i, v := range crd.Spec.Versions {
			openapi, err := builder.BuildOpenAPIV3(&crd, v.Name, builder.Options{V2: false})
			require.NoError(t, err)
			kube, err := schemaconv.ToSchemaFromOpenAPI(openapi.Components.Schemas, false)
			require.NoError(t, err)
			root := versions[i]
			require.Equal(t, v.Name, root.Version)
			theirs, ok := kube.FindNamedType(root.Type)
			require.True(t, ok, root.Type)
			if !assert.Equal(t, sortedAtom(theirs.Atom), sortedAtom(root.Root.Atom), "%s %s", name, root.Type) {
				continue
			}
			compared++
			for _, ref := range []string{crdschema.ObjectMeta, crdschema.Untyped, crdschema.Deduced} {
				closure, err := builtin.Named(ref)
				require.NoError(t, err)
				for _, td := range closure.Types {
					theirs, ok := kube.FindNamedType(td.Name)
					require.True(t, ok, td.Name)
					assert.Equal(t, sortedAtom(theirs.Atom), sortedAtom(td.Atom), "%s: %s", name, td.Name)
					compared++
				}
			}
		}
	}
	t.Logf("%d types compared", compared)
}
