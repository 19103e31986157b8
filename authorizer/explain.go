package authorizer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Trace is the account of one decision, returned by Explain: the answer, and
// each authorizer that was asked, in order, with what it answered and, for a
// webhook, what it did to get there.
type Trace struct {
	Decision Decision
	Reason   string
	Err      error
	// Steps holds one entry per authorizer asked. Authorizers after the one
	// that decided were not asked and are not listed.
	Steps []Step
	// Conditional is the String of the conditional decision explained
	// (ExplainConditionally's answer, ExplainEvaluation's input); empty for
	// Explain.
	Conditional string
}

// Step is one authorizer's part in a decision.
type Step struct {
	// Name is the authorizer's name in its chain ("" for an authorizer
	// explained on its own).
	Name string
	// Type is the configured type (Webhook, RBAC, Node, ...) when known.
	Type     string
	Decision Decision
	Reason   string
	Err      error
	// Conditional is the String of the authorizer's conditional decision
	// (ExplainConditionally: what it answered; ExplainEvaluation: what was
	// evaluated); empty for Explain.
	Conditional string
	// Steps lists the authorizers of a nested chain.
	Steps []Step
	// Webhook is set for a webhook authorizer.
	Webhook *WebhookStep
	// Details are what an Explainer told about its decision, one line
	// each: for package rbac's authorizer, the bindings that applied and
	// the role and rule that allowed.
	Details []string

	chain bool
}

// WebhookStep tells what a webhook authorizer did for one request.
type WebhookStep struct {
	// MatchConditions is the outcome of the match conditions, evaluated
	// before the cache.
	MatchConditions MatchOutcome
	// Condition is the expression that was false (MatchExcluded) or that
	// failed to evaluate (MatchError), and ConditionIndex its position in
	// the configuration; empty and -1 when not known.
	Condition      string
	ConditionIndex int
	// Cache says whether the decision came from the decision cache.
	Cache CacheOutcome
	// Attempts lists the calls to the webhook, one per retry step.
	Attempts []Attempt
	// FailurePolicy is true when the decision is the failure policy's,
	// because the call failed or a match condition could not be evaluated.
	FailurePolicy bool
	// UnrequestedConditional is true when the answer (called for or
	// cached) decided by its status.conditionalDecision, which the webhook
	// never asks for: from 1.38 such an answer, unless it denies, fails
	// closed with the decision's failure decision (Deny if it could deny,
	// else NoOpinion) and an error.
	UnrequestedConditional bool
}

// MatchOutcome is the result of a webhook's match conditions.
type MatchOutcome int

const (
	// MatchNoConditions: the webhook has no match conditions.
	MatchNoConditions MatchOutcome = iota
	// MatchAll: every condition was true; the webhook was consulted.
	MatchAll
	// MatchExcluded: a condition was false; the webhook was skipped.
	MatchExcluded
	// MatchError: a condition failed and none was false; the failure
	// policy decided.
	MatchError
)

func (m MatchOutcome) String() string {
	switch m {
	case MatchNoConditions:
		return "none configured"
	case MatchAll:
		return "all true"
	case MatchExcluded:
		return "excluded"
	case MatchError:
		return "error"
	}
	return "MatchOutcome(" + strconv.Itoa(int(m)) + ")"
}

// CacheOutcome says how the decision cache served a request.
type CacheOutcome int

const (
	// CacheNotConsulted: the cache was not looked at (match conditions
	// excluded the request, or caching is off).
	CacheNotConsulted CacheOutcome = iota
	// CacheHit: the decision came from the cache; the webhook was not called.
	CacheHit
	// CacheMiss: the webhook was called.
	CacheMiss
)

func (c CacheOutcome) String() string {
	switch c {
	case CacheNotConsulted:
		return "not consulted"
	case CacheHit:
		return "hit"
	case CacheMiss:
		return "miss"
	}
	return "CacheOutcome(" + strconv.Itoa(int(c)) + ")"
}

// Attempt is one call to a webhook, as counted by
// apiserver_authorization_webhook_evaluations_total.
type Attempt struct {
	// Result is the metric's result label: success, canceled, timeout or
	// error.
	Result string
	// StatusCode is the HTTP status of the last response, 0 if none came.
	StatusCode int
	// Requests is the number of HTTP requests the attempt made: more than one
	// when the webhook answered 429 or 5xx with a Retry-After header.
	Requests int
	// Duration is the time the attempt took on the authorizer's clock.
	Duration time.Duration
	// Err is the attempt's error.
	Err error
}

