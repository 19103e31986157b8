package admissionmatch

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WebhookCriteria are the fields of an admission webhook (validating or
// mutating) that decide whether it is called.
type WebhookCriteria struct {
	Rules             []admissionregistrationv1.RuleWithOperations
	NamespaceSelector *metav1.LabelSelector
	ObjectSelector    *metav1.LabelSelector
	// MatchPolicy Equivalent also matches the resources equivalent to the
	// request's; nil or Exact does not (the API defaults it to Equivalent:
	// the caller applies the defaults).
	MatchPolicy *admissionregistrationv1.MatchPolicyType
}

// ValidatingWebhookCriteria returns the criteria of a validating webhook.
func ValidatingWebhookCriteria(w *admissionregistrationv1.ValidatingWebhook) WebhookCriteria {
	return WebhookCriteria{Rules: w.Rules, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, MatchPolicy: w.MatchPolicy}
}

// MutatingWebhookCriteria returns the criteria of a mutating webhook.
func MutatingWebhookCriteria(w *admissionregistrationv1.MutatingWebhook) WebhookCriteria {
	return WebhookCriteria{Rules: w.Rules, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, MatchPolicy: w.MatchPolicy}
}

// Webhook decides whether an admission webhook is called for a request, as
// kube-apiserver's webhook dispatcher does (ShouldCallHook, and the
// exemptions of Dispatch), match conditions aside. It is immutable and safe
// for concurrent use.
type Webhook struct {
	exemptions        exemptions
	rules             ruleSet
	namespaceSelector selector
	objectSelector    selector
}

// CompileWebhook prepares a webhook's criteria: the selectors are parsed,
// the rules indexed. It keeps no reference to c. Criteria that kube-apiserver
// would fail on (a selector that does not parse) fail the requests the
// webhook's rules match, as in kube-apiserver.
func CompileWebhook(c WebhookCriteria, o Options) *Webhook {
	w := &Webhook{
		exemptions:        newExemptions(&o),
		namespaceSelector: newSelector(c.NamespaceSelector),
		objectSelector:    newSelector(c.ObjectSelector),
		rules: ruleSet{
			rules:      make([]rule, len(c.Rules)),
			equivalent: c.MatchPolicy != nil && *c.MatchPolicy == admissionregistrationv1.Equivalent,
			webhook:    true,
		},
	}
	for i := range c.Rules {
		w.rules.rules[i] = newRule(&c.Rules[i], nil)
	}
	return w
}

// Match decides whether the webhook is called for r.
func (w *Webhook) Match(ctx context.Context, r *Request) Result {
	return w.match(ctx, r, nil)
}

// Explain decides as Match does, and tells why.
func (w *Webhook) Explain(ctx context.Context, r *Request) (Result, Explanation) {
	x := Explanation{Rule: -1}
	res := w.match(ctx, r, &x)
	return res, x
}

func (w *Webhook) match(ctx context.Context, r *Request, x *Explanation) Result {
	if w.exemptions.isExcluded(r) {
		return notMatched(x, ReasonExcludedResource)
	}
	if !w.exemptions.static && isAdmissionConfigurationKind(&r.Kind) {
		return notMatched(x, ReasonAdmissionConfiguration)
	}
	// The rules first: they need no lookup, and the outcome is
	// kube-apiserver's whatever the order (see the package documentation).
	var res Result
	m := w.rules.match(r, &res)
	if x != nil {
		x.Rule, x.Equivalent = m.rule, m.equivalent
	}
	if !m.matched && m.err == nil {
		if x != nil {
			x.Reason = w.rules.whyNot(r)
		}
		return Result{}
	}
	return matchSelectors(ctx, r, x, &w.namespaceSelector, &w.objectSelector, m.err, res)
}

// matchSelectors finishes the match of a webhook or a policy whose rules
// matched or failed (ruleErr): the namespace and object selectors, then, as
// kube-apiserver, a selector that does not select wins over any error, and
// the rules' error over the selectors' errors.
func matchSelectors(ctx context.Context, r *Request, x *Explanation, ns, obj *selector, ruleErr error, res Result) Result {
	nsMatches, nsErr := ns.matchNamespace(ctx, r)
	if !nsMatches && nsErr == nil {
		return notMatched(x, ReasonNamespaceSelector)
	}
	objMatches, objErr := obj.matchObject(r)
	if !objMatches && objErr == nil {
		return notMatched(x, ReasonObjectSelector)
	}
	switch {
	case ruleErr != nil:
		return failed(x, ruleErr)
	case nsErr != nil:
		return failed(x, nsErr)
	case objErr != nil:
		return failed(x, objErr)
	}
	res.Matches = true
	return res
}

func notMatched(x *Explanation, why Reason) Result {
	if x != nil {
		x.Reason = why
	}
	return Result{}
}

func failed(x *Explanation, err error) Result {
	if x != nil {
		x.Reason = ReasonError
	}
	return Result{Err: err}
}
