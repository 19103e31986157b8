package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/union"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// azScripted is one authorizer's fixed answer, given to both implementations.
type azScripted struct {
	decision authorizer.Decision
	reason   string
	err      string
}

func (s azScripted) kube() kauthorizer.Authorizer {
	return kauthorizer.AuthorizerFunc(func(context.Context, kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
		return kauthorizer.Decision(s.decision), s.reason, azErrOrNil(s.err)
	})
}

func (s azScripted) ours() authorizer.Authorizer {
	return authorizer.Func(func(context.Context, *authorizer.Attributes) (authorizer.Decision, string, error) {
		return s.decision, s.reason, azErrOrNil(s.err)
	})
}

func azErrOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

// azScriptedAnswers are every combination of a decision, a reason and an
// error: 27 answers.
func azScriptedAnswers() []azScripted {
	var out []azScripted
	for _, d := range []authorizer.Decision{authorizer.DecisionAllow, authorizer.DecisionDeny, authorizer.DecisionNoOpinion} {
		for _, r := range []string{"", "because", "two\nlines"} {
			for _, e := range []string{"", "boom", "bang"} {
				out = append(out, azScripted{d, r, e})
			}
		}
	}
	return out
}

// TestUnionMatchesKubeAPIServer runs every chain of up to three azScripted
// authorizers (27 + 27² + 27³ = 20439 chains) through kube-apiserver's union
// and gatehouse's chain: decision, reason and error text must be equal.
func TestUnionMatchesKubeAPIServer(t *testing.T) {
	answers := azScriptedAnswers()
	var chains [][]azScripted
	var grow func(prefix []azScripted, n int)
	grow = func(prefix []azScripted, n int) {
		if len(prefix) > 0 {
			chains = append(chains, append([]azScripted(nil), prefix...))
		}
		if n == 0 {
			return
		}
		for _, a := range answers {
			grow(append(prefix, a), n-1)
		}
	}
	grow(nil, 3)
	chains = append(chains, nil) // the empty chain

	ctx := context.Background()
	differences := 0
	for _, chain := range chains {
		var kubeNamed []union.NamedAuthorizer
		var ourNamed []authorizer.Named
		for i, s := range chain {
			name := fmt.Sprintf("authorizer-%d", i)
			kubeNamed = append(kubeNamed, union.NamedAuthorizer{AuthorizerName: name, Authorizer: s.kube()})
			ourNamed = append(ourNamed, authorizer.Named{Name: name, Authorizer: s.ours()})
		}
		kube, err := union.New(kubeNamed...)
		require.NoError(t, err)
		ours, err := authorizer.NewChain(ourNamed...)
		require.NoError(t, err)
		kd, kr, kerr := kube.Authorize(ctx, kauthorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x"}})
		od, or, oerr := ours.Authorize(ctx, &authorizer.Attributes{User: &authorizer.User{Name: "x"}})
		if kd.String() != od.String() || kr != or || authzErrText(kerr) != authzErrText(oerr) {
			differences++
			if differences < 10 {
				t.Errorf("chain %+v:\nkube-apiserver %s %q %v\ngatehouse      %s %q %v", chain, kd, kr, kerr, od, or, oerr)
			}
		}
	}
	assert.Zero(t, differences)
	t.Logf("%d chains compared", len(chains))
}

func TestUnionNameErrorsMatchKubeAPIServer(t *testing.T) {
	allow := azScripted{decision: authorizer.DecisionAllow}
	for _, names := range [][]string{{""}, {"a", ""}, {"a", "a"}, {"a", "b", "a"}, {"a", "b"}} {
		var kubeNamed []union.NamedAuthorizer
		var ourNamed []authorizer.Named
		for _, n := range names {
			kubeNamed = append(kubeNamed, union.NamedAuthorizer{AuthorizerName: n, Authorizer: allow.kube()})
			ourNamed = append(ourNamed, authorizer.Named{Name: n, Authorizer: allow.ours()})
		}
		_, kerr := union.New(kubeNamed...)
		_, oerr := authorizer.NewChain(ourNamed...)
		assert.Equal(t, authzErrText(kerr), authzErrText(oerr), "%q", names)
	}
}

// TestBuiltinAuthorizersMatchKubeAPIServer compares system:masters,
// AlwaysAllow and AlwaysDeny on every user of the corpus and no user.
func TestBuiltinAuthorizersMatchKubeAPIServer(t *testing.T) {
	pairs := []struct {
		name string
		kube kauthorizer.Authorizer
		ours authorizer.Authorizer
	}{
		{"system:masters", authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup), authorizer.PrivilegedGroups(authorizer.SystemPrivilegedGroup)},
		{"two groups", authorizerfactory.NewPrivilegedGroups("a", "system:serviceaccounts"), authorizer.PrivilegedGroups("a", "system:serviceaccounts")},
		{"AlwaysAllow", authorizerfactory.NewAlwaysAllowAuthorizer(), authorizer.AlwaysAllow()},
		{"AlwaysDeny", authorizerfactory.NewAlwaysDenyAuthorizer(), authorizer.AlwaysDeny()},
	}
	users := append(azCorpusUsers(), &authorizer.User{Name: "root", Groups: []string{"x", "system:masters"}})
	ctx := context.Background()
	for _, p := range pairs {
		for i, u := range users {
			a := &authorizer.Attributes{User: u, Verb: "get", Path: "/"}
			kd, kr, kerr := p.kube.Authorize(ctx, azKubeAttributes(t, a))
			od, or, oerr := p.ours.Authorize(ctx, a)
			assert.Equal(t, kd.String(), od.String(), "%s user %d", p.name, i)
			assert.Equal(t, kr, or, "%s user %d", p.name, i)
			assert.Equal(t, authzErrText(kerr), authzErrText(oerr), "%s user %d", p.name, i)
		}
	}
}

