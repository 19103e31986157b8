package smdcodec

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// testSchema uses every member of the schema types: atoms with several
// members, named and inlined references, relationship overrides, nullable,
// keys, unions with and without discriminator, and defaults of every kind.
const testSchema = `types:
- name: a.Root
  map:
    fields:
    - name: spec
      type:
        namedType: a.Spec
    - name: num
      type:
        scalar: numeric
      default: 3
    - name: f
      type:
        scalar: numeric
      default: 1.5
    - name: s
      type:
        scalar: string
      default: ""
    - name: b
      type:
        scalar: boolean
      default: false
    - name: obj
      type:
        namedType: a.Leaf
      default:
        single: {}
        list: [1, "x", true]
    - name: nul
      type:
        scalar: string
        nullable: true
    unions:
    - discriminator: type
      deduceInvalidDiscriminator: true
      fields:
      - fieldName: num
        discriminatorValue: Num
    - fields:
      - fieldName: s
        discriminatorValue: S
- name: a.Spec
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
    fields:
    - name: items
      type:
        list:
          elementType:
            namedType: a.Leaf
          elementRelationship: associative
          keys:
          - name
    - name: set
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: over
      type:
        namedType: a.Leaf
        elementRelationship: atomic
- name: a.Leaf
  map:
    fields:
    - name: name
      type:
        scalar: string
- name: a.Unreached
  scalar: string
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`

func parse(t testing.TB, y string) *typed.Parser {
	t.Helper()
	p, err := typed.NewParser(typed.YAMLObject(y))
	require.NoError(t, err)
	return p
}

func TestRoundTripIsDeepEqualToTheParsedSchema(t *testing.T) {
	p := parse(t, testSchema)
	data, err := Encode(p.Schema.Types, []Root{{Group: "a", Version: "v1", Kind: "Root", Type: "a.Root"}})
	require.NoError(t, err)
	again, err := Encode(p.Schema.Types, []Root{{Group: "a", Version: "v1", Kind: "Root", Type: "a.Root"}})
	require.NoError(t, err)
	assert.Equal(t, data, again, "encoding is deterministic")

	tab, err := Open(data)
	require.NoError(t, err)
	assert.Equal(t, []Root{{Group: "a", Version: "v1", Kind: "Root", Type: "a.Root"}}, tab.Roots())

	s, name, err := tab.RootClosure("a", "v1", "Root")
	require.NoError(t, err)
	assert.Equal(t, "a.Root", name)
	want := map[string]schema.TypeDef{}
	for _, td := range p.Schema.Types {
		want[td.Name] = td
	}
	var names []string
	for _, td := range s.Types {
		names = append(names, td.Name)
		assert.Equal(t, want[td.Name], td, td.Name)
	}
	assert.ElementsMatch(t, []string{"a.Root", "a.Spec", "a.Leaf", "__untyped_atomic_"}, names, "the closure holds the reached types only")

	leaf, err := tab.Closure("a.Leaf")
	require.NoError(t, err)
	assert.Len(t, leaf.Types, 1)

	_, _, err = tab.RootClosure("a", "v2", "Root")
	assert.ErrorContains(t, err, "no type for a/v2 Root")
	_, err = tab.Closure("nope")
	assert.ErrorContains(t, err, `no type "nope"`)
}

func TestDecodedTypeValidatesLikeTheParsedOne(t *testing.T) {
	p := parse(t, testSchema)
	data, err := Encode(p.Schema.Types, []Root{{Group: "a", Version: "v1", Kind: "Root", Type: "a.Root"}})
	require.NoError(t, err)
	tab, err := Open(data)
	require.NoError(t, err)
	s, name, err := tab.RootClosure("a", "v1", "Root")
	require.NoError(t, err)
	ours := typed.ParseableType{Schema: s, TypeRef: schema.TypeRef{NamedType: &name}}
	theirs := p.Type("a.Root")
	for _, obj := range []string{
		`{"spec": {"items": [{"name": "a"}, {"name": "b"}], "set": ["x"], "other": [1]}, "num": 2}`,
		`{"spec": {"items": [{"name": "a"}, {"name": "a"}]}}`,
		`{"spec": {"items": [{"nome": "a"}]}}`,
		`{"num": "x"}`,
		`{"undeclared": 1}`,
	} {
		a, errA := ours.FromYAML(typed.YAMLObject(obj))
		b, errB := theirs.FromYAML(typed.YAMLObject(obj))
		if errB != nil {
			assert.EqualError(t, errA, errB.Error(), obj)
			continue
		}
		require.NoError(t, errA, obj)
		assert.True(t, value.Equals(a.AsValue(), b.AsValue()), obj)
	}
}