// tracer is implemented by the authorizers of this package that can say more
// about a decision than its outcome. s is the step of the authorizer itself;
// it fills in what it knows.
type tracer interface {
	authorizeTraced(ctx context.Context, a *Attributes, s *Step) (Decision, string, error)
}

// Explainer is implemented by authorizers of other packages that can say
// more about a decision than its outcome, such as package rbac's
// authorizer. Explain calls AuthorizeExplained instead of Authorize and
// keeps the lines it returns in Step.Details.
type Explainer interface {
	// AuthorizeExplained decides as Authorize does and returns, besides,
	// lines that tell how.
	AuthorizeExplained(ctx context.Context, a *Attributes) (Decision, string, []string, error)
}

// authorizeStep asks az, tracing into s when az can.
func authorizeStep(ctx context.Context, az Authorizer, a *Attributes, s *Step) (Decision, string, error) {
	var (
		d      Decision
		reason string
		err    error
	)
	if t, ok := az.(tracer); ok {
		d, reason, err = t.authorizeTraced(ctx, a, s)
	} else if e, ok := az.(Explainer); ok {
		d, reason, s.Details, err = e.AuthorizeExplained(ctx, a)
	} else {
		d, reason, err = az.Authorize(ctx, a)
	}
	s.Decision, s.Reason, s.Err = d, reason, err
	return d, reason, err
}

// Explain authorizes a request through az as Authorize does, with the same
// effects (cache, metrics, webhook calls), and returns an account of how the
// decision was made. Authorize itself records nothing of the sort, so
// explaining costs nothing when it is not asked for.
func Explain(ctx context.Context, az Authorizer, a *Attributes) *Trace {
	var root Step
	d, reason, err := authorizeStep(ctx, az, a, &root)
	t := &Trace{Decision: d, Reason: reason, Err: err}
	if root.chain {
		t.Steps = root.Steps
	} else {
		t.Steps = []Step{root}
	}
	return t
}

// String renders the trace for people, one authorizer a line.
func (t *Trace) String() string {
	var b strings.Builder
	if t.Conditional != "" {
		b.WriteString("conditional " + t.Conditional + " -> ")
	}
	b.WriteString(t.Decision.String())
	if t.Reason != "" {
		fmt.Fprintf(&b, " %q", t.Reason)
	}
	if t.Err != nil {
		fmt.Fprintf(&b, " error: %v", t.Err)
	}
	writeSteps(&b, t.Steps, "  ")
	return b.String()
}

func writeSteps(b *strings.Builder, steps []Step, indent string) {
	for _, s := range steps {
		b.WriteString("\n")
		b.WriteString(indent)
		name := s.Name
		if name == "" {
			name = "authorizer"
		}
		b.WriteString(name)
		if s.Type != "" {
			b.WriteString(" (" + s.Type + ")")
		}
		b.WriteString(": ")
		if s.Conditional != "" {
			b.WriteString("conditional " + s.Conditional + " -> ")
		}
		b.WriteString(s.Decision.String())
		if s.Reason != "" {
			fmt.Fprintf(b, " %q", s.Reason)
		}
		if s.Err != nil {
			fmt.Fprintf(b, " error: %v", s.Err)
		}
		if w := s.Webhook; w != nil {
			b.WriteString(" [" + w.summary() + "]")
		}
		for _, d := range s.Details {
			b.WriteString("\n" + indent + "  " + d)
		}
		writeSteps(b, s.Steps, indent+"  ")
	}
}

func (w *WebhookStep) summary() string {
	var parts []string
	switch w.MatchConditions {
	case MatchNoConditions:
	case MatchExcluded, MatchError:
		p := "match conditions: " + w.MatchConditions.String()
		if w.Condition != "" {
			p += fmt.Sprintf(" by %q", w.Condition)
		}
		parts = append(parts, p)
	default:
		parts = append(parts, "match conditions: "+w.MatchConditions.String())
	}
	if w.Cache != CacheNotConsulted {
		parts = append(parts, "cache: "+w.Cache.String())
	}
	for i, at := range w.Attempts {
		p := fmt.Sprintf("attempt %d: %s", i+1, at.Result)
		if at.StatusCode != 0 {
			p += " " + strconv.Itoa(at.StatusCode)
		}
		if at.Requests > 1 {
			p += fmt.Sprintf(" after %d requests", at.Requests)
		}
		parts = append(parts, p)
	}
	if w.FailurePolicy {
		parts = append(parts, "decided by failurePolicy")
	}
	if w.UnrequestedConditional {
		parts = append(parts, "unrequested conditionalDecision: failed closed")
	}
	return strings.Join(parts, "; ")
}
