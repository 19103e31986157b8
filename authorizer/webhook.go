package authorizer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/internal/randuid"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// Failure policies of a webhook authorizer: the decision when the webhook
// cannot be reached, answers something unreadable, or a match condition
// cannot be evaluated.
const (
	FailurePolicyNoOpinion = "NoOpinion"
	FailurePolicyDeny      = "Deny"
)

// TypeWebhook is the authorizer type of webhooks, the "type" label of the
// match condition metrics.
const TypeWebhook = "Webhook"

// defaultWebhookTimeout is kube-apiserver's timeout of a webhook call when
// the configuration sets none.
const defaultWebhookTimeout = 30 * time.Second

// WebhookOptions configure a webhook authorizer. Name, the SubjectAccessReview
// version, the failure policy and a connection (KubeConfigFile or Connection)
// are required.
type WebhookOptions struct {
	// Name of the authorizer: the "name" label of its metrics.
	Name string
	// SubjectAccessReviewVersion is the version of the SubjectAccessReview
	// sent and expected: "v1" or "v1beta1".
	SubjectAccessReviewVersion string
	// AuthorizedTTL and UnauthorizedTTL are how long an allowed answer, and
	// any other answer, is cached. Zero caches nothing of that kind.
	AuthorizedTTL, UnauthorizedTTL time.Duration
	// Timeout bounds each call to the webhook; zero means 30 s.
	Timeout time.Duration
	// FailurePolicy is FailurePolicyNoOpinion or FailurePolicyDeny.
	FailurePolicy string
	// MatchConditions are CEL expressions on the SubjectAccessReview (v1)
	// named request; the webhook is asked only when all are true.
	MatchConditions []string
	// Compiler compiles the match conditions. Nil builds one for Kube
	// (matchcond.NewAuthorizationCompilerFor), which takes a few
	// milliseconds: share one, built for the same version and gates,
	// between webhooks. It is a *matchcond.AuthorizationCompiler (the same
	// type).
	Compiler *authzcond.AuthorizationCompiler
	// CompiledMatchConditions are the match conditions already compiled (by
	// authzconfig.ValidateAndCompile, for example); when set, MatchConditions
	// and Compiler are not used. It is a *matchcond.AuthorizationMatcher.
	CompiledMatchConditions *authzcond.AuthorizationMatcher

	// KubeConfigFile is the path of the kubeconfig file that says where the
	// webhook is and how to reach it (see ConnectionFromKubeconfig).
	KubeConfigFile string
	// Connection is the caller's own connection to the webhook, used when
	// KubeConfigFile is empty: for example an in-cluster connection to a
	// kube-apiserver's SubjectAccessReview endpoint.
	Connection *Connection

	// Backoff is the retry backoff; nil means DefaultBackoff.
	Backoff *Backoff
	// Clock times the retries, timeouts, cache entries and metrics; nil
	// means the real clock.
	Clock clock.Clock
	// Metrics receives the webhook's metrics; nil records nothing.
	Metrics metrics.Sink
	// UserAgent is sent in the User-Agent header. Empty sends Go's default,
	// "Go-http-client/1.1" (or /2.0), as kube-apiserver's webhook client
	// does.
	UserAgent string
	// Kube is the kube-apiserver the webhook answers as; the zero Target
	// is the newest release. From 1.38 a v1 answer's
	// status.conditionalDecision, which the webhook never asks for, fails
	// closed (see the package documentation).
	Kube kube.Target

	// ConditionsReview is the webhook's conditions review endpoint
	// (AuthorizationConfiguration's conditionsReview): with Kube at 1.38
	// and the gate ConditionalAuthorization on, AuthorizeConditionally
	// offers conditional decisions and EvaluateConditions posts
	// AuthorizationConditionsReviews there. Ignored with the gate off.
	ConditionsReview *WebhookConditionsReview
}

// WebhookConditionsReview is where a webhook evaluates its conditions.
type WebhookConditionsReview struct {
	// Version of AuthorizationConditionsReview: "v1alpha1".
	Version string
	// KubeConfigContext is the context of the webhook's KubeConfigFile that
	// reaches the endpoint; empty means its current context.
	KubeConfigContext string
	// Connection reaches the endpoint when the webhook has no
	// KubeConfigFile.
	Connection *Connection
}

