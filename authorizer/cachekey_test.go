package authorizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/selection"
)

// jsonKey is kube-apiserver's cache key: the JSON of the v1 spec.
func jsonKey(t testing.TB, a *Attributes) string {
	data, err := json.Marshal(specOf(a, &specScratch{}))
	require.NoError(t, err)
	return string(data)
}

// keyVariants are requests that differ in ways the JSON key sees and ways
// it does not.
func keyVariants() []*Attributes {
	base := func() *Attributes {
		return &Attributes{User: &User{Name: "jane", Groups: []string{"a", "b"}}, Verb: "get", ResourceRequest: true, Resource: "pods"}
	}
	var out []*Attributes
	add := func(f func(a *Attributes)) {
		a := base()
		f(a)
		out = append(out, a)
	}
	add(func(*Attributes) {})
	add(func(a *Attributes) { a.Path = "/other" })         // path is not in a resource key
	add(func(a *Attributes) { a.ResourceRequest = false }) // non-resource
	add(func(a *Attributes) { a.ResourceRequest = false; a.Path = "/x" })
	add(func(a *Attributes) { a.User = nil })
	add(func(a *Attributes) { a.User = &User{} }) // same JSON as nil
	add(func(a *Attributes) { a.User.Groups = nil })
	add(func(a *Attributes) { a.User.Groups = []string{} })           // same as nil
	add(func(a *Attributes) { a.User.Groups = []string{"b", "a"} })   // order matters
	add(func(a *Attributes) { a.User.Groups = []string{"ab"} })       // no confusion of boundaries
	add(func(a *Attributes) { a.User.Extra = map[string][]string{} }) // same as nil
	add(func(a *Attributes) { a.User.Extra = map[string][]string{"k": nil} })
	add(func(a *Attributes) { a.User.Extra = map[string][]string{"k": {}} }) // [] differs from null
	add(func(a *Attributes) { a.User.Extra = map[string][]string{"k": {""}} })
	add(func(a *Attributes) { a.User.Extra = map[string][]string{"k": {"v"}, "j": {"w"}} })
	add(func(a *Attributes) { a.User.Extra = map[string][]string{"j": {"v"}, "k": {"w"}} })
	add(func(a *Attributes) { a.User.Name = "ja\xffne" })
	add(func(a *Attributes) { a.User.Name = "ja\xfene" })     // same JSON as \xff
	add(func(a *Attributes) { a.User.Name = "ja\ufffdne" })   // a real U+FFFD differs
	add(func(a *Attributes) { a.User.Name = "ja\xff\xfene" }) // two replacements
	add(func(a *Attributes) { a.User.UID = "jane" })
	add(func(a *Attributes) { a.User.Name = ""; a.User.UID = "jane" })
	add(func(a *Attributes) { a.Namespace = "get"; a.Verb = "" })
	add(func(a *Attributes) {
		a.FieldSelector = []FieldRequirement{{Field: "f", Operator: selection.Equals, Value: "v"}}
	})
	add(func(a *Attributes) { // == and in are sent as In too
		a.FieldSelector = []FieldRequirement{{Field: "f", Operator: selection.In, Value: "v"}}
	})
	add(func(a *Attributes) {
		a.FieldSelector = []FieldRequirement{{Field: "f", Operator: selection.NotEquals, Value: "v"}}
	})
	add(func(a *Attributes) { // dropped: same as no selector
		a.FieldSelector = []FieldRequirement{{Field: "f", Operator: selection.Exists}}
	})
	add(func(a *Attributes) {
		a.LabelSelector = []LabelRequirement{{Key: "l", Operator: selection.Exists}}
	})
	add(func(a *Attributes) {
		a.LabelSelector = []LabelRequirement{{Key: "l", Operator: selection.Exists, Values: []string{}}}
	})
	add(func(a *Attributes) {
		a.LabelSelector = []LabelRequirement{{Key: "l", Operator: selection.DoesNotExist}}
	})
	add(func(a *Attributes) {
		a.LabelSelector = []LabelRequirement{{Key: "l", Operator: selection.In, Values: []string{"a", "b"}}}
	})
	add(func(a *Attributes) {
		a.LabelSelector = []LabelRequirement{{Key: "l", Operator: selection.Equals, Values: []string{"a", "b"}}}
	})
	add(func(a *Attributes) {
		a.LabelSelector = []LabelRequirement{{Key: "l", Operator: selection.GreaterThan, Values: []string{"1"}}}
	})
	return out
}

func TestCacheKeyTellsApartWhatKubeAPIServerTellsApart(t *testing.T) {
	vs := keyVariants()
	for i, a := range vs {
		for j, b := range vs {
			ka, kb := string(appendCacheKey(nil, a)), string(appendCacheKey(nil, b))
			ja, jb := jsonKey(t, a), jsonKey(t, b)
			assert.Equal(t, ja == jb, ka == kb, "variants %d and %d:\n%s\n%s", i, j, ja, jb)
		}
	}
}

