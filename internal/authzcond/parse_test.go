package authzcond

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// parsedProto is the parsed AST as cel-go serializes it: nodes, ids,
// offsets, line offsets.
// wholeEnv is c's environment of every library.
func wholeEnv(t testing.TB, c *AuthorizationCompiler) *cel.Env {
	t.Helper()
	e, err := c.envs.Get(icel.AllLibraries)
	require.NoError(t, err)
	return e.env
}

// assertChecksAsWholeEnv compares c's check of expr, in the environment of
// the libraries it calls, with the whole environment's.
func assertChecksAsWholeEnv(t testing.TB, c *AuthorizationCompiler, expr string) {
	t.Helper()
	_, got, gotIss, err := c.check(expr)
	require.NoError(t, err)
	want, wantIss := wholeEnv(t, c).Compile(expr)
	require.Equal(t, wantIss.String(), gotIss.String(), "%q: issues", expr)
	if wantIss.Err() != nil {
		return
	}
	wantPB, err := cel.AstToCheckedExpr(want)
	require.NoError(t, err)
	gotPB, err := cel.AstToCheckedExpr(got)
	require.NoError(t, err)
	if d := cmpProto(wantPB, gotPB); d != "" {
		t.Fatalf("%q: checked ASTs differ (-whole +smaller):\n%s", expr, d)
	}
}

// TestCheckMatchesWholeEnvironment: the environment of the standard library
// and the libraries an expression calls gives the whole environment's
// checked AST, types, references and errors.
func TestCheckMatchesWholeEnvironment(t *testing.T) {
	c := compiler(t)
	exprs := append([]string{
		"request.extra['scopes'].exists(s, s == 'a')", "request.?resourceAttributes.namespace.orValue('') == ''",
		"request.user.indexOf('a') == 0", "request.groups.indexOf('a') == 0", "request.groups.sum() == 0",
		"string(request.user) == request.user", "request.user.matches('^a') && request.user.find('a') == 'a'",
		"isURL(request.user)", "quantity('1').isGreaterThan(quantity('0'))", "request.groups.all(i, g, g != '')",
		"optional.of(1).hasValue()", "lists.range(2).size() == 2", "request.resourceAttributes.fieldSelector.requirements.size() == 0",
	}, fastParseCorpus...)
	for _, expr := range exprs {
		assertChecksAsWholeEnv(t, c, expr)
	}
}

func parsedProto(t testing.TB, a *cel.Ast) proto.Message {
	t.Helper()
	pe, err := cel.AstToParsedExpr(a)
	require.NoError(t, err)
	return pe
}

// fastParseCorpus has every construct the fast parser reads, and some it
// leaves to cel-go.
var fastParseCorpus = []string{
	"has(request.resourceAttributes)",
	"request.resourceAttributes.namespace == 'kube-system'",
	"!('system:serviceaccounts:kube-system' in request.groups)",
	"!!true", "!!!x", "a || b || c || d || e", "a && b && c || d && (e || f) && g",
	"a ? b : c ? d : e", "(a ? b : c) ? d : e", "a || b ? c && d : e",
	"1 + 2 * 3 - 4 / 5 % 6", "(1 + 2) * 3", "a < b <= c > d >= e == f != g",
	"x in [1, 2, 3]", "[]", "[[], [1], ['a', \"b\"]]", "f()", "f(a, b, c)", "a.f()", "a.b.c(d.e, f[g])",
	"a[0][b['c']]", "a[?0]", "a.?b.?c.orValue(d)", "m[?'k'].or(optional.none())",
	"request.groups.exists(g, g.startsWith('system:'))", "[1, 2].all(i, i > 0)", "x.exists_one(y, y)",
	"x.map(y, y + 1)", "x.map(y, y > 0, y)", "x.filter(y, y)", "[1].all(i, v, i < v)",
	"x.transformList(i, v, v)", "x.transformMap(k, v, v)", "x.exists(a, x.all(b, a == b))",
	"has(a.b.c)", "opt.optMap(v, v + 1)", "opt.optFlatMap(v, optional.of(v))",
	"lists.range(3).sortBy(e, -e)", "cel.bind(x, 1, x)", "a.b.c.d.e.f.g.h",
	"  spaced\t(\n1\n,\r\n2 ) ", "null == null", "true != false", "'' == \"\"",
	"dyn(request).size() == 5", "a.namespace == b.if.package", "a.while()", "x.exists(e, e.as)", "type(x) == map", "int('1') + uint(1)", "x.all(y, y)", "x.all(y)",
	// Left to cel-go.
	"-1", "a - -1", "1.5", "0x10", "1u", "'a\\nb'", "r'raw'", "b'bytes'", "'''triple'''", "{'a': 1}",
	"Msg{f: 1}", ".a", "a.`b`", "// comment\ntrue", "'ü'", "a.if", "if", "a.in", "a = b", "a &",
	"[1, 2,]", "[?a]", "99999999999999999999", "has(a)", "x.all(1, y)", "1 +", "(a", "a)",
}

func TestFastParseMatchesCELGo(t *testing.T) {
	c := compiler(t)
	fast := 0
	for _, expr := range fastParseCorpus {
		t.Run(expr, func(t *testing.T) {
			got, ok := c.parser.Parse(expr)
			want, iss := wholeEnv(t, c).Parse(expr)
			if !ok {
				return // cel-go's parser decides
			}
			fast++
			require.NoError(t, iss.Err(), "the fast parser accepts what cel-go rejects")
			assert.Empty(t, cmpProto(parsedProto(t, want), parsedProto(t, got)))
			assert.Equal(t, want.Source().Content(), got.Source().Content())
		})
	}
	assert.Greater(t, fast, 40, "the fast parser reads the common constructs")
}

func cmpProto(want, got proto.Message) string {
	if proto.Equal(want, got) {
		return ""
	}
	return protocmpDiff(want, got)
}

func protocmpDiff(want, got proto.Message) string {
	return cmp.Diff(want, got, protocmp.Transform())
}

// The fast parser's ASTs check and evaluate as cel-go's: compile errors
// point at the same places.
func TestFastParseErrorsMatchCELGo(t *testing.T) {
	c := compiler(t)
	for _, expr := range []string{"request.foo == 1", "request.user == 1", "a.b(c)", "has(request.nope)", "[1, 'a']", "request.groups.exists(g, g.x)"} {
		a, ok := c.parser.Parse(expr)
		require.True(t, ok, expr)
		_, got := wholeEnv(t, c).Check(a)
		_, want := wholeEnv(t, c).Compile(expr)
		require.NotNil(t, got, expr)
		assert.Equal(t, want.String(), got.String(), expr)
	}
	_ = ast.MaxID
}

// FuzzFastParse: whenever the fast parser reads an expression, its AST is
// cel-go's.
func FuzzFastParse(f *testing.F) {
	for _, e := range fastParseCorpus {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		c := compiler(t)
		got, ok := c.parser.Parse(expr)
		if !ok {
			return
		}
		want, iss := wholeEnv(t, c).Parse(expr)
		if iss.Err() != nil {
			t.Fatalf("the fast parser accepts %q, cel-go rejects it: %v", expr, iss.Err())
		}
		if d := cmpProto(parsedProto(t, want), parsedProto(t, got)); d != "" {
			t.Fatalf("%q: ASTs differ (-cel-go +fast):\n%s", expr, d)
		}
		assertChecksAsWholeEnv(t, c, expr)
	})
}
