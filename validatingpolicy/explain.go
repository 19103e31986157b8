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
}

// BindingTrace is one binding's part of a Trace.
type BindingTrace struct {
	Binding string
	// Matched is true when the binding's matchResources select the
	// request; Reason says why not otherwise (as in PolicyTrace).
	Matched bool
	Reason  string
	// Err is the binding's configuration error (its params, its match, the
	// conversion of the request's objects).
	Err error
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
	// Skipped is true when a false match condition, FailedCondition,
	// excluded the invocation.
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
	// Value is the published value; empty when excluded (null, an empty
	// string, or an error under failurePolicy Ignore).
	Value string
	// Err is the valueExpression's error (which denies the request under
	// failurePolicy Fail).
	Err string
}

// record fills the trace of one invocation from its outcome.
func (it *InvocationTrace) record(r *validateResult, validations int) {
	it.Skipped, it.FailedCondition = r.skipped, r.failedCondition
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
		at := AuditAnnotationTrace{Key: a.key}
		switch a.action {
		case annotationPublish:
			at.Value = a.value
		case annotationError:
			at.Err = a.err
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
			bt := &p.Bindings[j]
			switch {
			case bt.Err != nil:
				fmt.Fprintf(&b, "  binding %s: error: %v\n", bt.Binding, bt.Err)
				continue
			case !bt.Matched:
				fmt.Fprintf(&b, "  binding %s: not matched (%s)\n", bt.Binding, bt.Reason)
				continue
			}
			fmt.Fprintf(&b, "  binding %s: matched, actions %v\n", bt.Binding, bt.Actions)
			for k := range bt.Invocations {
				it := &bt.Invocations[k]
				indent := "    "
				if it.ParamName != "" {
					fmt.Fprintf(&b, "    param %s/%s\n", it.ParamNamespace, it.ParamName)
					indent = "      "
				}
				switch {
				case it.Skipped:
					fmt.Fprintf(&b, "%sskipped: match condition %q is false\n", indent, it.FailedCondition)
					continue
				case it.Err != "":
					fmt.Fprintf(&b, "%serror (denies: %t): %s\n", indent, it.Denied, it.Err)
					continue
				}
				for _, v := range it.Validations {
					switch {
					case v.Passed:
						fmt.Fprintf(&b, "%svalidation %d: passed\n", indent, v.Index)
					case v.Error:
						fmt.Fprintf(&b, "%svalidation %d: error (denies: %t): %s\n", indent, v.Index, v.Denied, v.Message)
					default:
						fmt.Fprintf(&b, "%svalidation %d: failed (%s): %s\n", indent, v.Index, v.Reason, v.Message)
					}
				}
				for _, a := range it.AuditAnnotations {
					switch {
					case a.Err != "":
						fmt.Fprintf(&b, "%saudit annotation %s: error: %s\n", indent, a.Key, a.Err)
					case a.Value != "":
						fmt.Fprintf(&b, "%saudit annotation %s: %q\n", indent, a.Key, a.Value)
					default:
						fmt.Fprintf(&b, "%saudit annotation %s: excluded\n", indent, a.Key)
					}
				}
			}
		}
	}
	return b.String()
}
