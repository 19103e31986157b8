package matchcond

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// AdmissionCostBudget is the cost that all the match conditions of one
// webhook or policy, and the variables they use, may spend on one request.
const AdmissionCostBudget = icel.RuntimeCELCostBudgetMatchConditions

// ErrOutOfBudget is the error of an evaluation whose match conditions spent
// more than AdmissionCostBudget (kube-apiserver's text).
var ErrOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// The authorizer behind the admission variables authorizer and
// authorizer.requestResource: it answers the checks of
// authorizer.path(...).check(...) and
// authorizer.group(...).resource(...)...check(...), with the attributes
// kube-apiserver's Authz library fills in.
type (
	// Authorizer answers the authorization checks of admission
	// expressions. It must be safe for concurrent use.
	Authorizer = icel.Authorizer
	// AuthorizationAttributes is what an Authorizer is asked about.
	AuthorizationAttributes = icel.AuthorizationAttributes
	// UserInfo is the user an authorization check is about: the requesting
	// user of the admission request.
	UserInfo = icel.UserInfo
	// Decision is an Authorizer's answer.
	Decision = icel.Decision
)

// The decisions of an Authorizer.
const (
	DecisionDeny      = icel.DecisionDeny
	DecisionAllow     = icel.DecisionAllow
	DecisionNoOpinion = icel.DecisionNoOpinion
)

// AdmissionMatcher evaluates the compiled match conditions of one admission
// webhook or policy. It is immutable and safe for concurrent use.
type AdmissionMatcher struct {
	policy        bool
	failurePolicy admissionregistrationv1.FailurePolicyType
	variables     []*compiledVariable
	variableIndex map[string]int
	variableNames []string // of variables, by index
	variablesType *types.Type
	conditions    []admissionCondition

	sink                 metrics.Sink // nil: not instrumented
	clock                clock.PassiveClock
	name, kind, stepType string
}

func (m *AdmissionMatcher) instrument(o AdmissionOptions) {
	m.sink, m.clock, m.name, m.stepType = o.Metrics, o.Clock, o.Name, o.Type
	if m.clock == nil {
		m.clock = clock.RealClock{}
	}
	m.kind = "webhook"
	if m.policy {
		m.kind = "policy"
	}
}

// AdmissionAttributes is what the match conditions of one webhook or policy
// see of an admission request.
type AdmissionAttributes struct {
	// Request is `request`: the AdmissionRequest as kube-apiserver's matcher
	// builds it (k8s.io/apiserver's plugin/cel.CreateAdmissionRequest with
	// the attributes' own resource and the versioned, possibly equivalent,
	// kind; no UID, Object or OldObject).
	Request *admissionv1.AdmissionRequest
	// Object and OldObject are `object` and `oldObject`, in the matched
	// version: an *unstructured.Unstructured or a typed object; nil is null.
	Object, OldObject runtime.Object
	// Params is `params`; nil is null.
	Params runtime.Object
	// Authorizer backs `authorizer` and `authorizer.requestResource`, asked
	// about the request's user; nil leaves them undefined.
	Authorizer Authorizer
}

// AdmissionMatchResult is the outcome of the match conditions, as
// kube-apiserver's matcher returns it.
type AdmissionMatchResult struct {
	// Matches is true when the webhook or policy applies.
	Matches bool
	// FailedConditionName is the name of the false condition that excluded
	// the request.
	FailedConditionName string
	// Error is set when the conditions failed and the failure policy is
	// Fail: the request must be rejected.
	Error error
}

// Match evaluates the conditions with kube-apiserver's semantics: every
// condition is evaluated, in order, sharing a cost budget of 2,500,000
// (the variables a condition uses are charged to it, each computed at most
// once per call); running out of budget is an error (ErrOutOfBudget). Then
// the first false condition excludes the request; otherwise errors follow
// the failure policy: Fail returns them aggregated, Ignore excludes the
// request. A condition that did not compile fails with "compilation error:
// ...".
//
// The metrics are kube-apiserver's matcher's: evaluation seconds when the
// result is not a plain match, one error per failed condition before the
// first false one, and, for webhooks, one exclusion when the request is
// excluded without error (kube-apiserver's webhook dispatcher records it).
func (m *AdmissionMatcher) Match(ctx context.Context, a *AdmissionAttributes) AdmissionMatchResult {
	res, _ := m.match(ctx, a, false)
	return res
}

// AdmissionConditionResult is how one match condition evaluated.
type AdmissionConditionResult struct {
	// Name is the condition's name.
	Name string
	// Value is the condition's value; false when Err is set.
	Value bool
	// Err is the condition's error, with kube-apiserver's text
	// ("expression '<expression>' resulted in error: ...", or
	// "compilation error: ..." for a condition that did not compile).
	Err error
}

// Explain decides as Match does, with the same result and metrics, and
// tells each condition's outcome, in order: kube-apiserver evaluates every
// condition before it decides, so all are listed, also after a false one.
// None are listed when the budget ran out (ErrOutOfBudget: the result's
// Error under failurePolicy Fail, an exclusion under Ignore).
func (m *AdmissionMatcher) Explain(ctx context.Context, a *AdmissionAttributes) (AdmissionMatchResult, []AdmissionConditionResult) {
	return m.match(ctx, a, true)
}

