package validatingpolicy

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestExplainMatchConditions: each invocation lists every match
// condition's outcome, the false one and those after it included.
func TestExplainMatchConditions(t *testing.T) {
	d, err := NewDispatcher(policies{policy("p", validations(expr("true")), conditions(
		admissionregistrationv1.MatchCondition{Name: "named-x", Expression: `object.metadata.name == "x"`},
		admissionregistrationv1.MatchCondition{Name: "in-prod", Expression: `object.metadata.namespace == "prod"`},
		admissionregistrationv1.MatchCondition{Name: "broken", Expression: `object.metadata.nosuch == "y"`},
	))}, bindings{binding("b", "p", deny)}, Options{Namespaces: namespaces})
	require.NoError(t, err)
	_, trace, err := d.Explain(context.Background(), create(pod("dev", "x", nil)))
	require.NoError(t, err)
	inv := trace.Policies[0].Bindings[0].Invocations[0]
	assert.True(t, inv.Skipped)
	assert.Equal(t, "in-prod", inv.FailedCondition)
	assert.Equal(t, []MatchConditionTrace{
		{Name: "named-x", Value: true},
		{Name: "in-prod", Value: false},
		{Name: "broken", Err: `expression 'object.metadata.nosuch == "y"' resulted in error: no such key: nosuch`},
	}, inv.MatchConditions)
	text := trace.String()
	assert.Contains(t, text, "    match condition named-x: true\n    match condition in-prod: false\n    match condition broken: error: expression")
	assert.Contains(t, text, `    skipped: match condition "in-prod" is false`)

	// Errors alone under Ignore skip the invocation; the trace says why.
	d, err = NewDispatcher(policies{policy("p", validations(expr("false")), failurePolicy(admissionregistrationv1.Ignore), conditions(
		admissionregistrationv1.MatchCondition{Name: "broken", Expression: `object.metadata.nosuch == "y"`},
	))}, bindings{binding("b", "p", deny)}, Options{Namespaces: namespaces})
	require.NoError(t, err)
	_, trace, err = d.Explain(context.Background(), create(pod("dev", "x", nil)))
	require.NoError(t, err)
	inv = trace.Policies[0].Bindings[0].Invocations[0]
	assert.True(t, inv.Skipped)
	require.Len(t, inv.MatchConditions, 1)
	assert.NotEmpty(t, inv.MatchConditions[0].Err)
	assert.Contains(t, trace.String(), "skipped: match conditions failed under failurePolicy Ignore")
}

// TestExplainAuditAnnotationErrors: an audit annotation's error is in the
// trace whether it denies (Fail) or is ignored (Ignore: the annotation is
// left out), and a value cut to 10,240 bytes says so.
func TestExplainAuditAnnotationErrors(t *testing.T) {
	const errText = "no such key: nosuch"
	long := strings.Repeat("v", maxAnnotationValue+10)
	for _, tc := range []struct {
		fp     admissionregistrationv1.FailurePolicyType
		denied bool
	}{{admissionregistrationv1.Fail, true}, {admissionregistrationv1.Ignore, false}} {
		t.Run(string(tc.fp), func(t *testing.T) {
			d, err := NewDispatcher(policies{policy("p", failurePolicy(tc.fp), annotations(
				admissionregistrationv1.AuditAnnotation{Key: "broken", ValueExpression: `string(object.metadata.nosuch)`},
				admissionregistrationv1.AuditAnnotation{Key: "long", ValueExpression: `string(object.metadata.labels["long"])`},
			))}, bindings{binding("b", "p", audit)}, Options{Namespaces: namespaces})
			require.NoError(t, err)
			res, trace, err := d.Explain(context.Background(), create(pod("dev", "x", map[string]string{"long": long})))
			assert.Equal(t, tc.denied, err != nil, "%v", err)
			inv := trace.Policies[0].Bindings[0].Invocations[0]
			require.Len(t, inv.AuditAnnotations, 2)
			broken := inv.AuditAnnotations[0]
			assert.Equal(t, "broken", broken.Key)
			assert.Contains(t, broken.Err, errText)
			assert.Equal(t, tc.denied, broken.Denied)
			assert.Empty(t, broken.Value)
			cut := inv.AuditAnnotations[1]
			assert.True(t, cut.Truncated)
			assert.Len(t, cut.Value, maxAnnotationValue)
			assert.True(t, cut.Value == long[:maxAnnotationValue], "the value cut")
			assert.True(t, res.AuditAnnotations["p/long"] == cut.Value, "the value published")
			text := trace.String()
			assert.Contains(t, text, "audit annotation broken: error (denies: "+map[bool]string{true: "true", false: "false"}[tc.denied]+"): ")
			assert.Contains(t, text, "(cut to 10240 bytes)")
		})
	}
}

