package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/conformance/internal/kubeoracle"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// authzVersionConditions are match conditions whose verdict differs, or
// could differ, between versions: kube-apiserver compiles an
// AuthorizationConfiguration's match conditions in its StoredExpressions
// environment, with the cel-go it links.
var authzVersionConditions = [][]string{
	// 1.3 #1: the lists library's includes() from 1.37.
	{"['system:masters', 'admins'].includes(request.user)"},
	{"request.groups.includes('system:authenticated')"},
	// 1.3 #2: duration(int) compiles with cel-go 0.26, not with 0.29.
	{"duration(size(request.user)) > duration('0s')"},
	{"duration(request.groups.size()) == duration('0s')", "request.user != ''"},
	// Literal duration(5) is refused by both (ValidateDurationLiterals).
	{"duration(5) > duration('1s')"},
	// 1.4 #5: cidr().isMask() only from 1.38.
	{"cidr('10.0.0.0/8').isMask()"},
	// The selectors, always there since AuthorizeWithSelectors went GA.
	{"has(request.resourceAttributes.fieldSelector) && request.resourceAttributes.fieldSelector.rawSelector == ''"},
	{"request.resourceAttributes.labelSelector.requirements.all(r, r.operator == 'In')"},
	// Other libraries and cel-go features of the environment.
	{"request.groups.sort() == request.groups", "request.user.reverse() != ''"},
	{"lists.range(3).size() == 3", "math.sqrt(4.0) == 2.0", "optional.of(1).hasValue()"},
	{"request.user.matches('a+b')", "matches(request.user, 'a+b')"},
	{"'%d'.format([size(request.user)]) != ''", "isSemver('1.0.0')", "semver('1.0.0').isLessThan(semver('1.1.0'))"},
	{"ip('::1').isLoopback()", "cidr('10.0.0.0/8').masked() == cidr('10.0.0.0/8')", "format.dns1123Label().validate(request.user).hasValue()"},
	{"[1, 2].flatten() == [1, 2]", "request.groups.distinct().size() >= 0", "request.user.quote() != ''"},
	{"timestamp('2020-01-01T00:00:00+05:60') > timestamp('2019-01-01T00:00:00Z')"},
	{"quantity('1Gi').add(1).isGreaterThan(quantity('1Gi'))", "quantity('1').asApproximateFloat() == 1.0"},
	{"request.user.endsWith('x') || request.user.startsWith('y')", "dyn(request.user) == dyn(1)"},
	{"bool(request.user)", "int(request.user) > 0"},
	{"request.extra.exists(k, k == 'a')", "request.extra.exists_one(k, k == 'a')", "request.extra.all(k, v, v.size() > 0)"},
	{"request.groups.transformList(i, g, g) == request.groups", "request.groups.transformMap(i, g, g).size() >= 0"},
	{"request.user == 'a' ? true : 1"},
}

// authzVersionCases are the configurations of the per-version corpus that
// authzCorpus does not hold: the conditions above, in every served version.
func authzVersionCases() []authzCorpusCase {
	var out []authzCorpusCase
	for i, exprs := range authzVersionConditions {
		conds := make([]any, len(exprs))
		for k, e := range exprs {
			conds[k] = doc{item("expression", e)}
		}
		for _, v := range []string{"v1", "v1beta1", "v1alpha1"} {
			settings := append(webhookSettings(kcFile), item("matchConditions", conds))
			d := configDocument(v, []any{webhookAuthorizer("w", settings), plainAuthorizer("RBAC")})
			out = append(out, authzCorpusCase{name: fmt.Sprintf("%s version condition %d: %s", v, i, strings.Join(exprs, " && ")), data: render(d, i%2 == 1), conditions: true})
		}
	}
	return out
}

// gatehouseAuthzAnswer answers an authzconfig query with authzconfig's
// Decode and Validate as kube-apiserver t, in the oracle's words.
func gatehouseAuthzAnswer(t testing.TB, target kube.Target, compiler *matchcond.AuthorizationCompiler, data []byte) protocol.Answer {
	cfg, err := authzconfig.DecodeFor(target, data)
	if err != nil {
		return protocol.Answer{LoadError: err.Error()}
	}
	errs := authzconfig.Validate(cfg, authzconfig.ValidateOptions{Kube: target, Compiler: compiler})
	a := protocol.Answer{Loaded: true}
	for _, fe := range errs {
		bad, err := json.Marshal(fe.BadValue)
		require.NoError(t, err)
		a.Validation = append(a.Validation, protocol.FieldError{Type: string(fe.Type), Field: fe.Field, BadValue: string(bad), Detail: fe.Detail, Text: fe.Error()})
	}
	if agg := errs.ToAggregate(); agg != nil {
		a.ValidationAggregate = agg.Error()
	}
	return a
}

// realWorldAuthzCases are the published configurations of authzconfig's
// testdata (their kubeconfig files do not exist here, which both sides
// report alike).
func realWorldAuthzCases(t testing.TB) []authzCorpusCase {
	dir := filepath.Join("..", "authzconfig", "testdata", "realworld")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []authzCorpusCase
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") && !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out = append(out, authzCorpusCase{name: "realworld " + e.Name(), data: string(data)})
	}
	require.NotEmpty(t, out)
	return out
}

