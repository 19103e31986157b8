package authorizer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Named is an authorizer with its name in a chain. The name prefixes the
// reasons the authorizer gives when it has no opinion.
type Named struct {
	Name       string
	Authorizer Authorizer
}

// Chain asks its authorizers in order, as kube-apiserver's union authorizer
// does: the first Allow or Deny is the answer, with that authorizer's own
// reason and error (errors of earlier authorizers are dropped). When every
// authorizer has no opinion, the answer is NoOpinion with the reasons,
// each prefixed "name: ", joined by newlines, and the errors aggregated.
//
// Before 1.37 (NewChainFor), the reasons are not prefixed.
//
// A Chain is immutable and safe for concurrent use.
type Chain struct {
	entries []Named
	// prefixReasons prefixes each NoOpinion reason with its authorizer's
	// name, as kube-apiserver does from 1.37.
	prefixReasons bool
	// conditional is how AuthorizeConditionally builds its Union: not at
	// all before 1.37 (the chain's Authorize, lifted), with 1.37's or
	// 1.38's name checks after.
	conditional conditionalUnion
}

type conditionalUnion uint8

const (
	unionLifted conditionalUnion = iota
	union137
	union138
)

// NewChain builds a chain of authorizers, asked in the order given, as the
// newest release's kube-apiserver (NewChainFor with the zero kube.Target).
func NewChain(authorizers ...Named) (*Chain, error) {
	return NewChainFor(kube.Target{}, authorizers...)
}

// NewChainFor builds a chain of authorizers, asked in the order given, as
// kube-apiserver t's union authorizer answers. Names must be non-empty and
// unique; the errors say so with kube-apiserver's texts. An empty chain has
// no opinion on anything.
func NewChainFor(t kube.Target, authorizers ...Named) (*Chain, error) {
	seen := make(map[string]struct{}, len(authorizers))
	for _, n := range authorizers {
		if n.Name == "" {
			return nil, errors.New("empty AuthorizerName in union.New is invalid")
		}
		if _, dup := seen[n.Name]; dup {
			return nil, fmt.Errorf("duplicate AuthorizerName %q in union.New", n.Name)
		}
		seen[n.Name] = struct{}{}
		if n.Authorizer == nil {
			return nil, fmt.Errorf("authorizer %q in union.New is nil", n.Name)
		}
	}
	c := &Chain{entries: append([]Named(nil), authorizers...), prefixReasons: kubeversions.Has(t, kubeversions.UnionReasonPrefix)}
	switch {
	case kubeversions.Has(t, kubeversions.ConditionalUnionNamesChecked):
		c.conditional = union138
	case kubeversions.Has(t, kubeversions.ConditionsAwareUnion):
		c.conditional = union137
	}
	return c, nil
}

// Names returns the names of the chain's authorizers, in order.
func (c *Chain) Names() []string {
	names := make([]string, len(c.entries))
	for i, e := range c.entries {
		names[i] = e.Name
	}
	return names
}

// Authorize asks the authorizers in order.
func (c *Chain) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	return c.authorize(ctx, a, nil)
}

func (c *Chain) authorizeTraced(ctx context.Context, a *Attributes, s *Step) (Decision, string, error) {
	s.chain = true
	return c.authorize(ctx, a, s)
}

func (c *Chain) authorize(ctx context.Context, a *Attributes, s *Step) (Decision, string, error) {
	// Reasons are joined only if nobody decides; until then they are kept
	// on the stack, so that a decided request allocates nothing for them.
	type namedReason struct{ name, reason string }
	var (
		errs       []error
		reasonBuf  [8]namedReason
		reasonList = reasonBuf[:0]
	)
	for i := range c.entries {
		e := &c.entries[i]
		var (
			d      Decision
			reason string
			err    error
		)
		if s == nil {
			d, reason, err = e.Authorizer.Authorize(ctx, a)
		} else {
			s.Steps = append(s.Steps, Step{Name: e.Name})
			d, reason, err = authorizeStep(ctx, e.Authorizer, a, &s.Steps[len(s.Steps)-1])
		}
		if d == DecisionAllow || d == DecisionDeny {
			return d, reason, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasonList = append(reasonList, namedReason{e.Name, reason})
		}
	}
	var b strings.Builder
	for i, r := range reasonList {
		if i > 0 {
			b.WriteByte('\n')
		}
		if c.prefixReasons {
			b.WriteString(r.name)
			b.WriteString(": ")
		}
		b.WriteString(r.reason)
	}
	return DecisionNoOpinion, b.String(), utilerrors.NewAggregate(errs)
}