// TestChainOfWebhooksMatchesKubeAPIServer builds, from the same
// configuration, kube-apiserver's chain (system:masters, then its webhook
// authorizers, as its newForConfig assembles them) and gatehouse's (New),
// with two webhooks answering from the corpus, and asks both the same
// requests.
func TestChainOfWebhooksMatchesKubeAPIServer(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	srvA, kcA := azNewFakeWebhook(t, authorizertest.Options{})
	srvB, kcB := azNewFakeWebhook(t, authorizertest.Options{})
	answers := azCorpusAnswers()
	attrs := azCorpusAttributes()
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	compared := 0
	for i := 0; i < n; i++ {
		var cfgs [2]azWebhookConfig
		var ans [2]azWebhookAnswer
		for k := range cfgs {
			cfgs[k] = azCorpusConfigs()[r.IntN(4)]
			cfgs[k].conditions = azConditionSets[r.IntN(len(azConditionSets))]
			if r.IntN(2) == 0 {
				cfgs[k].authorizedTTL, cfgs[k].unauthorizedTTL = 0, 0
			}
			for {
				ans[k] = answers[r.IntN(len(answers))]
				if ans[k].timeout == 0 {
					break
				}
			}
		}
		requests := []*authorizer.Attributes{attrs[r.IntN(len(attrs))].attrs, attrs[r.IntN(len(attrs))].attrs}
		name := fmt.Sprintf("%03d %s/%s mc=%d,%d [%s | %s]", i, cfgs[0].policy, cfgs[1].policy, len(cfgs[0].conditions), len(cfgs[1].conditions), ans[0].name, ans[1].name)
		t.Run(name, func(t *testing.T) {
			cfg := &authzconfig.Configuration{}
			var kubeNamed []union.NamedAuthorizer
			kubeNamed = append(kubeNamed, union.NamedAuthorizer{AuthorizerName: authorizer.PrivilegedGroupsName,
				Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)})
			for k, kc := range []string{kcA, kcB} {
				wname := fmt.Sprintf("webhook-%d", k)
				pair := azNewWebhookPair(t, kc, cfgs[k], 0)
				kubeNamed = append(kubeNamed, union.NamedAuthorizer{AuthorizerName: wname, Authorizer: pair.kube})
				cfg.Authorizers = append(cfg.Authorizers, azWebhookAuthorizerConfig(wname, kc, cfgs[k]))
			}
			kube, err := union.New(kubeNamed...)
			require.NoError(t, err)
			b := azTestBackoff
			ours, err := authorizer.New(cfg, authorizer.Options{Compiler: azSharedCompiler(t), Backoff: &b})
			require.NoError(t, err)

			script := func() {
				for k, srv := range []*authorizertest.Server{srvA, srvB} {
					srv.ClearFaults()
					srv.ResetRequests()
					srv.Inject(ans[k].queue...)
					if ans[k].always != nil {
						srv.InjectAlways(*ans[k].always)
					}
					srv.SetDecide(authorizertest.Always(ans[k].status))
				}
			}
			script()
			var kubeOut, ourOut []azOutcome
			for _, a := range requests {
				d, reason, err := kube.Authorize(ctx, azKubeAttributes(t, a))
				kubeOut = append(kubeOut, azOutcome{d.String(), reason, authzErrText(err)})
			}
			kubeWire := [2][]azWireRequest{azWire(srvA.Requests()), azWire(srvB.Requests())}
			script()
			for _, a := range requests {
				d, reason, err := ours.Authorize(ctx, a)
				ourOut = append(ourOut, azOutcome{d.String(), reason, authzErrText(err)})
			}
			ourWire := [2][]azWireRequest{azWire(srvA.Requests()), azWire(srvB.Requests())}
			for j := range requests {
				k, o := kubeOut[j], ourOut[j]
				if k.Decision != o.Decision || k.Reason != o.Reason || azNormalizeErr(k.Err) != azNormalizeErr(o.Err) {
					t.Errorf("request %d: kube-apiserver %s, gatehouse %s", j, k, o)
				}
			}
			for k := range kubeWire {
				assert.Equal(t, kubeWire[k], ourWire[k], "requests to webhook %d", k)
			}
			compared++
		})
	}
	t.Logf("%d chains of two webhooks compared", compared)
}

// azWebhookAuthorizerConfig is the configuration entry of a corpus webhook.
func azWebhookAuthorizerConfig(name, kubeconfig string, c azWebhookConfig) authzconfig.AuthorizerConfiguration {
	no := false
	w := &authzconfig.WebhookConfiguration{
		AuthorizedTTL:              metav1.Duration{Duration: c.authorizedTTL},
		UnauthorizedTTL:            metav1.Duration{Duration: c.unauthorizedTTL},
		Timeout:                    metav1.Duration{Duration: 5 * time.Second},
		SubjectAccessReviewVersion: c.version,
		FailurePolicy:              c.policy,
		ConnectionInfo:             authzconfig.WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: &kubeconfig},
	}
	if c.authorizedTTL == 0 {
		w.CacheAuthorizedRequests = &no
	}
	if c.unauthorizedTTL == 0 {
		w.CacheUnauthorizedRequests = &no
	}
	for _, e := range c.conditions {
		w.MatchConditions = append(w.MatchConditions, authzconfig.WebhookMatchCondition{Expression: e})
	}
	if len(c.conditions) > 0 {
		w.MatchConditionSubjectAccessReviewVersion = "v1"
	}
	return authzconfig.AuthorizerConfiguration{Type: "Webhook", Name: name, Webhook: w}
}
