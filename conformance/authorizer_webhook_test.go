package conformance

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// testBackoff is kube-apiserver's backoff shape, shortened so that the
// corpus runs in seconds: both sides use it.
var testBackoff = authorizer.Backoff{Duration: time.Millisecond, Factor: 1.5, Steps: 5}

// webhookPair is a kube-apiserver webhook authorizer and a gatehouse one with
// the same configuration, pointed at the same fake webhook.
type webhookPair struct {
	kube      kauthorizer.Authorizer
	ours      *authorizer.Webhook
	kubeStats *kubeWebhookMetrics
	ourStats  *metrics.Memory
}

const pairName = "wh"

func newWebhookPair(t *testing.T, kubeconfig string, cfg webhookConfig, timeout time.Duration) *webhookPair {
	t.Helper()
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	// As kube-apiserver builds it (pkg/kubeapiserver/authorizer/reload.go).
	clientConfig, err := webhookutil.LoadKubeconfig(kubeconfig, nil)
	require.NoError(t, err)
	clientConfig.Timeout = timeout
	decisionOnError := kauthorizer.DecisionNoOpinion
	if cfg.policy == "Deny" {
		decisionOnError = kauthorizer.DecisionDeny
	}
	stats := newKubeWebhookMetrics()
	var conditions []apiserver.WebhookMatchCondition
	for _, c := range cfg.conditions {
		conditions = append(conditions, apiserver.WebhookMatchCondition{Expression: c})
	}
	kube, err := webhook.New(clientConfig, cfg.version, cfg.authorizedTTL, cfg.unauthorizedTTL,
		wait.Backoff{Duration: testBackoff.Duration, Factor: testBackoff.Factor, Jitter: testBackoff.Jitter, Steps: testBackoff.Steps},
		decisionOnError, conditions, pairName, stats, authorizationcel.NewDefaultCompiler())
	require.NoError(t, err)

	mem := metrics.NewMemory()
	b := testBackoff
	ours, err := authorizer.NewWebhook(authorizer.WebhookOptions{
		Name: pairName, SubjectAccessReviewVersion: cfg.version, FailurePolicy: cfg.policy,
		AuthorizedTTL: cfg.authorizedTTL, UnauthorizedTTL: cfg.unauthorizedTTL, Timeout: timeout,
		KubeConfigFile: kubeconfig, Backoff: &b, Metrics: mem, MatchConditions: cfg.conditions, Compiler: sharedCompiler(t),
	})
	require.NoError(t, err)
	return &webhookPair{kube: kube, ours: ours, kubeStats: stats, ourStats: mem}
}

// ourCounts renders gatehouse's webhook metrics like kubeWebhookMetrics.
func ourCounts(m *metrics.Memory) map[string]int {
	out := map[string]int{}
	for _, s := range m.Series(metrics.AuthorizationWebhookEvaluations) {
		out["evaluations/"+strings.Join(s, "/")] = int(m.Value(metrics.AuthorizationWebhookEvaluations, s...))
	}
	for _, s := range m.Series(metrics.AuthorizationWebhookDuration) {
		out["duration/"+strings.Join(s, "/")] = int(m.HistogramOf(metrics.AuthorizationWebhookDuration, s...).Count)
	}
	for _, s := range m.Series(metrics.AuthorizationWebhookFailOpen) {
		out["failopen/"+strings.Join(s, "/")] = int(m.Value(metrics.AuthorizationWebhookFailOpen, s...))
	}
	for _, s := range m.Series(metrics.AuthorizationMatchConditionDuration) {
		out["mc_duration/"+strings.Join(s, "/")] = int(m.HistogramOf(metrics.AuthorizationMatchConditionDuration, s...).Count)
	}
	for _, s := range m.Series(metrics.AuthorizationMatchConditionErrors) {
		out["mc_errors/"+strings.Join(s, "/")] = int(m.Value(metrics.AuthorizationMatchConditionErrors, s...))
	}
	for _, s := range m.Series(metrics.AuthorizationMatchConditionExclusions) {
		out["mc_exclusions/"+strings.Join(s, "/")] = int(m.Value(metrics.AuthorizationMatchConditionExclusions, s...))
	}
	return out
}

// outcome is what one Authorize call gave.
type outcome struct {
	Decision string
	Reason   string
	Err      string
}

func (o outcome) String() string { return fmt.Sprintf("%s %q err=%q", o.Decision, o.Reason, o.Err) }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// wireRequest is the part of a recorded request that must be equal.
type wireRequest struct {
	Method, Path, RawQuery, Proto string
	Header                        string
	Body                          string
}

