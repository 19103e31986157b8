package mutation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// fakePolicy stands for a compiled policy in the dispatcher's tests: its
// expressions are a tiny language of the tests' own.
//
// Mutations (applyConfiguration expressions):
//   - "label:k=v": set label k to v;
//   - "param:k": set label k to params.data.value (or "null");
//   - "count:k": increment annotation k (not idempotent);
//   - "fail:msg": fail with the error msg;
//   - "status:503": fail with a 503 status;
//   - "ns:k": set label k to the namespace object's name (or "null");
//   - "req:k": set label k to request.kind/request.resource.
//
// Match conditions: "true", "false", "error".
type fakePolicy struct {
	p         *admissionregistrationv1.MutatingAdmissionPolicy
	mutations int
}

func compileFake(p *admissionregistrationv1.MutatingAdmissionPolicy) evaluator {
	return &fakePolicy{p: p, mutations: len(p.Spec.Mutations)}
}

func (f *fakePolicy) mutationCount() int { return f.mutations }

func (f *fakePolicy) matchConditions(_ context.Context, in *evalInput) matchcond.AdmissionMatchResult {
	if in.namespace != nil {
		return matchcond.AdmissionMatchResult{Error: errors.New("namespaceObject must be null in match conditions")}
	}
	var errs []string
	for _, c := range f.p.Spec.MatchConditions {
		switch c.Expression {
		case "false":
			return matchcond.AdmissionMatchResult{FailedConditionName: c.Name}
		case "error":
			errs = append(errs, "condition "+c.Name+" failed")
		}
	}
	if len(errs) > 0 {
		if fp := f.p.Spec.FailurePolicy; fp != nil && *fp == admissionregistrationv1.Ignore {
			return matchcond.AdmissionMatchResult{}
		}
		return matchcond.AdmissionMatchResult{Error: errors.New(strings.Join(errs, ", "))}
	}
	return matchcond.AdmissionMatchResult{Matches: true}
}

func (f *fakePolicy) evaluateMutation(_ context.Context, i int, in *evalInput) (patch, error) {
	expr := f.p.Spec.Mutations[i].ApplyConfiguration.Expression
	op, arg, _ := strings.Cut(expr, ":")
	labels := func(k, v string) patch {
		return patch{applyConfiguration: map[string]any{"metadata": map[string]any{"labels": map[string]any{k: v}}}}
	}
	switch op {
	case "label":
		k, v, _ := strings.Cut(arg, "=")
		return labels(k, v), nil
	case "param":
		v := "null"
		if in.params != nil {
			v = in.params["data"].(map[string]any)["value"].(string)
		}
		return labels(arg, v), nil
	case "ns":
		v := "null"
		if in.namespace != nil {
			v = in.namespace.Name
		}
		return labels(arg, v), nil
	case "req":
		return labels(arg, in.request.Kind.Version+"."+in.request.Resource.Resource), nil
	case "count":
		n := 0
		if a, ok := in.object["metadata"].(map[string]any)["annotations"].(map[string]any); ok {
			n, _ = strconv.Atoi(a[arg].(string))
		}
		return patch{applyConfiguration: map[string]any{"metadata": map[string]any{"annotations": map[string]any{arg: strconv.Itoa(n + 1)}}}}, nil
	case "fail":
		return patch{}, errors.New(arg)
	case "status":
		return patch{}, apierrors.NewServiceUnavailable("unavailable")
	}
	return patch{}, fmt.Errorf("unknown fake expression %q", expr)
}

// applyFake merges an applyConfiguration into a copy of the object.
func applyFake(p patch, object map[string]any, _ schema.GroupVersionKind, _ *Schemas) (map[string]any, error) {
	if p.jsonPatch != nil {
		return nil, errors.New("the fake applies no JSON patch")
	}
	out := deepCopyJSON(object).(map[string]any)
	mergeInto(out, p.applyConfiguration)
	return out, nil
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dm = map[string]any{}
				dst[k] = dm
			}
			mergeInto(dm, sm)
			continue
		}
		dst[k] = v
	}
}

// Builders of policies and bindings.

type policyOpt func(*admissionregistrationv1.MutatingAdmissionPolicy)

func newPolicy(name string, mutations []string, opts ...policyOpt) *admissionregistrationv1.MutatingAdmissionPolicy {
	fail := admissionregistrationv1.Fail
	equivalent := admissionregistrationv1.Equivalent
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{},
				ObjectSelector:    &metav1.LabelSelector{},
				MatchPolicy:       &equivalent,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					},
				}},
			},
			FailurePolicy:      &fail,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	for _, m := range mutations {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: m},
		})
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func ignore(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	i := admissionregistrationv1.Ignore
	p.Spec.FailurePolicy = &i
}

func ifNeeded(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	p.Spec.ReinvocationPolicy = admissionregistrationv1.IfNeededReinvocationPolicy
}

func withParamKind(apiVersion, kind string) policyOpt {
	return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: apiVersion, Kind: kind}
	}
}

func withConditions(exprs ...string) policyOpt {
	return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		for i, e := range exprs {
			p.Spec.MatchConditions = append(p.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: "c" + strconv.Itoa(i), Expression: e})
		}
	}
}

func withResources(resources ...string) policyOpt {
	return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ResourceRules[0].Resources = resources
	}
}

func withVersions(versions ...string) policyOpt {
	return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ResourceRules[0].APIVersions = versions
	}
}

func withNamespaceSelector(key, value string) policyOpt {
	return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		p.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}
	}
}

type bindingOpt func(*admissionregistrationv1.MutatingAdmissionPolicyBinding)

func newBinding(name, policy string, opts ...bindingOpt) *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: policy},
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

func paramName(name string, action admissionregistrationv1.ParameterNotFoundActionType) bindingOpt {
	return func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: name, ParameterNotFoundAction: &action}
	}
}

func paramSelector(action admissionregistrationv1.ParameterNotFoundActionType, labels map[string]string) bindingOpt {
	return func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: labels}, ParameterNotFoundAction: &action}
	}
}

func bindingObjectSelector(key, value string) bindingOpt {
	return func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{
			NamespaceSelector: &metav1.LabelSelector{},
			ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		}
	}
}
