package validatingpolicy

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Trace tells what Explain's validation did with a request: for each
// policy, in the dispatcher's order, whether it matched or why not, and for
// each of its bindings and params the match conditions, every validation
// and audit annotation, and the actions taken.
type Trace struct {
	// Policies are the policies that have bindings, in order, up to the
	// one whose namespace lookup failed the request.
	Policies []PolicyTrace
}

// PolicyTrace is one policy's part of a Trace.
type PolicyTrace struct {
	Policy string
	// Matched is true when the policy's matchConstraints select the
	// request; then Resource and Kind are what it was invoked with (an
	// equivalent resource's under matchPolicy Equivalent).
	Matched  bool
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
	// Reason says which predicate decided when it did not match: "rules",
	// "scope", "resourceNames", "excludeResourceRules", "namespaceSelector",
	// "objectSelector", "excluded resource", "admission configuration
	// object", or "error".
	Reason string
	// Err is the policy's configuration error, when it failed.
	Err error
	// Bindings are the policy's bindings, in order (none when it did not
	// match).
	Bindings []BindingTrace
	// DroppedAuditAnnotations are the policy's audit annotations that the
	// request's attributes refused when they were published, after its
	// bindings: kube-apiserver logs them and goes on.
	DroppedAuditAnnotations []DroppedAuditAnnotation
}

// DroppedAuditAnnotation is an audit annotation kube-apiserver's admission
// attributes refused.
type DroppedAuditAnnotation struct {
	// Key is the annotation's key ("<policy>/<key>") and Value its value.
	Key, Value string
	// Err is kube-apiserver's error: a key that is not a qualified name
	// ("annotation key has invalid format ..."), or one already set to
	// another value.
	Err string
}

// BindingTrace is one binding's part of a Trace.
type BindingTrace struct {
	Binding string
	// Matched is true when the binding's matchResources select the
	// request; Reason says why not otherwise (as in PolicyTrace).
	Matched bool
	Reason  string
	// Resource and Kind are what the binding's matchResources matched when
	// Matched: the request's own, or an equivalent resource's under
	// matchPolicy Equivalent. The invocations use the policy's
	// (PolicyTrace.Resource and Kind), as kube-apiserver does.
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
	// Err is the binding's configuration error (its params, its match, the
	// conversion of the request's objects).
	Err error
	// NamespaceErr is the error of the lookup of the request's namespace
	// (a NotFound status for a namespace that does not exist, an internal
	// error otherwise): kube-apiserver fails the request with it at once,
	// whatever the failure policy, and the binding has no invocations.
	NamespaceErr error
	// Actions are the binding's validationActions: what a failed
	// validation does.
	Actions []admissionregistrationv1.ValidationAction
	// Invocations are the binding's invocations: one per param, in order
	// (one without param when the policy has no paramKind or the binding no
	// paramRef).
	Invocations []InvocationTrace
}

// InvocationTrace is one (policy, binding, param) invocation.
type InvocationTrace struct {
	// ParamNamespace and ParamName name the param; both empty without one.
	ParamNamespace, ParamName string
	// MatchConditions are the policy's match conditions' outcomes, in
	// order: all of them, as kube-apiserver evaluates every one before it
	// decides; none when the policy has none or they ran out of budget.
	MatchConditions []MatchConditionTrace
	// Skipped is true when a false match condition, FailedCondition,
	// excluded the invocation (or their errors did, under failurePolicy
	// Ignore).
	Skipped         bool
	FailedCondition string
	// Err is the error that stands for the whole invocation, with its
	// decision (Denied under failurePolicy Fail): the policy's
	// compilation, its match conditions, or a budget that ran out.
	Err    string
	Denied bool
	// Validations are the validations' outcomes, in order.
	Validations []ValidationTrace
	// AuditAnnotations are the audit annotations' outcomes, in order.
	AuditAnnotations []AuditAnnotationTrace
}

// MatchConditionTrace is one match condition's outcome.
type MatchConditionTrace struct {
	Name string
	// Value is the condition's value; false when Err is set.
	Value bool
	// Err is the condition's error, with kube-apiserver's text.
	Err string
}

// ValidationTrace is one validation's outcome.
type ValidationTrace struct {
	Index int
	// Passed is true when the expression was true. Otherwise Message is the
	// failure's message (or the error's, when Error is set) and Denied
	// tells whether it denies (an error under failurePolicy Ignore does
	// not); the binding's Actions say what was done with it.
	Passed  bool
	Error   bool
	Denied  bool
	Message string
	Reason  metav1.StatusReason
}

// AuditAnnotationTrace is one audit annotation's outcome.
type AuditAnnotationTrace struct {
	Key string
	// Value is the value published, cut to 10,240 bytes (Truncated says
	// so); empty when excluded (null, an empty string, or an error).
	Value     string
	Truncated bool
	// Err is the valueExpression's error, with kube-apiserver's text: an
	// evaluation error, or a value neither string nor null. Denied tells
	// whether it denies the request: an evaluation error denies under any
	// failure policy but Ignore, where kube-apiserver leaves the annotation
	// out; a value of another type always denies.
	Err    string
	Denied bool
}