func wire(reqs []authorizertest.Request) []wireRequest {
	out := make([]wireRequest, len(reqs))
	for i, r := range reqs {
		var keys []string
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var h strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&h, "%s: %s\n", k, strings.Join(r.Header[k], ", "))
		}
		out[i] = wireRequest{Method: r.Method, Path: r.Path, RawQuery: r.RawQuery, Proto: r.Proto, Header: h.String(), Body: string(r.Body)}
	}
	return out
}

// differences counts the cases compared and those whose error text differs
// (the error's presence must always match).
type caseStats struct {
	cases, requests    int
	errTextDifferences []string
}

// runCase asks the same requests through kube-apiserver's webhook and
// gatehouse's, each freshly built, against the same fake webhook scripted the
// same way, and compares outcomes, the requests on the wire and the metrics.
func runCase(t *testing.T, srv *authorizertest.Server, kubeconfig string, cfg webhookConfig, ans webhookAnswer, requests []*authorizer.Attributes, stats *caseStats) {
	t.Helper()
	pair := newWebhookPair(t, kubeconfig, cfg, ans.timeout)
	var counter atomic.Int64
	script := func() {
		counter.Store(0)
		srv.ClearFaults()
		srv.ResetRequests()
		srv.Inject(ans.queue...)
		if ans.always != nil {
			srv.InjectAlways(*ans.always)
		}
		srv.SetDecide(func(authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
			// A different reason for each answer shows which answers came from
			// a cache.
			st := ans.status
			if n := counter.Add(1); st.Reason != "" {
				st.Reason = fmt.Sprintf("%s #%d", st.Reason, n)
			}
			return st
		})
	}
	ctx := context.Background()

	script()
	var kubeOut []outcome
	for _, a := range requests {
		d, r, err := pair.kube.Authorize(ctx, kubeAttributes(t, a))
		kubeOut = append(kubeOut, outcome{d.String(), r, errText(err)})
	}
	kubeWire := wire(srv.Requests())

	script()
	var ourOut []outcome
	for _, a := range requests {
		d, r, err := pair.ours.Authorize(ctx, a)
		ourOut = append(ourOut, outcome{d.String(), r, errText(err)})
	}
	ourWire := wire(srv.Requests())

	stats.cases++
	stats.requests += len(requests)
	for i := range requests {
		k, o := kubeOut[i], ourOut[i]
		if k.Decision != o.Decision || k.Reason != o.Reason || (k.Err == "") != (o.Err == "") {
			t.Errorf("request %d: kube-apiserver %s, gatehouse %s", i, k, o)
		} else if normalizeErr(k.Err) != normalizeErr(o.Err) {
			stats.errTextDifferences = append(stats.errTextDifferences, fmt.Sprintf("%s: kube %q, gatehouse %q", t.Name(), k.Err, o.Err))
		}
	}
	if len(kubeWire) != len(ourWire) {
		t.Errorf("kube-apiserver made %d HTTP requests, gatehouse %d", len(kubeWire), len(ourWire))
	} else {
		for i := range kubeWire {
			if kubeWire[i] != ourWire[i] {
				t.Errorf("HTTP request %d differs:\nkube-apiserver: %+v\ngatehouse:      %+v", i, kubeWire[i], ourWire[i])
				break
			}
		}
	}
	if k, o := pair.kubeStats.snapshot(), ourCounts(pair.ourStats); fmt.Sprint(k) != fmt.Sprint(o) {
		t.Errorf("metrics differ:\nkube-apiserver: %v\ngatehouse:      %v", k, o)
	}
}

var (
	compilerOnce sync.Once
	compiler     *matchcond.AuthorizationCompiler
	compilerErr  error
)

// sharedCompiler builds the CEL environment once for every case.
func sharedCompiler(t *testing.T) *matchcond.AuthorizationCompiler {
	compilerOnce.Do(func() { compiler, compilerErr = matchcond.NewAuthorizationCompiler() })
	require.NoError(t, compilerErr)
	return compiler
}

func newFakeWebhook(t *testing.T, opts authorizertest.Options) (*authorizertest.Server, string) {
	t.Helper()
	srv, err := authorizertest.NewServer(opts)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))
	return srv, kc
}

func reportStats(t *testing.T, stats *caseStats) {
	t.Logf("%d cases, %d authorizations compared; error texts differ in %d", stats.cases, stats.requests, len(stats.errTextDifferences))
	seen := map[string]bool{}
	for _, d := range stats.errTextDifferences {
		// One line per distinct pair of texts.
		key := d[strings.Index(d, ": kube")+2:]
		if !seen[key] {
			seen[key] = true
			t.Logf("error text: %s", d)
		}
	}
}

