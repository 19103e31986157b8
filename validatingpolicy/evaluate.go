package validatingpolicy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// maxMessageBytes is the longest messageExpression result kube-apiserver
// uses as a message (celconfig.MaxEvaluatedMessageExpressionSizeBytes).
const maxMessageBytes = 5 * 1024

// evalInput is what one invocation's expressions see.
type evalInput struct {
	// request is `request`, with the matched kind and resource.
	request *admissionv1.AdmissionRequest
	// object and oldObject are unstructured content in the matched version
	// (nil is null); typedView presents them as kube-apiserver's
	// schemaless view of a built-in kind's Go object.
	object, oldObject map[string]any
	typedView         bool
	// params is `params`, unstructured; nil is null.
	params map[string]any
	// namespace is the request's namespace, nil for cluster-scoped and
	// Namespace requests: validations see it reduced, audit annotations
	// whole.
	namespace *corev1.Namespace
	// authorizer backs `authorizer`; nil leaves it undefined.
	authorizer matchcond.Authorizer
	// clock times decisions for the metrics; nil does not.
	clock clock.PassiveClock
	// explain asks for each match condition's outcome.
	explain bool
	// requestVal is request's CEL value, built on first use and shared by
	// the invocation's lists of expressions (it is read, never changed).
	requestVal ref.Val
}

// decision is one validation's outcome (kube-apiserver's PolicyDecision).
type decision struct {
	deny bool
	// evalError is set when the decision comes from an error rather than
	// from the expression's value.
	evalError bool
	message   string
	reason    metav1.StatusReason
	elapsed   time.Duration
	// index is the validation's index; -1 for a decision that stands for
	// the whole invocation (compile, match condition or budget error).
	index int
}

// annotationAction is what becomes of one audit annotation.
type annotationAction uint8

const (
	annotationPublish annotationAction = iota
	annotationError
	annotationExclude
)

// annotationResult is one audit annotation's outcome.
type annotationResult struct {
	key, value string
	action     annotationAction
	err        string
	elapsed    time.Duration
}

// validateResult is one invocation's outcome (kube-apiserver's
// ValidateResult), with what a trace needs.
type validateResult struct {
	decisions   []decision
	annotations []annotationResult
	// skipped is set when a false match condition excluded the
	// invocation; failedCondition names it.
	skipped         bool
	failedCondition string
	// conditions are the match conditions' outcomes, when explained.
	conditions []matchcond.AdmissionConditionResult
}

// errorDecision is the decision of an error under the failure policy:
// Ignore admits, anything else denies.
func errorDecision(fp admissionregistrationv1.FailurePolicyType, message string, index int) decision {
	return decision{deny: fp != admissionregistrationv1.Ignore, evalError: true, message: message, index: index}
}

// failurePolicy is the policy's failure policy, Fail when unset.
func (p *Policy) failurePolicy() admissionregistrationv1.FailurePolicyType {
	if fp := p.policy.Spec.FailurePolicy; fp != nil {
		return *fp
	}
	return admissionregistrationv1.Fail
}