// record fills the trace of one invocation from its outcome.
func (it *InvocationTrace) record(r *validateResult, validations int) {
	it.Skipped, it.FailedCondition = r.skipped, r.failedCondition
	for _, c := range r.conditions {
		mt := MatchConditionTrace{Name: c.Name, Value: c.Value}
		if c.Err != nil {
			mt.Err = c.Err.Error()
		}
		it.MatchConditions = append(it.MatchConditions, mt)
	}

	if len(r.decisions) == 1 && r.decisions[0].index < 0 {
		it.Err, it.Denied = r.decisions[0].message, r.decisions[0].deny
		return
	}
	for _, d := range r.decisions {
		vt := ValidationTrace{Index: d.index, Passed: !d.deny && !d.evalError, Error: d.evalError, Denied: d.deny, Reason: d.reason}
		if !vt.Passed {
			vt.Message = d.message
		}
		it.Validations = append(it.Validations, vt)
	}
	for _, a := range r.annotations {
		at := AuditAnnotationTrace{Key: a.key, Err: a.err}
		switch a.action {
		case annotationPublish:
			at.Value = a.value
			if len(at.Value) > maxAnnotationValue {
				at.Value, at.Truncated = at.Value[:maxAnnotationValue], true
			}
		case annotationError:
			at.Denied = true
		}
		it.AuditAnnotations = append(it.AuditAnnotations, at)
	}
}

// String renders the trace, one line per decision, for people.
func (t *Trace) String() string {
	var b strings.Builder
	for i := range t.Policies {
		p := &t.Policies[i]
		switch {
		case p.Err != nil:
			fmt.Fprintf(&b, "policy %s: error: %v\n", p.Policy, p.Err)
			continue
		case !p.Matched:
			fmt.Fprintf(&b, "policy %s: not matched (%s)\n", p.Policy, p.Reason)
			continue
		}
		fmt.Fprintf(&b, "policy %s: matched %s\n", p.Policy, p.Resource)
		for j := range p.Bindings {
			p.Bindings[j].write(&b, p)
		}
		for _, d := range p.DroppedAuditAnnotations {
			fmt.Fprintf(&b, "  audit annotation %s dropped: %s\n", d.Key, d.Err)
		}
	}
	return b.String()
}

func (bt *BindingTrace) write(b *strings.Builder, p *PolicyTrace) {
	switch {
	case bt.Err != nil:
		fmt.Fprintf(b, "  binding %s: error: %v\n", bt.Binding, bt.Err)
		return
	case !bt.Matched:
		fmt.Fprintf(b, "  binding %s: not matched (%s)\n", bt.Binding, bt.Reason)
		return
	}
	if bt.Resource != p.Resource {
		fmt.Fprintf(b, "  binding %s: matched %s (%s), actions %v\n", bt.Binding, bt.Resource, bt.Kind, bt.Actions)
	} else {
		fmt.Fprintf(b, "  binding %s: matched, actions %v\n", bt.Binding, bt.Actions)
	}
	if bt.NamespaceErr != nil {
		fmt.Fprintf(b, "    namespace lookup failed (fails the request): %v\n", bt.NamespaceErr)
	}
	for k := range bt.Invocations {
		it := &bt.Invocations[k]
		indent := "    "
		if it.ParamName != "" {
			fmt.Fprintf(b, "    param %s/%s\n", it.ParamNamespace, it.ParamName)
			indent = "      "
		}
		it.write(b, indent)
	}
}

func (it *InvocationTrace) write(b *strings.Builder, indent string) {
	for _, c := range it.MatchConditions {
		if c.Err != "" {
			fmt.Fprintf(b, "%smatch condition %s: error: %s\n", indent, c.Name, c.Err)
		} else {
			fmt.Fprintf(b, "%smatch condition %s: %t\n", indent, c.Name, c.Value)
		}
	}
	switch {
	case it.Skipped && it.FailedCondition != "":
		fmt.Fprintf(b, "%sskipped: match condition %q is false\n", indent, it.FailedCondition)
		return
	case it.Skipped:
		fmt.Fprintf(b, "%sskipped: match conditions failed under failurePolicy Ignore\n", indent)
		return
	case it.Err != "":
		fmt.Fprintf(b, "%serror (denies: %t): %s\n", indent, it.Denied, it.Err)
		return
	}
	for _, v := range it.Validations {
		switch {
		case v.Passed:
			fmt.Fprintf(b, "%svalidation %d: passed\n", indent, v.Index)
		case v.Error:
			fmt.Fprintf(b, "%svalidation %d: error (denies: %t): %s\n", indent, v.Index, v.Denied, v.Message)
		default:
			fmt.Fprintf(b, "%svalidation %d: failed (%s): %s\n", indent, v.Index, v.Reason, v.Message)
		}
	}
	for _, a := range it.AuditAnnotations {
		switch {
		case a.Err != "":
			fmt.Fprintf(b, "%saudit annotation %s: error (denies: %t): %s\n", indent, a.Key, a.Denied, a.Err)
		case a.Truncated:
			fmt.Fprintf(b, "%saudit annotation %s: %q (cut to %d bytes)\n", indent, a.Key, a.Value, maxAnnotationValue)
		case a.Value != "":
			fmt.Fprintf(b, "%saudit annotation %s: %q\n", indent, a.Key, a.Value)
		default:
			fmt.Fprintf(b, "%saudit annotation %s: excluded\n", indent, a.Key)
		}
	}
}