// Webhook is kube-apiserver's webhook authorizer: it asks a remote service by
// posting a SubjectAccessReview. Match conditions are evaluated first; then
// the decision cache is consulted; then the webhook is called, with retries.
// A Webhook is safe for concurrent use.
type Webhook struct {
	name            string
	url             string
	parsedURL       *url.URL
	client          *http.Client
	header          http.Header
	v1beta1         bool
	authorizedTTL   time.Duration
	unauthorizedTTL time.Duration
	timeout         time.Duration
	backoff         Backoff
	decisionOnError Decision
	conditional     conditionalReading
	// askConditional: AuthorizeConditionally asks as kube-apiserver 1.38
	// with the gate ConditionalAuthorization on; evaluates: EvaluateConditions
	// is 1.38's; conds: the conditions review endpoint, when configured
	// (and the gate on); newUID: a conditions review's uid.
	askConditional bool
	evaluates      bool
	conds          *conditionsEndpoint
	newUID         func() types.UID
	matcher        *authzcond.AuthorizationMatcher
	cache          *decisionCache
	clock          clock.Clock
	random         func() float64
	files          []string // the connection's files, for the reloader

	evaluations map[string]metrics.Series
	durations   map[string]metrics.Series
	failOpen    map[string]metrics.Series
	sink        metrics.Sink

	buffers sync.Pool
}

// NewWebhook builds a webhook authorizer.
func NewWebhook(opts WebhookOptions) (*Webhook, error) {
	w := &Webhook{
		name:            opts.Name,
		authorizedTTL:   opts.AuthorizedTTL,
		unauthorizedTTL: opts.UnauthorizedTTL,
		timeout:         opts.Timeout,
		clock:           opts.Clock,
		random:          rand.Float64,
		sink:            metrics.OrNoop(opts.Metrics),
	}
	switch opts.SubjectAccessReviewVersion {
	case "v1":
	case "v1beta1":
		w.v1beta1 = true
	default:
		return nil, fmt.Errorf("unsupported webhook authorizer version %q, supported versions are %q, %q",
			opts.SubjectAccessReviewVersion, "v1", "v1beta1")
	}
	switch opts.FailurePolicy {
	case FailurePolicyNoOpinion:
		w.decisionOnError = DecisionNoOpinion
	case FailurePolicyDeny:
		w.decisionOnError = DecisionDeny
	default:
		return nil, fmt.Errorf("unknown failurePolicy %q", opts.FailurePolicy)
	}
	w.askConditional = kubeversions.Has(opts.Kube, kubeversions.ConditionalWebhooks)
	w.evaluates = kubeversions.Has(opts.Kube, kubeversions.UnrequestedConditionalDecisionFails)
	w.newUID = randuid.New
	w.conditional = conditionalReading{
		on:      !w.v1beta1 && kubeversions.Has(opts.Kube, kubeversions.UnrequestedConditionalDecisionFails),
		onError: w.decisionOnError,
	}
	if w.timeout < 0 || w.authorizedTTL < 0 || w.unauthorizedTTL < 0 {
		return nil, errors.New("webhook timeout and TTLs must not be negative")
	}
	if w.timeout == 0 {
		w.timeout = defaultWebhookTimeout
	}
	w.backoff = DefaultBackoff()
	if opts.Backoff != nil {
		w.backoff = *opts.Backoff
	}
	if err := w.backoff.validate(); err != nil {
		return nil, err
	}
	if w.clock == nil {
		w.clock = clock.RealClock{}
	}

	var conn Connection
	switch {
	case opts.KubeConfigFile != "":
		c, err := loadKubeconfig(opts.KubeConfigFile, w.clock)
		if err != nil {
			return nil, err
		}
		conn = c
	case opts.Connection != nil:
		conn = *opts.Connection
	default:
		return nil, errors.New("a webhook authorizer needs a kubeconfig file or a connection")
	}
	u, err := requestURL(conn.Server, conn.defaultTLS, w.timeout)
	if err != nil {
		return nil, err
	}
	w.url = u
	if w.parsedURL, err = url.Parse(u); err != nil {
		return nil, err
	}
	// As http.NewRequest does.
	w.parsedURL.Host = strings.TrimSuffix(w.parsedURL.Host, ":")
	w.files = conn.files
	rt := conn.Transport
	if rt == nil {
		rt = newTransport(nil)
	}
	rt = &x509Metrics{
		next:       rt,
		missingSAN: metrics.NewSeries(w.sink, metrics.WebhookX509MissingSAN),
		sha1:       metrics.NewSeries(w.sink, metrics.WebhookX509InsecureSHA1),
	}
	// The per-call timeout is a context deadline on the caller's clock; an
	// http.Client timeout as well, as kube-apiserver's client has, would only
	// cost a goroutine per request and change an error text.
	w.client = &http.Client{Transport: rt}
	w.header = http.Header{
		"Accept":       {"application/json, */*"},
		"Content-Type": {"application/json"},
	}
	if opts.UserAgent != "" {
		w.header.Set("User-Agent", opts.UserAgent)
	}

	if cr := opts.ConditionsReview; cr != nil && w.askConditional {
		if err := w.setConditionsReview(cr, opts); err != nil {
			return nil, err
		}
	}

	switch {
	case opts.CompiledMatchConditions != nil:
		if opts.CompiledMatchConditions.Len() > 0 {
			w.matcher = bindMatcher(opts.CompiledMatchConditions, opts.Name, opts.Metrics, w.clock)
		}
	case len(opts.MatchConditions) > 0:
		m, err := compileMatchConditions(opts.Compiler, opts.Kube, opts.MatchConditions, opts.Name, opts.Metrics, w.clock)
		if err != nil {
			return nil, err
		}
		w.matcher = m
	}
	if w.authorizedTTL > 0 || w.unauthorizedTTL > 0 {
		w.cache = newDecisionCache(w.clock, decisionCacheSize)
	}
	w.bindMetrics()
	return w, nil
}