// TestWebhookWireFormatMatchesKubeAPIServer sends every request of the corpus
// (every target crossed with every user) through both webhooks, in both
// SubjectAccessReview versions, and compares the requests on the wire byte
// for byte, and the decisions.
func TestWebhookWireFormatMatchesKubeAPIServer(t *testing.T) {
	srv, kc := newFakeWebhook(t, authorizertest.Options{})
	stats := &caseStats{}
	allow := corpusAnswers()[1]
	for _, cfg := range corpusConfigs() {
		for _, a := range corpusAttributes() {
			t.Run(cfg.version+"/"+cfg.policy+"/"+a.name, func(t *testing.T) {
				runCase(t, srv, kc, cfg, allow, []*authorizer.Attributes{a.attrs}, stats)
			})
		}
	}
	reportStats(t, stats)
}

// TestWebhookAnswersMatchKubeAPIServer gives both webhooks every answer of
// the corpus (well-formed, malformed, HTTP errors, Retry-After, resets,
// hangs) under every configuration.
func TestWebhookAnswersMatchKubeAPIServer(t *testing.T) {
	stats := &caseStats{}
	a := corpusTargets()[0].attrs
	withUser := *a
	withUser.User = corpusUsers()[3]
	for _, plain := range []bool{false, true} {
		srv, kc := newFakeWebhook(t, authorizertest.Options{Plain: plain})
		for _, cfg := range corpusConfigs() {
			for _, ans := range corpusAnswers() {
				t.Run(fmt.Sprintf("plain=%v/%s/%s/%s", plain, cfg.version, cfg.policy, ans.name), func(t *testing.T) {
					runCase(t, srv, kc, cfg, ans, []*authorizer.Attributes{&withUser, &withUser}, stats)
				})
			}
		}
	}
	reportStats(t, stats)
}

// TestWebhookRandomCorpusMatchesKubeAPIServer runs the random part of the
// corpus: configurations with and without caching, answers, and sequences of
// related requests that the decision cache must tell apart exactly as
// kube-apiserver's does.
func TestWebhookRandomCorpusMatchesKubeAPIServer(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	srv, kc := newFakeWebhook(t, authorizertest.Options{})
	stats := &caseStats{}
	for _, c := range randomCases(n, 3221) {
		t.Run(c.name, func(t *testing.T) {
			runCase(t, srv, kc, c.cfg, c.answer, c.requests, stats)
		})
	}
	reportStats(t, stats)
}

// TestWebhookCacheKeyMatchesKubeAPIServer asks each request of the corpus,
// then each of its mutations, through one webhook with caching on: whether
// the second answer comes from the cache must agree with kube-apiserver for
// every pair.
func TestWebhookCacheKeyMatchesKubeAPIServer(t *testing.T) {
	srv, kc := newFakeWebhook(t, authorizertest.Options{})
	stats := &caseStats{}
	cfg := webhookConfig{version: "v1", policy: "NoOpinion", authorizedTTL: 5 * time.Minute, unauthorizedTTL: 30 * time.Second}
	ans := webhookAnswer{name: "counting", status: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "answer"}}
	for _, a := range corpusAttributes() {
		for _, m := range mutations() {
			next := m.fn(*a.attrs)
			t.Run(a.name+"/"+m.name, func(t *testing.T) {
				runCase(t, srv, kc, cfg, ans, []*authorizer.Attributes{a.attrs, &next}, stats)
			})
		}
	}
	reportStats(t, stats)
}

// localPort matches the client side of a connection in a network error,
// which differs from one connection to the next.
var localPort = regexp.MustCompile(`127\.0\.0\.1:\d+->`)

func normalizeErr(s string) string { return localPort.ReplaceAllString(s, "127.0.0.1:PORT->") }

// TestWebhookMatchConditionsMatchKubeAPIServer evaluates every condition set
// of the corpus on every request: whether the webhook is called, the errors
// and the match condition metrics must agree.
func TestWebhookMatchConditionsMatchKubeAPIServer(t *testing.T) {
	srv, kc := newFakeWebhook(t, authorizertest.Options{})
	stats := &caseStats{}
	deny := corpusAnswers()[2]
	for i, conditions := range conditionSets {
		for _, policy := range []string{"NoOpinion", "Deny"} {
			cfg := webhookConfig{version: "v1", policy: policy, conditions: conditions}
			for _, a := range corpusAttributes() {
				t.Run(fmt.Sprintf("set%d/%s/%s", i, policy, a.name), func(t *testing.T) {
					runCase(t, srv, kc, cfg, deny, []*authorizer.Attributes{a.attrs}, stats)
				})
			}
		}
	}
	reportStats(t, stats)
}
