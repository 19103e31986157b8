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

// azTestBackoff is kube-apiserver's backoff shape, shortened so that the
// corpus runs in seconds: both sides use it.
var azTestBackoff = authorizer.Backoff{Duration: time.Millisecond, Factor: 1.5, Steps: 5}

// azWebhookPair is a kube-apiserver webhook authorizer and a gatehouse one with
// the same configuration, pointed at the same fake webhook.
type azWebhookPair struct {
	kube      kauthorizer.Authorizer
	ours      *authorizer.Webhook
	kubeStats *azKubeWebhookMetrics
	ourStats  *metrics.Memory
}

const azPairName = "wh"

func azNewWebhookPair(t *testing.T, kubeconfig string, cfg azWebhookConfig, timeout time.Duration) *azWebhookPair {
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
	stats := azNewKubeWebhookMetrics()
	var conditions []apiserver.WebhookMatchCondition
	for _, c := range cfg.conditions {
		conditions = append(conditions, apiserver.WebhookMatchCondition{Expression: c})
	}
	kube, err := webhook.New(clientConfig, cfg.version, cfg.authorizedTTL, cfg.unauthorizedTTL,
		wait.Backoff{Duration: azTestBackoff.Duration, Factor: azTestBackoff.Factor, Jitter: azTestBackoff.Jitter, Steps: azTestBackoff.Steps},
		decisionOnError, conditions, azPairName, stats, authorizationcel.NewDefaultCompiler())
	require.NoError(t, err)

	mem := metrics.NewMemory()
	b := azTestBackoff
	ours, err := authorizer.NewWebhook(authorizer.WebhookOptions{
		Name: azPairName, SubjectAccessReviewVersion: cfg.version, FailurePolicy: cfg.policy,
		AuthorizedTTL: cfg.authorizedTTL, UnauthorizedTTL: cfg.unauthorizedTTL, Timeout: timeout,
		KubeConfigFile: kubeconfig, Backoff: &b, Metrics: mem, MatchConditions: cfg.conditions, Compiler: azSharedCompiler(t),
	})
	require.NoError(t, err)
	return &azWebhookPair{kube: kube, ours: ours, kubeStats: stats, ourStats: mem}
}

// azOurCounts renders gatehouse's webhook metrics like azKubeWebhookMetrics.
func azOurCounts(m *metrics.Memory) map[string]int {
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

// azOutcome is what one Authorize call gave.
type azOutcome struct {
	Decision string
	Reason   string
	Err      string
}

func (o azOutcome) String() string { return fmt.Sprintf("%s %q err=%q", o.Decision, o.Reason, o.Err) }

func authzErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// azWireRequest is the part of a recorded request that must be equal.
type azWireRequest struct {
	Method, Path, RawQuery, Proto string
	Header                        string
	Body                          string
}

func azWire(reqs []authorizertest.Request) []azWireRequest {
	out := make([]azWireRequest, len(reqs))
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
		out[i] = azWireRequest{Method: r.Method, Path: r.Path, RawQuery: r.RawQuery, Proto: r.Proto, Header: h.String(), Body: string(r.Body)}
	}
	return out
}

// differences counts the cases compared and those whose error text differs
// (the error's presence must azAlways match).
type azCaseStats struct {
	cases, requests    int
	errTextDifferences []string
}

// azRunCase asks the same requests through kube-apiserver's webhook and
// gatehouse's, each freshly built, against the same fake webhook azScripted the
// same way, and compares outcomes, the requests on the azWire and the metrics.
func azRunCase(t *testing.T, srv *authorizertest.Server, kubeconfig string, cfg azWebhookConfig, ans azWebhookAnswer, requests []*authorizer.Attributes, stats *azCaseStats) {
	t.Helper()
	pair := azNewWebhookPair(t, kubeconfig, cfg, ans.timeout)
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
	var kubeOut []azOutcome
	for _, a := range requests {
		d, r, err := pair.kube.Authorize(ctx, azKubeAttributes(t, a))
		kubeOut = append(kubeOut, azOutcome{d.String(), r, authzErrText(err)})
	}
	kubeWire := azWire(srv.Requests())

	script()
	var ourOut []azOutcome
	for _, a := range requests {
		d, r, err := pair.ours.Authorize(ctx, a)
		ourOut = append(ourOut, azOutcome{d.String(), r, authzErrText(err)})
	}
	ourWire := azWire(srv.Requests())

	stats.cases++
	stats.requests += len(requests)
	for i := range requests {
		k, o := kubeOut[i], ourOut[i]
		if k.Decision != o.Decision || k.Reason != o.Reason || (k.Err == "") != (o.Err == "") {
			t.Errorf("request %d: kube-apiserver %s, gatehouse %s", i, k, o)
		} else if azNormalizeErr(k.Err) != azNormalizeErr(o.Err) {
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
	if k, o := pair.kubeStats.snapshot(), azOurCounts(pair.ourStats); fmt.Sprint(k) != fmt.Sprint(o) {
		t.Errorf("metrics differ:\nkube-apiserver: %v\ngatehouse:      %v", k, o)
	}
}

var (
	azCompilerOnce sync.Once
	azCompiler     *matchcond.AuthorizationCompiler
	azCompilerErr  error
)

// azSharedCompiler builds the CEL environment once for every case.
func azSharedCompiler(t *testing.T) *matchcond.AuthorizationCompiler {
	azCompilerOnce.Do(func() { azCompiler, azCompilerErr = matchcond.NewAuthorizationCompiler() })
	require.NoError(t, azCompilerErr)
	return azCompiler
}

func azNewFakeWebhook(t *testing.T, opts authorizertest.Options) (*authorizertest.Server, string) {
	t.Helper()
	srv, err := authorizertest.NewServer(opts)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))
	return srv, kc
}