func targetOf(t testing.TB, o kubeoracle.Oracle) kube.Target {
	target, err := kube.TargetFor(kube.MustParseVersion(o.Version()))
	require.NoError(t, err)
	return target
}

// TestAuthzConfigMatchesKubeAPIServerPerVersion loads and validates the
// AuthorizationConfiguration corpus (authzCorpus, shared with
// TestAuthzConfigCorpusMatchesKubeAPIServer, authzVersionCases and the
// published configurations) with
// each version's kube-apiserver code (the authzconfig op of the oracle:
// LoadFromData and ValidateAuthorizationConfiguration of k8s.io/apiserver
// v0.35.10, v0.36.6, v0.37.2) and with authzconfig.Decode and Validate as
// that version: the same load error, or the same field errors (type, field,
// bad value, detail, text) and aggregate text. The kubeconfig placeholders
// are real files of a temporary directory, which the oracle processes see
// as this one does. 1.38's beta is left out: its cel-go (v0.33) words
// compilation errors otherwise ("undeclared reference to 'x'" without
// "(in container ”)", with "did you mean" suggestions from its catalog),
// which the 24 configurations with a failing expression show; every other
// configuration agrees at 1.38 (DecodeFor knows its conditionsReview and
// its scheme's name).
func TestAuthzConfigMatchesKubeAPIServerPerVersion(t *testing.T) {
	oracles := startOracles(t)
	places := kubeconfigPlaces(t)
	cases := append(authzCorpus(true), authzVersionCases()...)
	cases = append(cases, realWorldAuthzCases(t)...)
	for _, o := range oracles {
		t.Run(o.Version(), func(t *testing.T) {
			target := targetOf(t, o)
			compiler, err := matchcond.NewAuthorizationCompilerFor(target)
			require.NoError(t, err)
			var loadErrs, valid, invalid, differ int
			for _, c := range cases {
				data := []byte(places.Replace(c.data))
				want, err := o.Eval(protocol.Query{Op: protocol.OpAuthzConfig, Data: data})
				require.NoError(t, err, c.name)
				got := gatehouseAuthzAnswer(t, target, compiler, data)
				switch {
				case !want.Loaded:
					loadErrs++
				case len(want.Validation) == 0:
					valid++
				default:
					invalid++
				}
				if !assert.Equal(t, want, got, "%s; input:\n%s", c.name, data) {
					differ++
					if differ >= 10 {
						t.Fatalf("stopping after %d differences", differ)
					}
				}
			}
			t.Logf("Kubernetes %s: %d configurations: %d rejected by loading, %d valid, %d invalid", o.Version(), len(cases), loadErrs, valid, invalid)
			assert.Greater(t, loadErrs, 100)
			assert.Greater(t, valid, 30)
			assert.Greater(t, invalid, 300)
		})
	}
}

// TestAuthzConfigVersionDifferences pins what the oracles say of the
// version cases that differ, so that the per-version comparison above is
// known to cover them.
func TestAuthzConfigVersionDifferences(t *testing.T) {
	oracles := startOracles(t)
	places := kubeconfigPlaces(t)
	verdicts := map[string]map[string]string{}
	for _, c := range authzVersionCases() {
		if !strings.HasPrefix(c.name, "v1 ") {
			continue
		}
		verdicts[c.name] = map[string]string{}
		for _, o := range oracles {
			a, err := o.Eval(protocol.Query{Op: protocol.OpAuthzConfig, Data: []byte(places.Replace(c.data))})
			require.NoError(t, err)
			v := "ok"
			if a.ValidationAggregate != "" {
				v = a.ValidationAggregate
			}
			verdicts[c.name][o.Version()] = v
		}
	}
	accepted := func(name, version string) bool {
		for n, byVersion := range verdicts {
			if strings.Contains(n, name) {
				return byVersion[version] == "ok"
			}
		}
		t.Fatalf("no case %q", name)
		return false
	}
	for _, o := range oracles {
		v := o.Version()
		newer := kube.MustParseVersion(v).AtLeast(kube.V1_37)
		assert.Equal(t, newer, accepted("['system:masters', 'admins'].includes(request.user)", v), "includes() on %s", v)
		assert.Equal(t, !newer, accepted("duration(size(request.user))", v), "duration(int) on %s", v)
		assert.False(t, accepted("isMask()", v), "isMask() on %s", v)
	}
	for n, byVersion := range verdicts {
		if byVersion["1.35"] != byVersion["1.37"] || byVersion["1.36"] != byVersion["1.37"] {
			t.Logf("differs: %s\n  1.35: %s\n  1.36: %s\n  1.37: %s", n, byVersion["1.35"], byVersion["1.36"], byVersion["1.37"])
		}
	}
}