// validate evaluates the policy for one invocation as kube-apiserver's
// validator does: match conditions, validations, their messageExpressions,
// audit annotations.
func (p *Policy) validate(ctx context.Context, in *evalInput) validateResult {
	fp := admissionregistrationv1.Fail
	if p.policy != nil {
		fp = p.failurePolicy()
	}
	if p.envErr != nil {
		return validateResult{decisions: []decision{errorDecision(fp, p.envErr.Error(), -1)}}
	}
	var conditions []matchcond.AdmissionConditionResult
	if p.conditions != nil {
		attrs := &matchcond.AdmissionAttributes{
			Object:     objectOf(in.object),
			OldObject:  objectOf(in.oldObject),
			Request:    in.request,
			Params:     objectOf(in.params),
			Authorizer: in.authorizer,
		}
		var mc matchcond.AdmissionMatchResult
		if in.explain {
			mc, conditions = p.conditions.Explain(ctx, attrs)
		} else {
			mc = p.conditions.Match(ctx, attrs)
		}
		if mc.Error != nil {
			return validateResult{decisions: []decision{errorDecision(fp, mc.Error.Error(), -1)}, conditions: conditions}
		}
		if !mc.Matches {
			return validateResult{skipped: true, failedCondition: mc.FailedConditionName, conditions: conditions}
		}
	}

	var namespace ref.Val = types.NullValue
	if in.namespace != nil {
		namespace = admissioncel.TypedToVal(reducedNamespace(in.namespace))
	}
	act := p.activation(ctx, in, namespace, in.authorizer)
	results := make([]evaluation, len(p.validations))
	remaining := int64(icel.RuntimeCELCostBudget)
	for i := range p.validations {
		var err error
		results[i], remaining, err = evaluate(act, &p.validations[i].expression, remaining, in.clock)
		if err != nil {
			return validateResult{decisions: []decision{errorDecision(fp, err.Error(), -1)}, conditions: conditions}
		}
	}

	// messageExpressions: all of them, on what the validations left of the
	// budget, without authorizer.
	var messages []evaluation
	var messagesErr error
	if p.hasMessageExpressions() {
		mact := p.activation(ctx, in, namespace, nil)
		messages = make([]evaluation, len(p.validations))
		for i := range p.validations {
			me := p.validations[i].messageExpression
			if me == nil {
				continue
			}
			if messages[i], remaining, messagesErr = evaluate(mact, me, remaining, nil); messagesErr != nil {
				messages = nil
				break
			}
		}
	}

	out := validateResult{decisions: make([]decision, len(p.validations)), conditions: conditions}
	for i := range p.validations {
		v, r, d := &p.validations[i], &results[i], &out.decisions[i]
		d.index, d.elapsed = i, r.elapsed
		switch {
		case r.err != nil:
			*d = errorDecision(fp, r.err.Error(), i)
			d.elapsed = r.elapsed
		case messagesErr != nil:
			*d = errorDecision(fp, fmt.Sprintf("failed messageExpression: %s", messagesErr), i)
			d.elapsed = r.elapsed
		case r.val != types.True:
			d.deny = true
			d.reason = metav1.StatusReasonInvalid
			if v.reason != nil {
				d.reason = metav1.StatusReason(*v.reason)
			}
			var message string
			if messages != nil && messages[i].err == nil && messages[i].val != nil {
				if s, ok := messages[i].val.Value().(string); ok {
					message = strings.TrimSpace(s)
					if len(message) > maxMessageBytes || strings.Contains(message, "\n") {
						message = ""
					}
				}
			}
			if message == "" && v.message != "" {
				message = strings.TrimSpace(v.message)
			}
			if message == "" {
				message = fmt.Sprintf("failed expression: %v", strings.TrimSpace(v.text))
			}
			d.message = message
		}
	}

	// Audit annotations: a fresh budget, the whole namespace, no
	// authorizer.
	if len(p.auditAnnotations) == 0 {
		return out
	}
	if in.namespace != nil {
		namespace = admissioncel.TypedToVal(in.namespace)
	}
	aact := p.activation(ctx, in, namespace, nil)
	remaining = icel.RuntimeCELCostBudget
	out.annotations = make([]annotationResult, len(p.auditAnnotations))
	for i := range p.auditAnnotations {
		a := &p.auditAnnotations[i]
		r, rest, err := evaluate(aact, &a.expression, remaining, in.clock)
		if err != nil {
			return validateResult{decisions: []decision{errorDecision(fp, err.Error(), -1)}, conditions: conditions}
		}
		remaining = rest
		ar := &out.annotations[i]
		ar.key, ar.elapsed = a.key, r.elapsed
		if r.err != nil {
			ar.action, ar.err = annotationError, r.err.Error()
			if fp == admissionregistrationv1.Ignore {
				ar.action = annotationExclude
			}
			continue
		}
		switch r.val.Type() {
		case types.StringType:
			if s := strings.TrimSpace(r.val.Value().(string)); s != "" {
				ar.action, ar.value = annotationPublish, s
			} else {
				ar.action = annotationExclude
			}
		case types.NullType:
			ar.action = annotationExclude
		default:
			ar.action = annotationError
			ar.err = fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.", a.text, r.val.Type())
		}
	}
	return out
}

