package authorizer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"
)

// sampleAttributes covers what the encoders must get right: selectors with
// every operator, users with and without groups and extra, strings that JSON
// escapes.
func sampleAttributes() map[string]*Attributes {
	return map[string]*Attributes{
		"nil user":           {Verb: "get", ResourceRequest: true, Resource: "pods"},
		"empty":              {},
		"empty resource":     {ResourceRequest: true},
		"non-resource":       {User: &User{Name: "a"}, Verb: "get", Path: "/healthz"},
		"full user":          {User: &User{Name: "jane", UID: "1", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"b": {"2"}, "a": {"1", "x"}, "n": nil, "e": {}}}, Verb: "list", ResourceRequest: true},
		"empty groups":       {User: &User{Name: "a", Groups: []string{}, Extra: map[string][]string{}}, ResourceRequest: true},
		"all resource attrs": {Verb: "update", ResourceRequest: true, Namespace: "ns", APIGroup: "apps", APIVersion: "v1", Resource: "deployments", Subresource: "scale", Name: "x", Path: "/ignored"},
		"escapes":            {User: &User{Name: "<a>&\"\\\b\f\n\r\t\x00\x1f\x7f", Groups: []string{"\u2028\u2029", "日本", "\xff\xfe", "\xed\xa0\x80"}}, Verb: "get", Path: "/é"},
		"selectors": {Verb: "list", ResourceRequest: true, Resource: "pods",
			FieldSelector: []FieldRequirement{
				{Field: "a", Operator: selection.Equals, Value: "1"}, {Field: "b", Operator: selection.DoubleEquals, Value: ""},
				{Field: "c", Operator: selection.In, Value: "3"}, {Field: "d", Operator: selection.NotEquals, Value: "4"},
				{Field: "e", Operator: selection.NotIn, Value: "5"}, {Field: "f", Operator: selection.Exists, Value: "6"},
				{Field: "g", Operator: selection.GreaterThan, Value: "7"},
			},
			LabelSelector: []LabelRequirement{
				{Key: "a", Operator: selection.In, Values: []string{"1", "2"}}, {Key: "b", Operator: selection.NotIn, Values: []string{"3"}},
				{Key: "c", Operator: selection.Equals, Values: []string{"4"}}, {Key: "d", Operator: selection.DoubleEquals, Values: []string{"5"}},
				{Key: "e", Operator: selection.NotEquals, Values: []string{"6"}}, {Key: "f", Operator: selection.Exists},
				{Key: "g", Operator: selection.DoesNotExist, Values: []string{}}, {Key: "h", Operator: selection.GreaterThan, Values: []string{"8"}},
				{Key: "i", Operator: selection.LessThan, Values: []string{"9"}},
			}},
		"selectors all dropped": {Verb: "list", ResourceRequest: true,
			FieldSelector: []FieldRequirement{{Field: "a", Operator: selection.Exists}},
			LabelSelector: []LabelRequirement{{Key: "a", Operator: selection.GreaterThan, Values: []string{"1"}}}},
	}
}

// encodeWithEncodingJSON is what kube-apiserver's JSON serializer writes.
func encodeWithEncodingJSON(t *testing.T, a *Attributes, v1beta1 bool) []byte {
	t.Helper()
	spec := *specOf(a, &specScratch{})
	var obj any
	if v1beta1 {
		obj = &authorizationv1beta1.SubjectAccessReview{
			TypeMeta: metav1.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1beta1"},
			Spec: authorizationv1beta1.SubjectAccessReviewSpec{
				ResourceAttributes:    (*authorizationv1beta1.ResourceAttributes)(spec.ResourceAttributes),
				NonResourceAttributes: (*authorizationv1beta1.NonResourceAttributes)(spec.NonResourceAttributes),
				User:                  spec.User, Groups: spec.Groups, UID: spec.UID,
				Extra: extraV1beta1(spec.Extra),
			},
		}
	} else {
		obj = &authorizationv1.SubjectAccessReview{
			TypeMeta: metav1.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1"},
			Spec:     spec,
		}
	}
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(obj))
	return buf.Bytes()
}

func extraV1beta1(in map[string]authorizationv1.ExtraValue) map[string]authorizationv1beta1.ExtraValue {
	if in == nil {
		return nil
	}
	out := map[string]authorizationv1beta1.ExtraValue{}
	for k, v := range in {
		out[k] = authorizationv1beta1.ExtraValue(v)
	}
	return out
}

func TestAppendSARMatchesEncodingJSON(t *testing.T) {
	for name, a := range sampleAttributes() {
		for _, v1beta1 := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				got := appendSAR(nil, a, v1beta1)
				assert.Equal(t, string(encodeWithEncodingJSON(t, a, v1beta1)), string(got))
			})
		}
	}
}

func TestAppendSARSendsGroupUnderV1beta1(t *testing.T) {
	a := &Attributes{User: &User{Name: "u", Groups: []string{"g"}}, Verb: "get", Path: "/"}
	assert.Contains(t, string(appendSAR(nil, a, true)), `"group":["g"]`)
	assert.Contains(t, string(appendSAR(nil, a, false)), `"groups":["g"]`)
	assert.True(t, strings.HasSuffix(string(appendSAR(nil, a, false)), `"status":{"allowed":false}}`+"\n"))
}