func (w *Webhook) bindMetrics() {
	w.evaluations = map[string]metrics.Series{}
	w.durations = map[string]metrics.Series{}
	w.failOpen = map[string]metrics.Series{}
	for _, r := range []string{resultSuccess, resultCanceled, resultTimeout, resultError} {
		w.evaluations[r] = metrics.NewSeries(w.sink, metrics.AuthorizationWebhookEvaluations, w.name, r)
		w.durations[r] = metrics.NewSeries(w.sink, metrics.AuthorizationWebhookDuration, w.name, r)
		w.failOpen[r] = metrics.NewSeries(w.sink, metrics.AuthorizationWebhookFailOpen, w.name, r)
	}
}

// requestURL is the URL client-go posts to for a kubeconfig's server: a
// host:port without scheme gets https when TLS is configured and http
// otherwise; the path is cleaned; the query is replaced by the timeout.
func requestURL(server string, defaultTLS bool, timeout time.Duration) (string, error) {
	if server == "" {
		return "", errors.New("host must be a URL or a host:port pair")
	}
	base, err := url.Parse(server)
	if err != nil || base.Scheme == "" || base.Host == "" {
		scheme := "http://"
		if defaultTLS {
			scheme = "https://"
		}
		base, err = url.Parse(scheme + server)
		if err != nil {
			return "", err
		}
		if base.Path != "" && base.Path != "/" {
			return "", fmt.Errorf("host must be a URL or a host:port pair: %q", server)
		}
	}
	u := *base
	u.Path = path.Join("/", base.Path, "/")
	u.RawQuery = url.Values{"timeout": {timeout.String()}}.Encode()
	return u.String(), nil
}

// Authorize asks the webhook about a request.
func (w *Webhook) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	return w.authorize(ctx, a, nil)
}

func (w *Webhook) authorizeTraced(ctx context.Context, a *Attributes, s *Step) (Decision, string, error) {
	if s.Type == "" {
		s.Type = TypeWebhook
	}
	s.Webhook = &WebhookStep{ConditionIndex: -1}
	return w.authorize(ctx, a, s.Webhook)
}

// scratch is the per-request memory of a webhook, pooled.
type scratch struct {
	key  []byte
	body []byte
	spec specScratch
}

var noAttributes Attributes

func (w *Webhook) authorize(ctx context.Context, a *Attributes, t *WebhookStep) (Decision, string, error) {
	if a == nil {
		a = &noAttributes
	}
	sc, _ := w.buffers.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer w.buffers.Put(sc)

	// now is the clock reading of the decision when one was taken: the
	// cache's lookup, and on a miss its store, use the reading that ended
	// the last timing before them rather than reading the clock again.
	var now time.Time
	if w.matcher != nil && t == nil {
		matched, end, err := w.matcher.MatchTimed(ctx, specOf(a, &sc.spec))
		sc.spec = specScratch{} // keep nothing of the caller's request
		if err != nil {
			return w.decisionOnError, "", err
		}
		if !matched {
			return DecisionNoOpinion, "", nil
		}
		now = end
	} else if w.matcher != nil {
		res, err := w.explainMatch(ctx, a, sc)
		t.traceMatch(res, err)
		if err != nil {
			return w.decisionOnError, "", err
		}
		if !res.matched {
			return DecisionNoOpinion, "", nil
		}
	}

	if w.cache != nil {
		sc.key = appendCacheKey(sc.key[:0], a)
		if st, ok := w.cache.getAt(sc.key, w.cache.instant(now)); ok {
			if t != nil {
				t.Cache = CacheHit
			}
			return st.traced(t)
		}
		if t != nil {
			t.Cache = CacheMiss
		}
	}

	sc.body = appendSAR(sc.body[:0], a, w.v1beta1)
	st, end, err := w.review(ctx, sc.body, t)
	if err != nil {
		if t != nil {
			t.FailurePolicy = true
		}
		return w.decisionOnError, "", err
	}
	if w.cache != nil && cacheable(a) {
		ttl := w.unauthorizedTTL
		if st.allowed {
			ttl = w.authorizedTTL
		}
		// kube-apiserver also stores answers with a TTL of 0, expired at
		// once; storing nothing is the same but never evicts a live entry.
		if ttl > 0 {
			w.cache.addAt(sc.key, st, ttl, w.cache.instant(end))
		}
	}
	return st.traced(t)
}