func (p *Policy) hasMessageExpressions() bool {
	for i := range p.validations {
		if p.validations[i].messageExpression != nil {
			return true
		}
	}
	return false
}

// activation is a fresh activation, with fresh lazy variables, as
// kube-apiserver builds one for each list of expressions.
func (p *Policy) activation(ctx context.Context, in *evalInput, namespace ref.Val, authz matchcond.Authorizer) *admissioncel.Activation {
	a := &admissioncel.Activation{
		Ctx:          ctx,
		Object:       admissioncel.AdmittedVal(in.object, in.typedView),
		OldObject:    admissioncel.AdmittedVal(in.oldObject, in.typedView),
		Request:      in.requestValue(),
		Namespace:    namespace,
		Authorizer:   authz,
		AuthzRequest: in.request,
	}
	if in.params != nil {
		a.Params = admissioncel.TypedToVal(&unstructured.Unstructured{Object: in.params})
	}
	p.variables.Bind(a)
	return a
}

func (in *evalInput) requestValue() ref.Val {
	if in.requestVal == nil {
		in.requestVal = admissioncel.TypedToVal(in.request)
	}
	return in.requestVal
}

// evaluation is one expression's outcome: its value, or the error that
// stands for it.
type evaluation struct {
	val     ref.Val
	err     error
	elapsed time.Duration
}

// evaluate evaluates one expression with what is left of the budget, as
// kube-apiserver's activation does; the error is one that ends the whole
// list (the budget ran out).
func evaluate(act *admissioncel.Activation, e *expression, budget int64, clk clock.PassiveClock) (evaluation, int64, error) {
	if e.err != nil {
		return evaluation{err: fmt.Errorf("compilation error: %v", e.err)}, budget, nil
	}
	var start time.Time
	if clk != nil {
		start = clk.Now()
	}
	val, rest, err := act.Evaluate(e.program, e.text, budget)
	var elapsed time.Duration
	if clk != nil {
		elapsed = clk.Since(start)
	}
	if errors.Is(err, admissioncel.ErrOutOfBudget) {
		return evaluation{}, -1, err
	}
	return evaluation{val: val, err: err, elapsed: elapsed}, rest, nil
}

// reducedNamespace is the namespace as kube-apiserver's validations see it
// (CreateNamespaceObject): metadata without managedFields, ownerReferences
// and self link, spec and status.
func reducedNamespace(ns *corev1.Namespace) *corev1.Namespace {
	return &corev1.Namespace{
		Status: ns.Status,
		Spec:   ns.Spec,
		ObjectMeta: metav1.ObjectMeta{
			Name:                       ns.Name,
			GenerateName:               ns.GenerateName,
			Namespace:                  ns.Namespace,
			UID:                        ns.UID,
			ResourceVersion:            ns.ResourceVersion,
			Generation:                 ns.Generation,
			CreationTimestamp:          ns.CreationTimestamp,
			DeletionTimestamp:          ns.DeletionTimestamp,
			DeletionGracePeriodSeconds: ns.DeletionGracePeriodSeconds,
			Labels:                     ns.Labels,
			Annotations:                ns.Annotations,
			Finalizers:                 ns.Finalizers,
		},
	}
}

// objectOf is the runtime object of unstructured content, nil for nil.
func objectOf(o map[string]any) runtime.Object {
	if o == nil {
		return nil
	}
	return &unstructured.Unstructured{Object: o}
}
