package apiserver

import (
	"context"
	"errors"
	"sync"

	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// KubeAuthorizer is a gatehouse authorizer seen as a k8s.io/apiserver one.
// It is safe for concurrent use if the authorizer it wraps is.
type KubeAuthorizer struct {
	a authorizer.Authorizer
}

var _ kauthorizer.Authorizer = (*KubeAuthorizer)(nil)

// ToKube wraps a gatehouse authorizer as a k8s.io/apiserver one. A
// k8s.io/apiserver authorizer that FromKube wrapped is returned unwrapped. A
// nil a gives an authorizer that denies every request with an error.
func ToKube(a authorizer.Authorizer) kauthorizer.Authorizer {
	if f, ok := a.(*gatehouseAuthorizer); ok {
		if k, ok := f.k.(kauthorizer.Authorizer); ok {
			return k
		}
	}
	if a == nil {
		a = authorizer.Func(denyNil)
	}
	return &KubeAuthorizer{a: a}
}

// convertedPool holds the attributes KubeAuthorizer converts into: reused,
// they save the allocation that costs a cached decision more than its
// lookup (about 150 ns of allocation and garbage collection, in
// BenchmarkToKube).
var convertedPool = sync.Pool{New: func() any { return new(convertedAttributes) }}

var errNilAuthorizer = errors.New("apiserver: nil authorizer")

func denyNil(context.Context, *authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", errNilAuthorizer
}

// Authorize converts the attributes and asks the gatehouse authorizer. The
// decision values are the same in both libraries. Attributes that FromKube
// made are passed as they are; others are converted into attributes that
// Authorize takes from a pool and reuses once the wrapped authorizer has
// returned, so that a decision costs no allocation: as with io.Writer's
// buffer, the wrapped authorizer must not retain them (gatehouse's
// authorizers do not).
func (k *KubeAuthorizer) Authorize(ctx context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
	if ka, ok := a.(kubeAttributes); ok {
		d, reason, err := k.a.Authorize(ctx, ka.a)
		return kauthorizer.Decision(d), reason, err
	}
	c := convertedPool.Get().(*convertedAttributes)
	if a != nil {
		fromKube(a, c)
	} // else: no request, attributes without user, which the authorizers answer without crashing.
	d, reason, err := k.a.Authorize(ctx, &c.Attributes)
	c.reset()
	convertedPool.Put(c)
	return kauthorizer.Decision(d), reason, err
}

// ConditionsAwareAuthorize is Authorize's decision, as
// k8s.io/apiserver asks of an authorizer that is not conditions-aware.
func (k *KubeAuthorizer) ConditionsAwareAuthorize(ctx context.Context, a kauthorizer.Attributes) kauthorizer.ConditionsAwareDecision {
	return kauthorizer.ConditionsAwareDecisionFromParts(k.Authorize(ctx, a))
}

// EvaluateConditions fails closed: gatehouse's authorizers return no
// conditions to evaluate.
func (*KubeAuthorizer) EvaluateConditions(context.Context, kauthorizer.ConditionsAwareDecision, kauthorizer.ConditionsData) (kauthorizer.Decision, string, error) {
	return kauthorizer.DecisionDeny, "", kauthorizer.ErrorConditionEvaluationNotSupported
}

// Unwrap returns the gatehouse authorizer.
func (k *KubeAuthorizer) Unwrap() authorizer.Authorizer { return k.a }

// FromKube wraps a k8s.io/apiserver authorizer as a gatehouse one; it asks
// the unconditional Authorize. A gatehouse authorizer that ToKube wrapped is
// returned unwrapped. A nil k gives an authorizer that denies every request
// with an error.
func FromKube(k kauthorizer.UnconditionalAuthorizer) authorizer.Authorizer {
	if ka, ok := k.(*KubeAuthorizer); ok {
		return ka.a
	}
	if k == nil {
		return authorizer.Func(denyNil)
	}
	return &gatehouseAuthorizer{k: k}
}

// gatehouseAuthorizer is a k8s.io/apiserver authorizer seen as a gatehouse one.
type gatehouseAuthorizer struct {
	k kauthorizer.UnconditionalAuthorizer
}

func (f *gatehouseAuthorizer) Authorize(ctx context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
	if a == nil {
		// k8s.io/apiserver's authorizers crash on nil attributes.
		a = &authorizer.Attributes{}
	}
	d, reason, err := f.k.Authorize(ctx, kubeAttributes{a: a})
	return authorizer.Decision(d), reason, err
}
