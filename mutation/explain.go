package mutation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/typednormal"
)

// Trace tells what Explain's admission did with a request: for each policy,
// in the dispatcher's order, whether it matched or why not, and for each of
// its bindings and params the match conditions and every mutation.
type Trace struct {
	// Reinvocation is true for the reinvocation pass.
	Reinvocation bool
	// Disabled says why the plugin did not run at all (its feature gate is
	// off in the Kubernetes the dispatcher answers as); empty when it ran.
	Disabled string
	// Policies are the policies that have bindings, in order.
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
	// object", "operation" (not CREATE, UPDATE or CONNECT), or "error".
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
	// Err is the binding's configuration error (its params, its match).
	Err error
	// Invocations are the binding's invocations: one per param, in order
	// (one without param when the policy has no paramKind or the binding no
	// paramRef).
	Invocations []InvocationTrace
}

// InvocationTrace is one (policy, binding, param) invocation.
type InvocationTrace struct {
	// ParamNamespace and ParamName name the param; both empty without one.
	ParamNamespace, ParamName string
	// Ran tells whether the mutations ran; Skipped says why not:
	// "matchConditions" (FailedCondition is the false one, or Err the
	// conditions' error), "not reinvoked" (the reinvocation pass runs only
	// invocations eligible for it), or "aborted" (an earlier invocation
	// failed the request with a status error).
	Ran             bool
	Skipped         string
	FailedCondition string
	Err             error
	// Mutations are the outcomes of the policy's mutations, in order.
	Mutations []MutationTrace
}

// MutationTrace is one mutation's outcome.
type MutationTrace struct {
	Index int
	// Err is the mutation's error; nil when it applied.
	Err error
	// Changed lists the fields the mutation changed, as paths
	// (".metadata.labels.app", ".spec.containers[1]"), sorted; empty when
	// it applied and changed nothing.
	Changed []string
	// Idempotent is false when applying the mutation again to its own
	// output changes the object again (a check kube-apiserver does not
	// make; KEP-3962 asks mutations to be idempotent). A mutation whose
	// policy's match conditions exclude its output (a guard such as "no
	// sidecar yet") is idempotent. It is only computed for mutations that
	// applied without error; IdempotenceErr is the error of the second
	// application, if it failed.
	Idempotent     bool
	IdempotenceErr error
}

// String renders the trace, one line per decision, for people.
func (t *Trace) String() string {
	var b strings.Builder
	if t.Reinvocation {
		b.WriteString("reinvocation pass\n")
	}
	if t.Disabled != "" {
		b.WriteString(t.Disabled + "\n")
	}
	for i := range t.Policies {
		p := &t.Policies[i]
		switch {
		case p.Err != nil:
			fmt.Fprintf(&b, "policy %s: error: %v\n", p.Policy, p.Err)
		case !p.Matched:
			fmt.Fprintf(&b, "policy %s: not matched (%s)\n", p.Policy, p.Reason)
			continue
		default:
			fmt.Fprintf(&b, "policy %s: matched %s\n", p.Policy, p.Resource)
		}
		for j := range p.Bindings {
			bt := &p.Bindings[j]
			switch {
			case bt.Err != nil:
				fmt.Fprintf(&b, "  binding %s: error: %v\n", bt.Binding, bt.Err)
			case !bt.Matched:
				fmt.Fprintf(&b, "  binding %s: not matched (%s)\n", bt.Binding, bt.Reason)
			default:
				fmt.Fprintf(&b, "  binding %s: matched\n", bt.Binding)
			}
			for k := range bt.Invocations {
				inv := &bt.Invocations[k]
				prefix := "  "
				if inv.ParamName != "" {
					fmt.Fprintf(&b, "    param %s\n", strings.TrimPrefix(inv.ParamNamespace+"/"+inv.ParamName, "/"))
					prefix = "    "
				}
				switch {
				case inv.Ran:
				case inv.Err != nil:
					fmt.Fprintf(&b, "%s  skipped (%s): %v\n", prefix, inv.Skipped, inv.Err)
					continue
				case inv.FailedCondition != "":
					fmt.Fprintf(&b, "%s  skipped (%s): %s is false\n", prefix, inv.Skipped, inv.FailedCondition)
					continue
				default:
					fmt.Fprintf(&b, "%s  skipped (%s)\n", prefix, inv.Skipped)
					continue
				}
				for _, m := range inv.Mutations {
					switch {
					case m.Err != nil:
						fmt.Fprintf(&b, "%s  mutation %d: error: %v\n", prefix, m.Index, m.Err)
					case len(m.Changed) == 0:
						fmt.Fprintf(&b, "%s  mutation %d: no change\n", prefix, m.Index)
					default:
						fmt.Fprintf(&b, "%s  mutation %d: changed %s\n", prefix, m.Index, strings.Join(m.Changed, ", "))
					}
					if m.Err == nil && !m.Idempotent {
						if m.IdempotenceErr != nil {
							fmt.Fprintf(&b, "%s    not idempotent: applied again: %v\n", prefix, m.IdempotenceErr)
						} else {
							fmt.Fprintf(&b, "%s    not idempotent: applied again, it changes the object again\n", prefix)
						}
					}
				}
			}
		}
	}
	return b.String()
}

// deepCopyJSON copies an unstructured value; values of other types are
// shared (they are never modified).
func deepCopyJSON(v any) any { return typednormal.DeepCopy(v) }