// TestExplainDroppedAuditAnnotations: an annotation whose key kube-apiserver's
// attributes refuse is dropped, with their error, in the policy's trace.
func TestExplainDroppedAuditAnnotations(t *testing.T) {
	d, err := NewDispatcher(policies{policy("Not_A_Prefix", annotations(
		admissionregistrationv1.AuditAnnotation{Key: "k", ValueExpression: `"v"`},
	))}, bindings{binding("b", "Not_A_Prefix", deny)}, Options{Namespaces: namespaces})
	require.NoError(t, err)
	res, trace, err := d.Explain(context.Background(), create(pod("dev", "x", nil)))
	require.NoError(t, err)
	assert.Empty(t, res.AuditAnnotations)
	dropped := trace.Policies[0].DroppedAuditAnnotations
	require.Len(t, dropped, 1)
	assert.Equal(t, "Not_A_Prefix/k", dropped[0].Key)
	assert.Equal(t, "v", dropped[0].Value)
	assert.True(t, strings.HasPrefix(dropped[0].Err, "annotation key has invalid format prefix part a lowercase RFC 1123 subdomain"), dropped[0].Err)
	assert.True(t, strings.HasSuffix(dropped[0].Err, ". A qualified name like 'podsecuritypolicy.admission.k8s.io/admit-policy' is required."), dropped[0].Err)
	assert.Contains(t, trace.String(), "  audit annotation Not_A_Prefix/k dropped: annotation key has invalid format")

	r := &Result{}
	require.NoError(t, addAnnotation(r, "p/k", "a"))
	require.NoError(t, addAnnotation(r, "p/k", "a"))
	assert.EqualError(t, addAnnotation(r, "p/k", "b"), `admission annotations are not allowd to be overwritten, key:"p/k", old value: {Metadata a}, new value: {Metadata b}`)
	assert.EqualError(t, addAnnotation(r, "k", "b"), "annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')")
	assert.Equal(t, map[string]string{"p/k": "a"}, r.AuditAnnotations)
}

// TestExplainNamespaceLookupFailure: the binding whose namespace lookup
// failed the request says so, with the status returned.
func TestExplainNamespaceLookupFailure(t *testing.T) {
	d, err := NewDispatcher(policies{policy("p", validations(expr("true")))}, bindings{binding("b", "p", deny)}, Options{Namespaces: namespaces})
	require.NoError(t, err)
	_, trace, err := d.Explain(context.Background(), create(pod("missing", "x", nil)))
	require.Error(t, err)
	assert.True(t, apierrors.IsNotFound(err))
	bt := trace.Policies[0].Bindings[0]
	assert.True(t, bt.Matched)
	assert.Empty(t, bt.Invocations)
	assert.Equal(t, err, bt.NamespaceErr)
	assert.Contains(t, trace.String(), `    namespace lookup failed (fails the request): namespaces "missing" not found`)
}

// TestExplainBindingKind: a binding whose matchResources match only an
// equivalent resource says which, while the invocation uses the policy's.
func TestExplainBindingKind(t *testing.T) {
	v1 := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	v2 := schema.GroupVersionResource{Version: "v2", Resource: "pods"}
	equivalents := runtime.NewEquivalentResourceRegistry()
	equivalents.RegisterKindFor(v1, "", schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	equivalents.RegisterKindFor(v2, "", schema.GroupVersionKind{Version: "v2", Kind: "Pod"})
	equivalent := admissionregistrationv1.Equivalent
	b := binding("b", "p", deny)
	b.Spec.MatchResources = &admissionregistrationv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}, MatchPolicy: &equivalent,
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v2"}, Resources: []string{"pods"}},
		}}},
	}
	d, err := NewDispatcher(policies{policy("p", validations(expr(`request.kind.version == "v1"`)))}, bindings{b},
		Options{Namespaces: namespaces, Equivalents: equivalents})
	require.NoError(t, err)
	_, trace, err := d.Explain(context.Background(), create(pod("dev", "x", nil)))
	require.NoError(t, err)
	p := trace.Policies[0]
	assert.Equal(t, v1, p.Resource)
	bt := p.Bindings[0]
	assert.True(t, bt.Matched)
	assert.Equal(t, v2, bt.Resource)
	assert.Equal(t, schema.GroupVersionKind{Version: "v2", Kind: "Pod"}, bt.Kind)
	assert.True(t, bt.Invocations[0].Validations[0].Passed, "the invocation sees the policy's kind")
	assert.Contains(t, trace.String(), "  binding b: matched /v2, Resource=pods (/v2, Kind=Pod), actions [Deny]")
}
