package authzcond

import (
	"context"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fuzzSpec builds a request from fuzzed text: fields separated by '|'.
func fuzzSpec(s string, shape uint8) *authorizationv1.SubjectAccessReviewSpec {
	p := strings.Split(s, "|")
	at := func(i int) string {
		if i < len(p) {
			return p[i]
		}
		return ""
	}
	spec := &authorizationv1.SubjectAccessReviewSpec{User: at(0), UID: at(1)}
	if shape&1 != 0 {
		spec.Groups = strings.Split(at(2), ",")
	}
	if shape&2 != 0 {
		spec.Extra = map[string]authorizationv1.ExtraValue{at(3): strings.Split(at(4), ",")}
	}
	if shape&4 != 0 {
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: at(5), Verb: at(6), Group: at(7), Resource: at(8), Name: at(9)}
		if shape&16 != 0 {
			spec.ResourceAttributes.FieldSelector = &authorizationv1.FieldSelectorAttributes{RawSelector: at(10), Requirements: []metav1.FieldSelectorRequirement{{Key: at(11), Operator: metav1.FieldSelectorOpIn, Values: []string{at(12)}}}}
		}
		if shape&32 != 0 {
			spec.ResourceAttributes.LabelSelector = &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{{Key: at(11), Operator: metav1.LabelSelectorOpExists}}}
		}
	}
	if shape&8 != 0 {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: at(5), Verb: at(6)}
	}
	return spec
}

// FuzzAuthorizationMatch compiles arbitrary expressions and evaluates them
// on arbitrary requests: no panic, the fast path and the tracked path agree.
func FuzzAuthorizationMatch(f *testing.F) {
	for _, e := range []string{
		"has(request.resourceAttributes)",
		"request.resourceAttributes.namespace == 'kube-system'",
		"!('system:serviceaccounts:kube-system' in request.groups)",
		"request.resourceAttributes.?fieldSelector.requirements.orValue([]).exists(r, r.key == 'a')",
		"dyn(request).size() > 4 && request.extra.all(k, v, v.size() > 0)",
		"request.user.matches('^system:') || request.uid.startsWith('x')",
		"request.groups.map(g, g.lowerAscii()).sort()[0] == ''",
		"lists.range(100).all(i, i >= 0)",
		"[request.nonResourceAttributes][0] == dyn({'path': '/', 'verb': 'get'})",
	} {
		f.Add(e, "alice|u1|dev,ops|scopes|a,b|kube-system|get|apps|pods|web|a=b|k|v", uint8(0x3f))
	}
	f.Fuzz(func(t *testing.T, expr, request string, shape uint8) {
		c := compiler(t)
		m, errs := c.Compile([]string{expr, "true"}, field.NewPath("matchConditions"))
		if len(errs) > 0 {
			if m != nil {
				t.Fatalf("a matcher with errors: %v", errs)
			}
			return
		}
		spec := fuzzSpec(request, shape)
		matched, err := m.Match(context.Background(), spec)
		tracked, trace, trackedErr := m.Explain(context.Background(), spec)
		if matched != tracked || errString(err) != errString(trackedErr) {
			t.Fatalf("fast path (%v, %v) and tracked path (%v, %v) differ for %q", matched, err, tracked, trackedErr, expr)
		}
		if len(trace) == 0 {
			t.Fatal("no trace")
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
