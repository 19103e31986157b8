package authzcond

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestNativeEligibility(t *testing.T) {
	tests := []struct {
		expr   string
		native bool
	}{
		{"has(request.resourceAttributes)", true},
		{"has(request.nonResourceAttributes.path)", true},
		{"has(request.user)", true},
		{"request.resourceAttributes.namespace == 'kube-system'", true},
		{"'kube-system' != request.resourceAttributes.namespace", true},
		{"request.user == request.uid", true},
		{"!('system:serviceaccounts:kube-system' in request.groups)", true},
		{"request.resourceAttributes.verb in ['get', 'list', 'watch']", true},
		{"'scopes' in request.extra", true},
		{"request.user.startsWith('system:') || request.nonResourceAttributes.path.endsWith('z')", true},
		{"request.resourceAttributes.name.contains('x') && true", true},
		{"false", true},
		{"request.groups.exists(g, g.startsWith('system:serviceaccounts:'))", true},
		{"request.groups.all(g, g != 'system:masters' && !(g in ['a', request.user]))", false},
		{"request.groups.all(g, g != 'system:masters' || g.endsWith(':admin'))", true},
		// Native in shape, but its cost is not proven within the limit for
		// requests within the size bound: tracked.
		{"request.groups.all(g, g != 'system:masters' || request.user == g)", false},
		{"!request.groups.exists(g, g == 'system:masters') && has(request.resourceAttributes)", true},
		// A comprehension over something else, nested, or of two variables.
		{"request.groups.exists(g, request.groups.exists(h, g == h))", false},
		{"request.extra.exists(k, k == 'scopes')", false},
		{"request.groups.exists_one(g, g == 'a')", false},
		{"request.groups.exists(i, g, g == 'a')", false},
		{"request.groups.filter(g, g == 'a').size() == 0", false},
		// Left to cel-go (the fast plan or the tracked program).
		{"has(request.resourceAttributes.fieldSelector)", false},
		{"request.resourceAttributes.verb in ['get', request.user]", false},
		{"request.?resourceAttributes.namespace.orValue('') == ''", false},
		{"request.user.startsWith('system:') && size(request.groups) > 2", false},
		{"request.extra['scopes'][0] == 'a'", false},
		{"request.user.lowerAscii() == 'a'", false},
		{"dyn(request.user) == 'a'", false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			m := compile(t, tt.expr)
			assert.Equal(t, tt.native, m.conditions[0].native != nil)
			assert.Equal(t, tt.native, m.allNative)
		})
	}
}

// nativeGen draws expressions of the native shapes, and some that are not,
// from fuzzed bytes.
type nativeGen struct {
	b    []byte
	i    int
	iter bool // within a comprehension over request.groups, whose element is g
}

func (g *nativeGen) next(n int) int {
	if g.i >= len(g.b) {
		return 0
	}
	v := int(g.b[g.i]) % n
	g.i++
	return v
}

var nativeGenStrings = []string{
	"request.user", "request.uid",
	"request.resourceAttributes.namespace", "request.resourceAttributes.verb", "request.resourceAttributes.group",
	"request.resourceAttributes.version", "request.resourceAttributes.resource", "request.resourceAttributes.subresource",
	"request.resourceAttributes.name", "request.nonResourceAttributes.path", "request.nonResourceAttributes.verb",
	"''", "'kube-system'", "'alice'", "'system:'", "'get'", "'a'", "'/healthz'", "'é'", "'scopes'", "'dev'",
}

var nativeGenPresence = []string{
	"request.resourceAttributes", "request.nonResourceAttributes", "request.user", "request.uid", "request.groups", "request.extra",
	"request.resourceAttributes.namespace", "request.resourceAttributes.name", "request.resourceAttributes.fieldSelector",
	"request.nonResourceAttributes.path", "request.nonResourceAttributes.verb",
}

func (g *nativeGen) str() string {
	if g.iter && g.next(3) == 0 {
		return "g"
	}
	return nativeGenStrings[g.next(len(nativeGenStrings))]
}

func (g *nativeGen) cond(depth int) string {
	n := 12
	if depth > 3 {
		n = 8 // leaves only
	}
	switch g.next(n) {
	case 0:
		return "has(" + nativeGenPresence[g.next(len(nativeGenPresence))] + ")"
	case 1:
		return g.str() + " == " + g.str()
	case 2:
		return g.str() + " != " + g.str()
	case 3:
		switch g.next(4) {
		case 0:
			return g.str() + " in request.groups"
		case 1:
			return g.str() + " in request.extra"
		case 2:
			return g.str() + " in [" + g.str() + ", " + g.str() + "]"
		default:
			return g.str() + " in []"
		}
	case 4:
		return g.str() + "." + []string{"startsWith", "endsWith", "contains"}[g.next(3)] + "(" + g.str() + ")"
	case 5:
		return []string{"true", "false"}[g.next(2)]
	case 6:
		// Not native: cel-go decides, and may fail.
		return []string{"size(request.groups) > 1", "request.extra['scopes'][0] == 'a'", "request.groups[0] == 'dev'",
			"request.resourceAttributes.?name.orValue('') == ''", "int(request.uid) == 1"}[g.next(5)]
	case 7:
		return g.str() + " == " + g.str()
	case 8:
		return "!(" + g.cond(depth+1) + ")"
	case 9:
		return "(" + g.cond(depth+1) + ") && (" + g.cond(depth+1) + ")"
	case 10:
		return "(" + g.cond(depth+1) + ") || (" + g.cond(depth+1) + ")"
	default:
		if g.iter {
			return "!(" + g.cond(depth+1) + ")"
		}
		g.iter = true
		p := g.cond(depth + 1)
		g.iter = false
		return "request.groups." + []string{"exists", "all"}[g.next(2)] + "(g, " + p + ")"
	}
}