// unionScripts are the answers of one authorizer of the generated chains:
// each decision, with or without a reason, with or without an error (the
// texts name the authorizer's position, so that order shows).
func unionScripts(pos int) []protocol.ScriptedAuthorizer {
	var out []protocol.ScriptedAuthorizer
	for _, d := range []string{protocol.DecisionAllow, protocol.DecisionDeny, protocol.DecisionNoOpinion} {
		for _, r := range []string{"", fmt.Sprintf("reason %d", pos)} {
			for _, e := range []string{"", fmt.Sprintf("error %d", pos)} {
				out = append(out, protocol.ScriptedAuthorizer{Name: fmt.Sprintf("authorizer-%d", pos), Decision: d, Reason: r, Error: e})
			}
		}
	}
	return out
}

// unionChains are every chain of 1 to 4 authorizers of unionScripts: 12 +
// 12² + 12³ + 12⁴ = 22620 chains.
func unionChains() [][]protocol.ScriptedAuthorizer {
	var chains [][]protocol.ScriptedAuthorizer
	var grow func(prefix []protocol.ScriptedAuthorizer)
	grow = func(prefix []protocol.ScriptedAuthorizer) {
		if len(prefix) > 0 {
			chains = append(chains, append([]protocol.ScriptedAuthorizer(nil), prefix...))
		}
		if len(prefix) == 4 {
			return
		}
		for _, s := range unionScripts(len(prefix)) {
			grow(append(prefix, s))
		}
	}
	grow(nil)
	return chains
}

// gatehouseUnionAnswer asks chain through authorizer.NewChainFor(target).
func gatehouseUnionAnswer(target kube.Target, chain []protocol.ScriptedAuthorizer) protocol.Answer {
	var named []authorizer.Named
	for _, s := range chain {
		var d authorizer.Decision
		switch s.Decision {
		case protocol.DecisionAllow:
			d = authorizer.DecisionAllow
		case protocol.DecisionDeny:
			d = authorizer.DecisionDeny
		default:
			d = authorizer.DecisionNoOpinion
		}
		named = append(named, authorizer.Named{Name: s.Name, Authorizer: azScripted{d, s.Reason, s.Error}.ours()})
	}
	c, err := authorizer.NewChainFor(target, named...)
	if err != nil {
		return protocol.Answer{NewError: err.Error()}
	}
	d, reason, err := c.Authorize(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: "x"}})
	a := protocol.Answer{Decision: d.String(), Reason: reason}
	if err != nil {
		a.AuthorizeError, a.HasAuthorizeError = err.Error(), true
	}
	return a
}

// TestUnionMatchesKubeAPIServerPerVersion asks every chain of unionChains,
// and the empty chain, through each version's union authorizer (the union
// op of the oracle) and through authorizer.NewChainFor as that version:
// the same decision, reason and error text; 1.38's beta included.
func TestUnionMatchesKubeAPIServerPerVersion(t *testing.T) {
	oracles := startOraclesOf(t, kubeoracle.AllVersions())
	chains := append(unionChains(), nil)
	for _, o := range oracles {
		t.Run(o.Version(), func(t *testing.T) {
			target := targetOf(t, o)
			differ, prefixed := 0, 0
			for _, chain := range chains {
				want, err := o.Eval(protocol.Query{Op: protocol.OpUnion, Authorizers: chain})
				require.NoError(t, err)
				got := gatehouseUnionAnswer(target, chain)
				if strings.Contains(want.Reason, "authorizer-0: ") {
					prefixed++
				}
				if !assert.Equal(t, want, got, "chain %+v", chain) {
					differ++
					if differ >= 10 {
						t.Fatalf("stopping after %d differences", differ)
					}
				}
			}
			t.Logf("Kubernetes %s: %d chains compared, %d with prefixed reasons", o.Version(), len(chains), prefixed)
			if kube.MustParseVersion(o.Version()).AtLeast(kube.V1_37) {
				assert.NotZero(t, prefixed)
			} else {
				assert.Zero(t, prefixed)
			}
		})
	}
}

// TestUnionNamesPerVersion compares union.New's checks of the names:
// from 1.37 (NamedAuthorizer) the same errors as NewChainFor; before, the
// union has no names and checks none, while NewChainFor checks them at
// every version (see the authorizer package doc).
func TestUnionNamesPerVersion(t *testing.T) {
	oracles := startOracles(t)
	for _, o := range oracles {
		target := targetOf(t, o)
		named := kube.MustParseVersion(o.Version()).AtLeast(kube.V1_37)
		for _, names := range [][]string{{""}, {"a", ""}, {"a", "a"}, {"a", "b", "a"}, {"a", "b"}} {
			var chain []protocol.ScriptedAuthorizer
			for _, n := range names {
				chain = append(chain, protocol.ScriptedAuthorizer{Name: n, Decision: protocol.DecisionNoOpinion, Reason: "r"})
			}
			want, err := o.Eval(protocol.Query{Op: protocol.OpUnion, Authorizers: chain})
			require.NoError(t, err)
			got := gatehouseUnionAnswer(target, chain)
			if named {
				assert.Equal(t, want, got, "%s %q", o.Version(), names)
			} else {
				assert.Empty(t, want.NewError, "%s %q", o.Version(), names)
				assert.Equal(t, got.NewError == "", names[len(names)-1] == "b", "%s %q: %s", o.Version(), names, got.NewError)
			}
		}
	}
}
