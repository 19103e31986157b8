package admissionmatch

import (
	"context"
	"fmt"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fuzzBytes draws choices from the fuzzer's input; past its end, zeros.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) n(max int) int {
	if len(f.b) == 0 || max <= 0 {
		return 0
	}
	v := int(f.b[0]) % max
	f.b = f.b[1:]
	return v
}

func draw[T any](f *fuzzBytes, items ...T) T { return items[f.n(len(items))] }

func drawSome[T any](f *fuzzBytes, max int, items ...T) []T {
	n := f.n(max + 2)
	if n == max+1 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = draw(f, items...)
	}
	return out
}

// fuzzWords are the strings rules and requests are made of: the names of
// the wildcards and of real resources, and the odd ones.
var fuzzWords = []string{"", "*", "/", "*/*", "pods", "pods/*", "*/status", "status", "namespaces", "v1", "v2", "apps",
	"deployments", "a/b/c", "CREATE", "UPDATE", "DELETE", "CONNECT", "PATCH", "Namespaced", "Cluster", "Bogus", "default",
	"admissionregistration.k8s.io", "authentication.k8s.io", "tokenreviews", "ValidatingWebhookConfiguration", "x", "é", "\x00"}

func (f *fuzzBytes) word(extra string) string {
	if f.n(8) == 0 {
		return extra
	}
	return draw(f, fuzzWords...)
}

func (f *fuzzBytes) rule(extra string) admissionregistrationv1.RuleWithOperations {
	r := admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{
		APIGroups:   drawSome(f, 3, fuzzWords...),
		APIVersions: drawSome(f, 3, fuzzWords...),
		Resources:   drawSome(f, 3, fuzzWords...),
	}}
	for _, op := range drawSome(f, 3, fuzzWords...) {
		r.Operations = append(r.Operations, admissionregistrationv1.OperationType(op))
	}
	if f.n(2) == 0 {
		r.Resources = append(r.Resources, extra)
	}
	if s := f.n(5); s > 0 {
		scope := admissionregistrationv1.ScopeType(draw(f, "*", "Namespaced", "Cluster", extra))
		r.Scope = &scope
	}
	return r
}

func (f *fuzzBytes) selector(extra string) *metav1.LabelSelector {
	switch f.n(6) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	case 2:
		return &metav1.LabelSelector{MatchLabels: map[string]string{f.word(extra): f.word(extra)}}
	}
	s := &metav1.LabelSelector{}
	for range f.n(3) + 1 {
		s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      f.word(extra),
			Operator: metav1.LabelSelectorOperator(draw(f, "In", "NotIn", "Exists", "DoesNotExist", extra)),
			Values:   drawSome(f, 2, fuzzWords...),
		})
	}
	return s
}

func (f *fuzzBytes) object(extra string) runtime.Object {
	labels := map[string]string{f.word(extra): f.word(extra)}
	switch f.n(6) {
	case 0:
		return nil
	case 1:
		return (*corev1.Pod)(nil)
	case 2:
		return &metav1.Status{}
	case 3:
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"labels": map[string]any{extra: 3}}}}
		return u
	case 4:
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetLabels(labels)
		return u
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
}

func (f *fuzzBytes) gvr(extra string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: f.word(extra), Version: f.word(extra), Resource: f.word(extra)}
}

