package admissionpolicy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Hook is a policy with its bindings, as kube-apiserver's policy source
// joins them.
type Hook[P, B any] struct {
	Policy *P
	// ParamKind is the policy's paramKind, parsed; nil without one.
	ParamKind *schema.GroupVersionKind
	Bindings  []*B
}

// Join joins policies and bindings of one source as kube-apiserver's policy
// source does, in the policies' order: nil objects are skipped, the first
// policy of a name wins, a policy whose paramKind.apiVersion does not parse
// is left out, a binding of a policy that does not exist is skipped, and a
// policy without bindings is no hook.
func Join[P, B any](policies []*P, bindings []*B, name func(*P) string, paramKind func(*P) *admissionregistrationv1.ParamKind, policyName func(*B) string) []Hook[P, B] {
	byName := map[string]int{}
	var hooks []Hook[P, B]
	for _, p := range policies {
		if p == nil {
			continue
		}
		if _, dup := byName[name(p)]; dup {
			continue
		}
		h := Hook[P, B]{Policy: p}
		if pk := paramKind(p); pk != nil {
			gvk, ok := ParamKindOf(pk)
			if !ok {
				continue
			}
			h.ParamKind = &gvk
		}
		byName[name(p)] = len(hooks)
		hooks = append(hooks, h)
	}
	for _, b := range bindings {
		if b == nil {
			continue
		}
		if i, ok := byName[policyName(b)]; ok {
			hooks[i].Bindings = append(hooks[i].Bindings, b)
		}
	}
	out := hooks[:0]
	for _, h := range hooks {
		if len(h.Bindings) > 0 {
			out = append(out, h)
		}
	}
	return out
}