// checkNativeAgainstCELGo compiles a generated expression and compares, on
// a request, each native condition with kube-apiserver's tracked program,
// and Match (native) with Explain (tracked).
func checkNativeAgainstCELGo(t *testing.T, c *AuthorizationCompiler, exprs []string, spec *authorizationv1.SubjectAccessReviewSpec) {
	t.Helper()
	m, errs := c.Compile(exprs, field.NewPath("matchConditions"))
	if len(errs) > 0 {
		return // duplicates, type errors ('' in request.extra is fine; int == string is not)
	}
	ctx := context.Background()
	for _, cond := range m.conditions {
		if cond.native == nil {
			continue
		}
		v, ok := cond.native(nativeEnv{s: spec})
		if !ok {
			continue
		}
		act := m.activations.Get().(*authzActivation)
		act.request.reset(spec, nil, m.uses)
		val, _, err := cond.tracked.Eval(ctx, act)
		act.request.reset(nil, nil, selectorUse{})
		m.activations.Put(act)
		if err != nil {
			t.Fatalf("%q: native %v, cel-go failed: %v", cond.expression, v, err)
		}
		if val != types.Bool(v) {
			t.Fatalf("%q: native %v, cel-go %v", cond.expression, v, val)
		}
	}
	matched, err := m.Match(ctx, spec)
	tracked, _, trackedErr := m.Explain(ctx, spec)
	if matched != tracked || errString(err) != errString(trackedErr) {
		t.Fatalf("%q: Match (%v, %v), Explain (%v, %v)", exprs, matched, err, tracked, trackedErr)
	}
}

// FuzzNativeConditions compares native conditions with cel-go's tracked
// evaluation, the exact path, on fuzzed expressions of the native shapes and
// fuzzed requests.
func FuzzNativeConditions(f *testing.F) {
	f.Add([]byte{9, 0, 0, 1, 2, 0, 3, 0, 18, 12}, []byte{3, 17}, "alice|u1|dev,ops|scopes|a,b|kube-system|get|apps|pods|web|a=b|k|v", uint8(0x3f))
	f.Add([]byte{10, 1, 11, 18, 8, 3, 0, 17}, []byte{5, 1}, "system:node|||x|y|/healthz|get", uint8(0x09))
	f.Add([]byte{4, 9, 16, 0, 4, 3, 2}, []byte{}, "é|é|é,é|é|é|é|é|é|é|é", uint8(0x07))
	c, err := NewAuthorizationCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, second []byte, request string, shape uint8) {
		exprs := []string{(&nativeGen{b: first}).cond(0)}
		if len(second) > 0 {
			exprs = append(exprs, (&nativeGen{b: second}).cond(0))
		}
		checkNativeAgainstCELGo(t, c, exprs, fuzzSpec(request, shape))
	})
}

// TestNativeConditionsMatchCELGo is FuzzNativeConditions on random inputs.
func TestNativeConditionsMatchCELGo(t *testing.T) {
	c := compiler(t)
	rnd := rand.New(rand.NewSource(3221))
	requests := []string{
		"alice|u1|dev,ops|scopes|a,b|kube-system|get|apps|pods|web|a=b|k|v",
		"system:node|||x|y|/healthz|get",
		"|||||||||",
		"é|é|é,é|é|é|é|é|é|é|é",
		"dev|dev|dev|dev|dev|dev|dev|dev|dev|dev",
	}
	native, decided, comprehensions := 0, 0, 0
	for range 3000 {
		b := make([]byte, 24)
		rnd.Read(b)
		expr := (&nativeGen{b: b}).cond(0)
		m, errs := c.Compile([]string{expr}, field.NewPath("matchConditions"))
		if len(errs) == 0 && m.conditions[0].native != nil {
			native++
			if strings.Contains(expr, "request.groups.exists(") || strings.Contains(expr, "request.groups.all(") {
				comprehensions++
			}
		}
		for _, r := range requests {
			spec := fuzzSpec(r, uint8(rnd.Intn(64)))
			if m != nil && m.conditions[0].native != nil {
				if _, ok := m.conditions[0].native(nativeEnv{s: spec}); ok {
					decided++
				}
			}
			checkNativeAgainstCELGo(t, c, []string{expr}, spec)
		}
	}
	t.Logf("%d of 3000 expressions native (%d with a comprehension), %d native decisions", native, comprehensions, decided)
	require.Greater(t, native, 1000)
	require.Greater(t, comprehensions, 100)
	require.Greater(t, decided, 3000)
}

// A native comprehension leaves a cancelled context to cel-go, whose
// comprehension stops within 100 iterations; a live one it decides.
func TestNativeComprehensionContextCancellation(t *testing.T) {
	groups := make([]string, 300)
	for i := range groups {
		groups[i] = fmt.Sprint("group-", i)
	}
	spec := &authorizationv1.SubjectAccessReviewSpec{User: "jane", Groups: groups}
	m := compile(t, "request.groups.all(g, g.startsWith('group-'))")
	require.NotNil(t, m.conditions[0].native)
	ok, err := m.Match(context.Background(), spec)
	assert.True(t, ok)
	assert.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, err = m.Match(ctx, spec)
	assert.False(t, ok)
	assert.EqualError(t, err, "cel evaluation error: expression 'request.groups.all(g, g.startsWith('group-'))' resulted in error: operation interrupted: context canceled")
	_, _, trackedErr := m.Explain(ctx, spec)
	assert.Equal(t, errString(trackedErr), errString(err))

	// Few elements: cel-go does not look at the context before the 100th.
	spec.Groups = groups[:3]
	ok, err = m.Match(ctx, spec)
	assert.True(t, ok)
	assert.NoError(t, err)
}