func (m *AdmissionMatcher) match(ctx context.Context, a *AdmissionAttributes, explain bool) (AdmissionMatchResult, []AdmissionConditionResult) {
	if m == nil || len(m.conditions) == 0 {
		return AdmissionMatchResult{Matches: true}, nil
	}
	var operation string
	if a.Request != nil {
		operation = string(a.Request.Operation)
	}
	rec := m.recorder(operation)
	act := m.activation(ctx, a)
	results, err := m.evaluate(ctx, act)
	var outcomes []AdmissionConditionResult
	if explain && err == nil {
		outcomes = make([]AdmissionConditionResult, len(results))
		for i, r := range results {
			outcomes[i] = AdmissionConditionResult{Name: m.conditions[i].name, Value: r.val == types.True, Err: r.err}
		}
	}
	if err != nil {
		rec.seconds()
		if m.failurePolicy == admissionregistrationv1.Fail {
			return AdmissionMatchResult{Error: err}, outcomes
		}
		if m.failurePolicy == admissionregistrationv1.Ignore {
			rec.exclusion()
			return AdmissionMatchResult{}, outcomes
		}
	}
	var failed []error
	for i, r := range results {
		if r.err != nil {
			failed = append(failed, r.err)
			rec.evalError()
		}
		if r.val == types.False {
			rec.seconds()
			rec.exclusion()
			return AdmissionMatchResult{FailedConditionName: m.conditions[i].name}, outcomes
		}
	}
	if len(failed) > 0 {
		rec.seconds()
		if m.failurePolicy == admissionregistrationv1.Fail {
			return AdmissionMatchResult{Error: utilerrors.NewAggregate(failed)}, outcomes
		}
		if m.failurePolicy == admissionregistrationv1.Ignore {
			rec.exclusion()
			return AdmissionMatchResult{}, outcomes
		}
	}
	return AdmissionMatchResult{Matches: true}, outcomes
}

// admissionResult is the outcome of one condition.
type admissionResult struct {
	val ref.Val
	err error
}

// evaluate evaluates every condition, as kube-apiserver's ForInput does.
func (m *AdmissionMatcher) evaluate(ctx context.Context, act *admissionActivation) ([]admissionResult, error) {
	results := make([]admissionResult, len(m.conditions))
	remaining := int64(AdmissionCostBudget)
	for i, c := range m.conditions {
		if c.err != nil {
			results[i].err = &exprError{detail: fmt.Sprintf("compilation error: %v", c.err)}
			continue
		}
		val, cost, err := c.program.Eval(ctx, act)
		if m.policy {
			variablesCost := act.VariablesCost
			act.VariablesCost = 0
			if variablesCost > remaining {
				return nil, ErrOutOfBudget
			}
			remaining -= variablesCost
		}
		if cost > math.MaxInt64 || int64(cost) > remaining {
			return nil, ErrOutOfBudget
		}
		remaining -= int64(cost)
		if err != nil {
			results[i].err = &exprError{detail: fmt.Sprintf("expression '%v' resulted in error: %v", c.expression, err)}
			continue
		}
		results[i].val = val
	}
	return results, nil
}

// admissionActivation resolves the variables of one Match.
type admissionActivation = admissioncel.Activation

func (m *AdmissionMatcher) activation(ctx context.Context, a *AdmissionAttributes) *admissionActivation {
	act := &admissionActivation{
		Ctx:          ctx,
		Object:       objectToVal(a.Object),
		OldObject:    objectToVal(a.OldObject),
		Namespace:    types.NullValue, // always null in match conditions
		Authorizer:   a.Authorizer,
		AuthzRequest: a.Request,
	}
	if a.Params != nil {
		act.Params = admissioncel.TypedToVal(a.Params)
	}
	if m.policy {
		act.Variables = admissioncel.NewVariables(m.variablesType, m.variableNames, m.variableIndex,
			func(i int) ref.Val { return computeVariable(act, m.variables[i]) })
	}
	return act
}

// objectToVal is kube-apiserver's CEL value of an admitted object: cel-go's
// value of an unstructured object's map, the typed view of a typed one.
func objectToVal(o runtime.Object) any {
	switch o := o.(type) {
	case nil:
		return nil
	case *unstructured.Unstructured:
		if o == nil {
			return types.NullValue
		}
		return types.DefaultTypeAdapter.NativeToValue(o.Object)
	}
	return admissioncel.TypedToVal(o)
}

// computeVariable computes a variable for the variables map, charging its
// cost to the condition that uses it.
func computeVariable(a *admissionActivation, v *compiledVariable) ref.Val {
	var compileErr error
	if v.err != nil {
		compileErr = v.err
	}
	return admissioncel.EvalVariable(a.Ctx, v.name, v.program, compileErr, a, &a.VariablesCost)
}

// admissionRecorder records the metrics of one Match.
type admissionRecorder struct {
	m         *AdmissionMatcher
	operation string
	start     time.Time // when instrumented
}

func (m *AdmissionMatcher) recorder(operation string) admissionRecorder {
	r := admissionRecorder{m: m, operation: operation}
	if m.sink != nil {
		r.start = m.clock.Now()
	}
	return r
}

func (r admissionRecorder) seconds() {
	if r.m.sink == nil {
		return
	}
	r.m.sink.Observe(metrics.AdmissionMatchConditionDuration, r.m.clock.Since(r.start).Seconds(), r.m.name, r.m.kind, r.m.stepType, r.operation)
}

func (r admissionRecorder) evalError() {
	if r.m.sink != nil {
		r.m.sink.Add(metrics.AdmissionMatchConditionErrors, 1, r.m.name, r.m.kind, r.m.stepType, r.operation)
	}
}

// exclusion records the exclusion that kube-apiserver's webhook dispatcher
// records when the conditions exclude a webhook; policies record none.
func (r admissionRecorder) exclusion() {
	if r.m.sink != nil && !r.m.policy {
		r.m.sink.Add(metrics.AdmissionMatchConditionExclusions, 1, r.m.name, r.m.kind, r.m.stepType, r.operation)
	}
}
