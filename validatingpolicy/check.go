package validatingpolicy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/internal/policycheck"
)

// Finding is a failure at admission time found by [Check] before any
// request: its severity, the policy's or binding's kind and name, the
// field, a message and a suggested fix. It is the same type for both
// admission policy engines.
type Finding = policycheck.Finding

// Severity is a finding's: [SeverityError] (kube-apiserver fails every
// request the finding is about, whatever the object) or [SeverityWarning]
// (it can fail, depending on the object; or the policy does nothing).
type Severity = policycheck.Severity

const (
	SeverityError   = policycheck.Error
	SeverityWarning = policycheck.Warning
)

// CheckOptions are the CRDs and params a check reads besides the policies.
type CheckOptions = policycheck.Options

// Checker checks policies and bindings against the kinds and params it
// was prepared with (see "Checking policies" in the package
// documentation). It is safe for concurrent use; prepare one and check
// many policies with it, as the schemas of the kinds are built once.
type Checker struct {
	kinds    *policycheck.Kinds
	params   []policycheck.Param
	celGo026 bool
}

// NewChecker prepares a Checker. The error reports CRDs that cannot be
// read; the Checker works without them.
func NewChecker(o CheckOptions) (*Checker, error) {
	kinds, params, err := o.Prepare()
	return &Checker{kinds: kinds, params: params, celGo026: !kubeversions.Has(o.Kube, kubeversions.CELGo029)}, err
}

// Check finds, before any request, the failures of policies and bindings
// (decoded and defaulted, as Decode returns them) that kube-apiserver 1.37
// meets only at admission time; see "Checking policies" in the package
// documentation. The error reports CRDs that cannot be read; the findings
// are made without them. A [Checker] checks many policies faster.
func Check(objs *Objects, o CheckOptions) ([]Finding, error) {
	c, err := NewChecker(o)
	return c.Check(objs), err
}

// Check returns the findings on objs: a policy's findings index its
// policy in objs.Policies, a binding's its binding in objs.Bindings.
func (c *Checker) Check(objs *Objects) []Finding {
	if objs == nil {
		return nil
	}
	g := &policycheck.Gathered{Input: policycheck.Input{Kinds: c.kinds, Params: c.params, CELGo026: c.celGo026}}
	for i, p := range objs.Policies {
		if p != nil {
			g.AddPolicy(i, checkedPolicy(p))
		}
	}
	for i, b := range objs.Bindings {
		if b != nil {
			g.AddBinding(i, kindBinding, b.Name, b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources)
		}
	}
	findings := policycheck.Check(&g.Input)
	g.Restore(findings, kindPolicy)
	return findings
}

// checkedPolicy is what the checks read of a policy.
func checkedPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) policycheck.Policy {
	out := policycheck.Policy{
		Kind: kindPolicy, Name: p.Name, MatchConstraints: p.Spec.MatchConstraints, ParamKind: p.Spec.ParamKind,
		FailurePolicyIgnore: p.Spec.FailurePolicy != nil && *p.Spec.FailurePolicy == admissionregistrationv1.Ignore,
	}
	out.AddConditionsAndVariables(p.Spec.MatchConditions, p.Spec.Variables)
	spec := field.NewPath("spec")
	for i, v := range p.Spec.Validations {
		out.AddExpression(policycheck.Validation, spec.Child("validations").Index(i).Child("expression"), v.Expression, "")
		out.AddExpression(policycheck.MessageExpression, spec.Child("validations").Index(i).Child("messageExpression"), v.MessageExpression, "")
	}
	for i, a := range p.Spec.AuditAnnotations {
		out.AddExpression(policycheck.AuditAnnotation, spec.Child("auditAnnotations").Index(i).Child("valueExpression"), a.ValueExpression, "")
	}
	return out
}