func azReportStats(t *testing.T, stats *azCaseStats) {
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
// SubjectAccessReview versions, and compares the requests on the azWire byte
// for byte, and the decisions.
func TestWebhookWireFormatMatchesKubeAPIServer(t *testing.T) {
	srv, kc := azNewFakeWebhook(t, authorizertest.Options{})
	stats := &azCaseStats{}
	allow := azCorpusAnswers()[1]
	for _, cfg := range azCorpusConfigs() {
		for _, a := range azCorpusAttributes() {
			t.Run(cfg.version+"/"+cfg.policy+"/"+a.name, func(t *testing.T) {
				azRunCase(t, srv, kc, cfg, allow, []*authorizer.Attributes{a.attrs}, stats)
			})
		}
	}
	azReportStats(t, stats)
}

// TestWebhookAnswersMatchKubeAPIServer gives both webhooks every answer of
// the corpus (well-formed, malformed, HTTP errors, Retry-After, resets,
// hangs) under every configuration.
func TestWebhookAnswersMatchKubeAPIServer(t *testing.T) {
	stats := &azCaseStats{}
	a := azCorpusTargets()[0].attrs
	withUser := *a
	withUser.User = azCorpusUsers()[3]
	for _, plain := range []bool{false, true} {
		srv, kc := azNewFakeWebhook(t, authorizertest.Options{Plain: plain})
		for _, cfg := range azCorpusConfigs() {
			for _, ans := range azCorpusAnswers() {
				t.Run(fmt.Sprintf("plain=%v/%s/%s/%s", plain, cfg.version, cfg.policy, ans.name), func(t *testing.T) {
					azRunCase(t, srv, kc, cfg, ans, []*authorizer.Attributes{&withUser, &withUser}, stats)
				})
			}
		}
	}
	azReportStats(t, stats)
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
	srv, kc := azNewFakeWebhook(t, authorizertest.Options{})
	stats := &azCaseStats{}
	for _, c := range azRandomCases(n, 3221) {
		t.Run(c.name, func(t *testing.T) {
			azRunCase(t, srv, kc, c.cfg, c.answer, c.requests, stats)
		})
	}
	azReportStats(t, stats)
}

// TestWebhookCacheKeyMatchesKubeAPIServer asks each request of the corpus,
// then each of its azMutations, through one webhook with caching on: whether
// the second answer comes from the cache must agree with kube-apiserver for
// every pair.
func TestWebhookCacheKeyMatchesKubeAPIServer(t *testing.T) {
	srv, kc := azNewFakeWebhook(t, authorizertest.Options{})
	stats := &azCaseStats{}
	cfg := azWebhookConfig{version: "v1", policy: "NoOpinion", authorizedTTL: 5 * time.Minute, unauthorizedTTL: 30 * time.Second}
	ans := azWebhookAnswer{name: "counting", status: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "answer"}}
	for _, a := range azCorpusAttributes() {
		for _, m := range azMutations() {
			next := m.fn(*a.attrs)
			t.Run(a.name+"/"+m.name, func(t *testing.T) {
				azRunCase(t, srv, kc, cfg, ans, []*authorizer.Attributes{a.attrs, &next}, stats)
			})
		}
	}
	azReportStats(t, stats)
}

// azLocalPort matches the client side of a connection in a network error,
// which differs from one connection to the next.
var azLocalPort = regexp.MustCompile(`127\.0\.0\.1:\d+->`)

func azNormalizeErr(s string) string { return azLocalPort.ReplaceAllString(s, "127.0.0.1:PORT->") }

// TestWebhookMatchConditionsMatchKubeAPIServer evaluates every condition set
// of the corpus on every request: whether the webhook is called, the errors
// and the match condition metrics must agree.
func TestWebhookMatchConditionsMatchKubeAPIServer(t *testing.T) {
	srv, kc := azNewFakeWebhook(t, authorizertest.Options{})
	stats := &azCaseStats{}
	deny := azCorpusAnswers()[2]
	for i, conditions := range azConditionSets {
		for _, policy := range []string{"NoOpinion", "Deny"} {
			cfg := azWebhookConfig{version: "v1", policy: policy, conditions: conditions}
			for _, a := range azCorpusAttributes() {
				t.Run(fmt.Sprintf("set%d/%s/%s", i, policy, a.name), func(t *testing.T) {
					azRunCase(t, srv, kc, cfg, deny, []*authorizer.Attributes{a.attrs}, stats)
				})
			}
		}
	}
	azReportStats(t, stats)
}
