package policycheck

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkBindings reports policies without a binding (kube-apiserver applies
// none), bindings of a policy not given, and policies with a paramKind
// whose bindings find no param among those given. All are warnings: the
// cluster may hold what the files do not.
func checkBindings(in *Input) []Finding {
	var out []Finding
	policies := map[string]*Policy{}
	for i := range in.Policies {
		policies[in.Policies[i].Name] = &in.Policies[i]
	}
	bound := map[string]bool{}
	for i, b := range in.Bindings {
		bound[b.PolicyName] = true
		p, ok := policies[b.PolicyName]
		if !ok {
			msg := fmt.Sprintf("no %s %q is given: the binding applies nothing unless the cluster has it", policyKindOf(b.Kind), b.PolicyName)
			fix := ""
			names := make([]string, 0, len(policies))
			for n := range policies {
				names = append(names, n)
			}
			if n, ok := nearest(b.PolicyName, names); ok {
				fix = fmt.Sprintf("did you mean %q?", n)
			}
			out = append(out, Finding{Severity: Warning, Rule: RuleMissingPolicy, Kind: b.Kind, Name: b.Name, Index: i, Field: "spec.policyName", Message: msg, Fix: fix})
			continue
		}
		if in.Params != nil {
			out = append(out, withIndex(i, checkParams(p, b, in.Params))...)
		}
	}
	for i, p := range in.Policies {
		if f, ok := checkParamKind(&p, in.Kinds); ok {
			f.Index = i
			out = append(out, f)
		}
		if !bound[p.Name] {
			out = append(out, Finding{Severity: Warning, Rule: RuleUnboundPolicy, Kind: p.Kind, Name: p.Name, Index: i, Field: "metadata.name",
				Message: fmt.Sprintf("no %sBinding binds the policy: kube-apiserver never applies it", p.Kind),
				Fix:     fmt.Sprintf("add a %sBinding with policyName %q", p.Kind, p.Name)})
		}
	}
	return out
}

func policyKindOf(bindingKind string) string {
	if len(bindingKind) > len("Binding") {
		return bindingKind[:len(bindingKind)-len("Binding")]
	}
	return bindingKind
}

// checkParams reports a binding of a policy with a paramKind whose paramRef
// finds no object among those given (or that has no paramRef).
func checkParams(p *Policy, b Binding, params []Param) []Finding {
	if p.ParamKind == nil {
		return nil
	}
	path := field.NewPath("spec", "paramRef")
	if b.ParamRef == nil {
		return []Finding{{Severity: Warning, Rule: RuleMissingParams, Kind: b.Kind, Name: b.Name, Field: path.String(),
			Message: fmt.Sprintf("policy %q has paramKind %s %s but the binding has no paramRef: params is null in every expression", p.Name, p.ParamKind.APIVersion, p.ParamKind.Kind),
			Fix:     "add a paramRef naming the params object"}}
	}
	gv, err := schema.ParseGroupVersion(p.ParamKind.APIVersion)
	if err != nil {
		return nil
	}
	ofKind := filter(params, func(o Param) bool {
		ogv, err := schema.ParseGroupVersion(o.APIVersion)
		return err == nil && ogv.Group == gv.Group && o.Kind == p.ParamKind.Kind
	})
	found := slices.ContainsFunc(ofKind, func(o Param) bool {
		if b.ParamRef.Namespace != "" && o.Namespace != b.ParamRef.Namespace {
			return false
		}
		// A selector may select any object of the kind: its labels are
		// not read here.
		return b.ParamRef.Name == "" || b.ParamRef.Name == o.Name
	})
	if found {
		return nil
	}
	what := fmt.Sprintf("%s %s", p.ParamKind.APIVersion, p.ParamKind.Kind)
	if b.ParamRef.Name != "" {
		what += fmt.Sprintf(" named %q", b.ParamRef.Name)
	}
	if b.ParamRef.Namespace != "" {
		what += fmt.Sprintf(" in namespace %q", b.ParamRef.Namespace)
	}
	action := "Deny: kube-apiserver denies every matching request"
	if a := b.ParamRef.ParameterNotFoundAction; a != nil && *a == "Allow" {
		action = "Allow: the policy does nothing"
	}
	return []Finding{{Severity: Warning, Rule: RuleMissingParams, Kind: b.Kind, Name: b.Name, Field: path.String(),
		Message: fmt.Sprintf("no params object %s is given; without one in the cluster, parameterNotFoundAction is %s", what, action),
		Fix:     "give the params object with the policies, or create it before the binding"}}
}

// checkParamKind reports a paramKind that no built-in kind nor CRD given
// is: kube-apiserver then fails every request the policy matches ("failed
// to find resource referenced by paramKind"), unless the cluster serves it.
func checkParamKind(p *Policy, kinds *Kinds) (Finding, bool) {
	pk := p.ParamKind
	if pk == nil {
		return Finding{}, false
	}
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return Finding{}, false
	}
	gvk := gv.WithKind(pk.Kind)
	for _, s := range kinds.Served() {
		if s.Subresource == "" && s.KindGroup == gvk.Group && s.KindVersion == gvk.Version && s.Kind == gvk.Kind {
			return Finding{}, false
		}
	}
	return Finding{Severity: Warning, Rule: RuleUnknownParamKind, Kind: p.Kind, Name: p.Name, Field: "spec.paramKind",
		Message: fmt.Sprintf("paramKind %s is not a kind Kubernetes %s serves nor one of a CRD given: without it in the cluster, kube-apiserver fails every request the policy matches (failed to find resource referenced by paramKind)", gvk, kinds.Version()),
		Fix:     "give the params' CRD (--crds), or correct apiVersion and kind"}, true
}