func TestEncodeRejectsWhatCannotBeStored(t *testing.T) {
	str := func(s string) *string { return &s }
	scalar := schema.Scalar("string")
	for _, tc := range []struct {
		name  string
		types []schema.TypeDef
		roots []Root
		err   string
	}{
		{"duplicate", []schema.TypeDef{{Name: "x", Atom: schema.Atom{Scalar: &scalar}}, {Name: "x", Atom: schema.Atom{Scalar: &scalar}}}, nil, `type "x" is defined twice`},
		{"dangling reference", []schema.TypeDef{{Name: "x", Atom: schema.Atom{List: &schema.List{ElementType: schema.TypeRef{NamedType: str("y")}}}}}, nil, `reference to undefined type "y"`},
		{"root without type", []schema.TypeDef{{Name: "x", Atom: schema.Atom{Scalar: &scalar}}}, []Root{{Kind: "K", Version: "v1", Type: "y"}}, `no type "y"`},
		{"root twice", []schema.TypeDef{{Name: "x", Atom: schema.Atom{Scalar: &scalar}}}, []Root{{Kind: "K", Version: "v1", Type: "x"}, {Kind: "K", Version: "v1", Type: "x"}}, "given twice"},
		{"odd default", []schema.TypeDef{{Name: "x", Atom: schema.Atom{Map: &schema.Map{Fields: []schema.StructField{{Name: "f", Default: int8(1)}}}}}}, nil, "cannot be stored"},
		{"non-string key", []schema.TypeDef{{Name: "x", Atom: schema.Atom{Map: &schema.Map{Fields: []schema.StructField{{Name: "f", Default: map[interface{}]interface{}{1: 2}}}}}}}, nil, "is not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode(tc.types, tc.roots)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func gz(t testing.TB, raw []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write(raw)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestOpenRejectsCorruptInput(t *testing.T) {
	p := parse(t, testSchema)
	good, err := Encode(p.Schema.Types, []Root{{Group: "a", Version: "v1", Kind: "Root", Type: "a.Root"}})
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(good))
	require.NoError(t, err)
	var raw bytes.Buffer
	_, err = raw.ReadFrom(zr)
	require.NoError(t, err)

	_, err = Open([]byte("plain"))
	assert.Error(t, err, "not gzip")
	_, err = Open(gz(t, []byte("SMDC0")))
	assert.ErrorContains(t, err, "not an SMDC1 encoding")
	_, err = Open(gz(t, raw.Bytes()[:20]))
	assert.Error(t, err, "truncated index")

	// Corrupting the records is found when a closure is decoded.
	body := append([]byte(nil), raw.Bytes()...)
	for i := len(body) - 40; i < len(body); i++ {
		body[i] = 0xff
	}
	tab, err := Open(gz(t, body))
	if err == nil {
		_, _, err = tab.RootClosure("a", "v1", "Root")
	}
	assert.Error(t, err)
}

func FuzzOpenAndClosure(f *testing.F) {
	p := parse(f, testSchema)
	good, err := Encode(p.Schema.Types, []Root{{Group: "a", Version: "v1", Kind: "Root", Type: "a.Root"}})
	require.NoError(f, err)
	zr, err := gzip.NewReader(bytes.NewReader(good))
	require.NoError(f, err)
	var raw bytes.Buffer
	_, err = raw.ReadFrom(zr)
	require.NoError(f, err)
	f.Add(raw.Bytes())
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, body []byte) {
		tab, err := Open(gz(t, body))
		if err != nil {
			return
		}
		for _, r := range tab.Roots() {
			s, name, err := tab.RootClosure(r.Group, r.Version, r.Kind)
			if err != nil {
				continue
			}
			pt := typed.ParseableType{Schema: s, TypeRef: schema.TypeRef{NamedType: &name}}
			_, _ = pt.FromYAML(`{"a": [1, {"b": "c"}], "spec": {"items": [{"name": "x"}]}}`)
		}
	})
}