func FuzzCacheKey(f *testing.F) {
	f.Add("jane", "a", "b", "k", "v", "ns", true, false, uint8(0))
	f.Add("ja\xffne", "", "\xfe", "\xff", "", "", false, true, uint8(3))
	f.Fuzz(func(t *testing.T, name, g1, g2, ek, ev, ns string, resource, nilExtra bool, op uint8) {
		ops := []selection.Operator{selection.Equals, selection.In, selection.NotIn, selection.Exists, selection.DoesNotExist, selection.GreaterThan}
		mk := func(name, g, ev string) *Attributes {
			a := &Attributes{User: &User{Name: name, Groups: []string{g1, g}}, Verb: "get", ResourceRequest: resource, Namespace: ns}
			if nilExtra {
				a.User.Extra = map[string][]string{ek: nil}
			} else {
				a.User.Extra = map[string][]string{ek: {ev}}
			}
			a.LabelSelector = []LabelRequirement{{Key: g, Operator: ops[int(op)%len(ops)], Values: strings.Fields(ev)}}
			return a
		}
		a, b := mk(name, g2, ev), mk(g2, name, ek)
		ka, kb := string(appendCacheKey(nil, a)), string(appendCacheKey(nil, b))
		ja, jb := jsonKey(t, a), jsonKey(t, b)
		if (ka == kb) != (ja == jb) {
			t.Fatalf("keys equal: %v, JSON keys equal: %v\n%s\n%s", ka == kb, ja == jb, ja, jb)
		}
	})
}

// FuzzCacheKeyASCIIPath: the key written without UTF-8 checks when the
// whole key is ASCII is the key of the exact path, whatever the strings
// (invalid UTF-8, lengths of 128 and more, nil extra values).
func FuzzCacheKeyASCIIPath(f *testing.F) {
	f.Add("jane", "a", "b", "k", "v", "ns", true, false, uint8(0), uint8(0))
	f.Add("ja\xffne", "", "\xfe", "\xff", "", "", false, true, uint8(3), uint8(1))
	f.Add("jane", "system:authenticated", "é", "scopes", "a b", "kube-system", true, false, uint8(2), uint8(130))
	f.Fuzz(func(t *testing.T, name, g1, g2, ek, ev, ns string, resource, nilExtra bool, op, repeat uint8) {
		ops := []selection.Operator{selection.Equals, selection.In, selection.NotIn, selection.Exists, selection.DoesNotExist, selection.GreaterThan}
		a := &Attributes{User: &User{Name: name, UID: strings.Repeat(g1, int(repeat)), Groups: []string{g1, g2}},
			Verb: "get", ResourceRequest: resource, Namespace: ns, Path: ev, Name: strings.Repeat(ns, int(repeat))}
		switch {
		case nilExtra:
			a.User.Extra = map[string][]string{ek: nil, ev: {g2}}
		case op%2 == 0:
			a.User.Extra = map[string][]string{ek: {ev}}
		}
		a.LabelSelector = []LabelRequirement{{Key: g2, Operator: ops[int(op)%len(ops)], Values: strings.Fields(ev)}}
		a.FieldSelector = []FieldRequirement{{Field: ek, Operator: ops[int(op/2)%len(ops)], Value: g1}}
		got := appendCacheKey([]byte("prefix"), a)
		want := appendCacheKeyOf([]byte("prefix"), a, true)
		if string(got) != string(want) {
			t.Fatalf("key %q, exact key %q", got, want)
		}
	})
}

func TestIsASCII(t *testing.T) {
	for n := range 20 {
		b := []byte(strings.Repeat("a", n))
		assert.True(t, isASCII(b))
		for i := range n {
			c := append([]byte(nil), b...)
			c[i] = 0x80
			assert.False(t, isASCII(c), "%d of %d", i, n)
		}
	}
}

func TestCacheable(t *testing.T) {
	n := func(k int) string { return strings.Repeat("x", k) }
	tests := []struct {
		a    Attributes
		want bool
	}{
		{Attributes{Verb: "get", Name: n(9996)}, true},
		{Attributes{Verb: "get", Name: n(9997)}, false},
		{Attributes{Path: n(10000)}, false},
		{Attributes{Namespace: n(2000), APIGroup: n(2000), APIVersion: n(2000), Resource: n(2000), Subresource: n(1999)}, true},
		{Attributes{Namespace: n(2000), APIGroup: n(2000), APIVersion: n(2000), Resource: n(2000), Subresource: n(2000)}, false},
		{Attributes{User: &User{Name: n(20000), Groups: []string{n(20000)}}}, true}, // the user is not counted
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			assert.Equal(t, tt.want, cacheable(&tt.a))
		})
	}
}