// traced is the answer's decision, noted in t when t is not nil.
func (s reviewStatus) traced(t *WebhookStep) (Decision, string, error) {
	if t != nil && !s.denied && s.conditional != noConditional {
		t.UnrequestedConditional = true
	}
	return s.decision()
}

// errAllowedAndDenied is kube-apiserver's error for an answer that both allows
// and denies.
var errAllowedAndDenied = errors.New("webhook subject access review returned both allow and deny response")

func (s reviewStatus) decision() (Decision, string, error) {
	switch {
	case s.allowed && s.denied:
		return DecisionDeny, s.reason, errAllowedAndDenied
	case s.denied:
		return DecisionDeny, s.reason, nil
	case s.conditional != noConditional:
		// 1.38: an explicit deny wins, an unrequested conditional decision
		// fails closed, whatever allowed says.
		return s.conditional.decision(), s.reason, errUnrequestedConditional
	case s.allowed:
		return DecisionAllow, s.reason, nil
	}
	return DecisionNoOpinion, s.reason, nil
}

// review calls the webhook with retries, recording each call; end is the
// clock reading that ended the timing of the call that answered.
func (w *Webhook) review(ctx context.Context, body []byte, t *WebhookStep) (status reviewStatus, end time.Time, err error) {
	out, end, err := w.reviewAs(ctx, body, t, readPlain)
	return out.status, end, err
}

// reviewAs posts body with retries as mode says. A conditions review
// records no metrics (kube-apiserver 1.38 has none for it).
func (w *Webhook) reviewAs(ctx context.Context, body []byte, t *WebhookStep, mode readMode) (callOutcome, time.Time, error) {
	b := w.backoff
	var (
		lastErr    error
		lastResult string
		stopErr    error
	)
	for b.Steps > 0 {
		if err := ctx.Err(); err != nil {
			stopErr = err
			break
		}
		start := w.clock.Now()
		out := w.callAs(ctx, body, mode)
		end, elapsed := w.since(start)
		result := attemptResult(ctx, out.err, out.statusCode)
		if mode != readConditions {
			w.evaluations[result].Add(1)
			w.durations[result].Observe(elapsed.Seconds())
		}
		if t != nil {
			t.Attempts = append(t.Attempts, Attempt{
				Result: result, StatusCode: out.statusCode, Requests: out.requests, Duration: elapsed, Err: out.err,
			})
		}
		lastErr, lastResult = out.err, result
		if out.err == nil {
			return out, end, nil
		}
		if !shouldRetry(out.err) {
			break
		}
		if b.Steps == 1 {
			stopErr = errors.New("timed out waiting for the condition")
			break
		}
		if !sleepCtx(ctx, w.clock, b.step(w.random)) {
			stopErr = ctx.Err()
			break
		}
		if b.Steps == 0 {
			stopErr = errors.New("timed out waiting for the condition")
		}
	}
	err := lastErr
	if err == nil {
		err = fmt.Errorf("webhook call failed: %s", stopErr.Error())
	}
	if mode != readConditions && w.decisionOnError == DecisionNoOpinion && ctx.Err() == nil {
		if s, ok := w.failOpen[lastResult]; ok {
			s.Add(1)
		}
	}
	return callOutcome{}, time.Time{}, err
}

// since is the time since start on the webhook's clock, and the reading it
// was measured at: one read of the real clock; a caller's clock answers
// Since itself, as it always has, and end is then zero (the cache reads the
// clock).
func (w *Webhook) since(start time.Time) (end time.Time, elapsed time.Duration) {
	if isRealClock(w.clock) {
		end = time.Now()
		return end, end.Sub(start)
	}
	return time.Time{}, w.clock.Since(start)
}

// healthCheckAttributes is the request a health check asks about.
var healthCheckAttributes = Attributes{
	User: &User{Name: "system:authorization-webhook-health-check"},
	Verb: "get", Path: "/healthz",
}

// Check asks the webhook about a harmless request (user
// system:authorization-webhook-health-check, get /healthz) once, without
// match conditions, cache, retries or metrics, and reports whether it
// answered with a readable SubjectAccessReview. Its decision does not
// matter.
func (w *Webhook) Check(ctx context.Context) error {
	body := appendSAR(nil, &healthCheckAttributes, w.v1beta1)
	out := w.call(ctx, body)
	if out.err != nil {
		return fmt.Errorf("webhook %q failed its health check: %w", w.name, out.err)
	}
	return nil
}