// FuzzMatch matches random requests against random webhooks and policies:
// matching never panics; Explain agrees with Match; a match has no error and
// the request's or an equivalent resource; a webhook and a policy with the
// same rules and selectors decide alike.
func FuzzMatch(f *testing.F) {
	f.Add([]byte{}, "")
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, "pods")
	f.Add([]byte("\x03\x04\x05\x06\x07\x01\x01\x01\x02\x02\x02\x09\x09\x09\x04\x04\x04\x05\x05\x05\x05\x03"), "deployments/scale")
	f.Add([]byte("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0\xef\xee\xed\xec\xeb\xea\xe9\xe8"), "a/*")
	f.Fuzz(func(t *testing.T, data []byte, extra string) {
		fb := &fuzzBytes{b: data}
		var rules []admissionregistrationv1.RuleWithOperations
		for range fb.n(4) {
			rules = append(rules, fb.rule(extra))
		}
		ns, obj := fb.selector(extra), fb.selector(extra)
		matchPolicy := draw(fb, nil, ptr(admissionregistrationv1.Exact), ptr(admissionregistrationv1.Equivalent))
		equivalents := []schema.GroupVersionResource{fb.gvr(extra), fb.gvr(extra)}
		kinds := map[schema.GroupVersionResource]schema.GroupVersionKind{equivalents[0]: {Group: fb.word(extra), Version: "v", Kind: fb.word(extra)}}
		r := &Request{
			Operation:   admissionv1.Operation(fb.word(extra)),
			Kind:        schema.GroupVersionKind{Group: fb.word(extra), Version: fb.word(extra), Kind: fb.word(extra)},
			Resource:    fb.gvr(extra),
			Subresource: fb.word(extra),
			Name:        fb.word(extra),
			Namespace:   fb.word(extra),
			Object:      fb.object(extra),
			OldObject:   fb.object(extra),
			Namespaces:  testNamespaces,
			Equivalents: EquivalentsFuncs{
				Resources: func(schema.GroupVersionResource, string) []schema.GroupVersionResource { return equivalents },
				Kind: func(r schema.GroupVersionResource, _ string) schema.GroupVersionKind {
					return kinds[r]
				},
			},
		}
		if fb.n(4) == 0 {
			r.Namespaces = nil
		}
		options := Options{Static: fb.n(2) == 0}
		if fb.n(2) == 0 {
			options.ExcludedResources = []schema.GroupResource{{Group: fb.word(extra), Resource: fb.word(extra)}}
		}

		ctx := context.Background()
		w := CompileWebhook(WebhookCriteria{Rules: rules, NamespaceSelector: ns, ObjectSelector: obj, MatchPolicy: matchPolicy}, options)
		named := make([]admissionregistrationv1.NamedRuleWithOperations, len(rules))
		for i := range rules {
			named[i].RuleWithOperations = rules[i]
		}
		p := CompilePolicy(&admissionregistrationv1.MatchResources{NamespaceSelector: ns, ObjectSelector: obj, ResourceRules: named, MatchPolicy: matchPolicy}, options)

		check := func(what string, res Result, x Explanation, again Result) {
			if fmt.Sprint(res) != fmt.Sprint(again) {
				t.Fatalf("%s: Explain %+v, Match %+v", what, res, again)
			}
			if res.Matches && res.Err != nil {
				t.Fatalf("%s: matches with an error: %+v", what, res)
			}
			if (x.Reason == ReasonMatched) != res.Matches || (x.Reason == ReasonError) != (res.Err != nil) {
				t.Fatalf("%s: reason %v for %+v", what, x.Reason, res)
			}
			if res.Matches && res.Resource != r.Resource && !slices.Contains(equivalents, res.Resource) {
				t.Fatalf("%s: matched resource %v is neither the request's nor an equivalent", what, res.Resource)
			}
		}
		wres, wx := w.Explain(ctx, r)
		check("webhook", wres, wx, w.Match(ctx, r))
		pres, px := p.Explain(ctx, r)
		check("policy", pres, px, p.Match(ctx, r))

		if len(rules) > 0 && ns != nil && obj != nil && !isAdmissionConfigurationKind(&r.Kind) && !isAdmissionPolicyResource(&r.Resource) {
			if wres.Matches != pres.Matches || wres.Resource != pres.Resource || wres.Kind != pres.Kind || (wres.Err == nil) != (pres.Err == nil) {
				t.Fatalf("webhook %+v and policy %+v decide differently", wres, pres)
			}
		}
	})
}
