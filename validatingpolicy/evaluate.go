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

	// The namespace's value is built when a cel-go expression needs it.
	namespace := &lazyNamespace{ns: in.namespace, reduced: true}
	results, messages, messagesErr, err := p.evaluateValidations(ctx, in, namespace, !in.explain)
	if errors.Is(err, errNativeBudget) {
		results, messages, messagesErr, err = p.evaluateValidations(ctx, in, namespace, false)
	}
	if err != nil {
		return validateResult{decisions: []decision{errorDecision(fp, err.Error(), -1)}, conditions: conditions}
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
	namespace = &lazyNamespace{ns: in.namespace}
	annotations, err := p.evaluateAnnotations(ctx, in, namespace, fp, !in.explain)
	if errors.Is(err, errNativeBudget) {
		annotations, err = p.evaluateAnnotations(ctx, in, namespace, fp, false)
	}
	if err != nil {
		return validateResult{decisions: []decision{errorDecision(fp, err.Error(), -1)}, conditions: conditions}
	}
	out.annotations = annotations
	return out
}

// evaluateValidations evaluates the validations, then every
// messageExpression on what they left of the budget, without authorizer.
// The error is one that ends the list (the budget ran out), or
// errNativeBudget when native expressions were used and their bounds do
// not prove that the budget suffices: the list must then be evaluated again
// without them.
func (p *Policy) evaluateValidations(ctx context.Context, in *evalInput, namespace *lazyNamespace, native bool) (results, messages []evaluation, messagesErr, err error) {
	ev := evaluator{p: p, ctx: ctx, in: in, namespace: namespace, authorizer: in.authorizer, budget: icel.RuntimeCELCostBudget, clock: in.clock, useNative: native}
	ev.native = p.nativeEnv(ctx, in)
	results = make([]evaluation, len(p.validations))
	for i := range p.validations {
		if results[i], err = ev.evaluate(&p.validations[i].expression); err != nil {
			return nil, nil, nil, err
		}
	}
	if !p.hasMessageExpressions() {
		return results, nil, nil, nil
	}
	ev.act, ev.authorizer = nil, nil
	ev.native.vars = p.nativeVariables.newState()
	ev.clock = nil
	messages = make([]evaluation, len(p.validations))
	for i := range p.validations {
		me := p.validations[i].messageExpression
		if me == nil {
			continue
		}
		if messages[i], messagesErr = ev.evaluate(me); messagesErr != nil {
			if errors.Is(messagesErr, errNativeBudget) {
				return nil, nil, nil, messagesErr
			}
			return results, nil, messagesErr, nil
		}
	}
	return results, messages, nil, nil
}

// evaluateAnnotations evaluates the audit annotations with a fresh budget
// and the whole namespace, without authorizer; the error is as
// evaluateValidations'.
func (p *Policy) evaluateAnnotations(ctx context.Context, in *evalInput, namespace *lazyNamespace, fp admissionregistrationv1.FailurePolicyType, native bool) ([]annotationResult, error) {
	ev := evaluator{p: p, ctx: ctx, in: in, namespace: namespace, budget: icel.RuntimeCELCostBudget, clock: in.clock, useNative: native}
	ev.native = p.nativeEnv(ctx, in)
	out := make([]annotationResult, len(p.auditAnnotations))
	for i := range p.auditAnnotations {
		a := &p.auditAnnotations[i]
		r, err := ev.evaluate(&a.expression)
		if err != nil {
			return nil, err
		}
		ar := &out[i]
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
	return out, nil
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

// nativeEnv is the environment of one list's native expressions, with
// fresh variables.
func (p *Policy) nativeEnv(ctx context.Context, in *evalInput) nativeEnv {
	env := nativeEnv{ctx: ctx, object: in.object, oldObject: in.oldObject, vars: p.nativeVariables.newState(), request: in.request}
	if in.params != nil {
		env.params = in.params
	}
	return env
}

// lazyNamespace is the namespace's CEL value, built on first use: reduced
// for validations and messageExpressions, whole for audit annotations.
type lazyNamespace struct {
	ns      *corev1.Namespace
	reduced bool
	val     ref.Val
}

func (n *lazyNamespace) value() ref.Val {
	if n.val == nil {
		switch {
		case n.ns == nil:
			n.val = types.NullValue
		case n.reduced:
			n.val = admissioncel.TypedToVal(reducedNamespace(n.ns))
		default:
			n.val = admissioncel.TypedToVal(n.ns)
		}
	}
	return n.val
}

// errNativeBudget reports that the native expressions of a list were
// charged their bounds and the bounds do not prove that the budget
// suffices: the list is evaluated again by cel-go alone.
var errNativeBudget = errors.New("native bounds over the budget")

// evaluator evaluates a list of expressions on one budget, as
// kube-apiserver's activation does.
type evaluator struct {
	// act is the activation of cel-go's expressions, built of p, ctx, in,
	// namespace and authorizer when one is first evaluated.
	act        *admissioncel.Activation
	p          *Policy
	ctx        context.Context
	in         *evalInput
	namespace  *lazyNamespace
	authorizer matchcond.Authorizer
	budget     int64
	clock      clock.PassiveClock
	// useNative says whether the expressions that have a native form are
	// evaluated in native.
	useNative bool
	native    nativeEnv
	// usedNative is set once a native expression answered: its bound was
	// charged rather than cel-go's cost.
	usedNative bool
}

// evaluate evaluates one expression with what is left of the budget; the
// error is one that ends the whole list (the budget ran out, or
// errNativeBudget).
//
// A native expression answers if its cost bound is within the per-call
// limit and what is left of the budget: it is charged the bound. cel-go's
// cost for it is at most the bound, so what is left is at most what
// kube-apiserver has left, and an expression that cel-go finds over the
// budget after a native one answered may not be over kube-apiserver's:
// the list is then evaluated again without natives (errNativeBudget), as
// when a bound is over what is left.
func (ev *evaluator) evaluate(e *expression) (evaluation, error) {
	if e.err != nil {
		return evaluation{err: fmt.Errorf("compilation error: %v", e.err)}, nil
	}
	var start time.Time
	if ev.clock != nil {
		start = ev.clock.Now()
	}
	elapsed := func() time.Duration {
		if ev.clock == nil {
			return 0
		}
		return ev.clock.Since(start)
	}
	if ev.useNative && e.native != nil {
		if val, bound, ok := e.native.run(&ev.native); ok && bound <= icel.PerCallLimit {
			if int64(bound) > ev.budget {
				return evaluation{}, errNativeBudget
			}
			ev.budget -= int64(bound)
			ev.usedNative = true
			return evaluation{val: val, elapsed: elapsed()}, nil
		}
	}
	if ev.act == nil {
		ev.act = ev.p.activation(ev.ctx, ev.in, ev.namespace.value(), ev.authorizer)
	}
	val, rest, err := ev.act.Evaluate(e.program, e.text, ev.budget)
	if errors.Is(err, admissioncel.ErrOutOfBudget) {
		if ev.usedNative {
			return evaluation{}, errNativeBudget
		}
		return evaluation{}, err
	}
	ev.budget = rest
	return evaluation{val: val, err: err, elapsed: elapsed()}, nil
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
