package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// exprGen generates random CEL expressions over the corpus variables: every
// construct whose runtime cost cel-go tracks in its own way (attributes,
// qualifiers, presence tests, optional selection, ternaries, logical
// operators, comprehensions, constructors, calls, constant folding, set
// membership). Many are ill-typed or fail at runtime; both sides must agree
// on that too.
type exprGen struct {
	r     *rand.Rand
	depth int
	vars  []string
}

func (g *exprGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *exprGen) leaf() string {
	switch g.r.IntN(9) {
	case 0:
		return fmt.Sprint(g.r.IntN(7) - 2)
	case 1:
		return g.pick("'a'", "'xy'", "''", "'hello world'")
	case 2:
		return g.pick("true", "false", "null")
	case 3:
		return g.pick("1u", "2.5", "b'z'", "duration('1s')")
	default:
		return g.pick(g.vars...)
	}
}

func (g *exprGen) expr() string {
	if g.depth > 4 || g.r.IntN(4) == 0 {
		return g.leaf()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(26) {
	case 0:
		return "(" + g.expr() + " || " + g.expr() + ")"
	case 1:
		return "(" + g.expr() + " && " + g.expr() + ")"
	case 2:
		return "(" + g.expr() + " ? " + g.expr() + " : " + g.expr() + ")"
	case 3:
		return "(" + g.expr() + " ? " + g.expr() + " : " + g.expr() + ")." + g.pick("a", "k", "size()")
	case 4:
		return g.expr() + "[" + g.expr() + "]"
	case 5:
		return "has(" + g.pick("dy", "m", "dy.a", "dy2") + "." + g.pick("a", "k", "b", "zz") + ")"
	case 6:
		return g.expr() + ".?" + g.pick("a", "k", "zz") + ".orValue(" + g.expr() + ")"
	case 7:
		return "[" + g.expr() + ", " + g.expr() + "]"
	case 8:
		return "{" + g.expr() + ": " + g.expr() + "}"
	case 9:
		return g.pick("li", "ls", "dy2", "[1, 2, 3]", "lists.range(4)") + "." + g.pick("all", "exists", "exists_one", "map", "filter") + "(x, " + strings.ReplaceAll(g.expr(), "s2", "x") + ")"
	case 10:
		return g.pick("m", "dy", "li") + "." + g.pick("all", "exists", "transformList", "transformMap") + "(k, v, " + strings.ReplaceAll(g.expr(), "s2", "v") + ")"
	case 11:
		return g.expr() + " " + g.pick("==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%") + " " + g.expr()
	case 12:
		return g.expr() + " in " + g.pick("[1, 2, 3]", "['a', 'b']", "[]", "li", "m", "{'k': 1}", "[1, 'a']")
	case 13:
		return "size(" + g.expr() + ")"
	case 14:
		return "!" + g.expr()
	case 15:
		return g.pick("int", "string", "double", "uint", "bool", "dyn", "type") + "(" + g.expr() + ")"
	case 16:
		return g.expr() + "." + g.pick("contains", "startsWith", "endsWith", "matches", "find", "indexOf") + "(" + g.expr() + ")"
	case 17:
		return g.expr() + "." + g.pick("size()", "isSorted()", "sum()", "max()", "lowerAscii()", "split(',')", "join()", "sort()", "distinct()", "reverse()")
	case 18:
		return "dy." + g.pick("a", "b", "t", "zz") + g.pick("", "[0]", "[1]", ".x", "[?0]", ".?x")
	case 19:
		return "m." + g.pick("k", "x", "zz") + g.pick("", ".size()", " + 'q'")
	case 20:
		return "optional." + g.pick("of", "ofNonZeroValue") + "(" + g.expr() + ")." + g.pick("or(optional.none())", "orValue(1)", "hasValue()", "value()")
	case 21:
		return "[" + g.expr() + ", " + g.expr() + "]." + g.pick("map(x, [x, x])", "all(x, x != null)", "exists(x, x == 1)", "sortBy(x, x)")
	case 22:
		return "'%s'.format([" + g.expr() + "])"
	case 23:
		return g.pick("quantity('1').add(", "ip('::1') == ip(", "url('http://a').getHost() + ", "semver('1.0.0').compareTo(", "cidr('10.0.0.0/8').containsIP(") + g.expr() + ")"
	case 24:
		return "{'a': " + g.expr() + ", 'b': [" + g.expr() + "]}." + g.pick("a", "b", "?a", "zz")
	default:
		return "lists.range(" + g.pick("3", "0", "n") + ").map(i, " + g.expr() + ").size()"
	}
}

// typedGen generates random expressions that are mostly well typed: each
// production returns an expression of the requested type.
type typedGen struct {
	r     *rand.Rand
	depth int
	// iter is the name of the innermost comprehension variable (an int),
	// or "".
	iter string
}

func (g *typedGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *typedGen) deeper() bool { return g.depth < 5 && g.r.IntN(3) != 0 }

func (g *typedGen) boolean() string {
	if !g.deeper() {
		return g.pick("true", "false", "bo", "has(m.k)", "has(dy.a)", "has(dy.zz)", "'k' in m", "n > 2")
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(12) {
	case 0:
		return "(" + g.boolean() + " && " + g.boolean() + ")"
	case 1:
		return "(" + g.boolean() + " || " + g.boolean() + ")"
	case 2:
		return "!" + g.boolean()
	case 3:
		return g.integer() + " " + g.pick("<", "<=", "==", "!=", ">") + " " + g.integer()
	case 4:
		return g.str() + " " + g.pick("==", "<", "!=") + " " + g.str()
	case 5:
		return g.list() + "." + g.pick("exists", "all", "exists_one") + "(x, " + g.withIter("x", g.boolean) + ")"
	case 6:
		return g.integer() + " in " + g.list()
	case 7:
		return "(" + g.boolean() + " ? " + g.boolean() + " : " + g.boolean() + ")"
	case 8:
		return g.str() + "." + g.pick("startsWith", "endsWith", "contains", "matches") + "(" + g.str() + ")"
	case 9:
		return g.list() + ".isSorted()"
	case 10:
		return "m.?" + g.pick("k", "zz") + ".hasValue()"
	default:
		return "sets.contains(" + g.list() + ", " + g.list() + ")"
	}
}

func (g *typedGen) withIter(name string, f func() string) string {
	saved := g.iter
	g.iter = name
	defer func() { g.iter = saved }()
	return f()
}

func (g *typedGen) integer() string {
	if !g.deeper() {
		leaves := []string{"0", "1", "-3", "n", "size(s1)", "li[0]"}
		if g.iter != "" {
			leaves = append(leaves, g.iter, g.iter)
		}
		return g.pick(leaves...)
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(9) {
	case 0:
		return "(" + g.integer() + " " + g.pick("+", "-", "*", "/", "%") + " " + g.integer() + ")"
	case 1:
		return "(" + g.boolean() + " ? " + g.integer() + " : " + g.integer() + ")"
	case 2:
		return "size(" + g.list() + ")"
	case 3:
		return g.list() + "." + g.pick("sum()", "max()", "min()", "indexOf(1)", "lastIndexOf(2)")
	case 4:
		return g.list() + "[" + g.integer() + "]"
	case 5:
		return g.str() + ".size()"
	case 6:
		return "int(" + g.pick("d", "u", "'7'", "s1") + ")"
	case 7:
		return "quantity('" + g.pick("1", "2Ki", "1500m") + "').compareTo(quantity('1'))"
	default:
		return g.str() + ".indexOf(" + g.str() + ")"
	}
}

func (g *typedGen) str() string {
	if !g.deeper() {
		return g.pick("''", "'a'", "'hello world'", "s1", "s2", "m.k", "ls[0]", "string(n)")
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(8) {
	case 0:
		return g.str() + " + " + g.str()
	case 1:
		return "(" + g.boolean() + " ? " + g.str() + " : " + g.str() + ")"
	case 2:
		return g.str() + "." + g.pick("lowerAscii()", "upperAscii()", "trim()", "substring(1)", "replace('l', 'L')", "find('[a-z]+')")
	case 3:
		return "ls.join(" + g.str() + ")"
	case 4:
		return "'%s-%d'.format([" + g.str() + ", " + g.integer() + "])"
	case 5:
		return "m.?" + g.pick("k", "zz") + ".orValue(" + g.str() + ")"
	case 6:
		return "string(" + g.integer() + ")"
	default:
		return "url('https://a.b/' + " + g.str() + ").getEscapedPath()"
	}
}

func (g *typedGen) list() string {
	if !g.deeper() {
		return g.pick("[]", "[1, 2, 3]", "li", "[3, 1]", "lists.range(3)")
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(7) {
	case 0:
		return "[" + g.integer() + ", " + g.integer() + "]"
	case 1:
		return g.list() + ".map(x, " + g.withIter("x", g.integer) + ")"
	case 2:
		return g.list() + ".filter(x, " + g.withIter("x", g.boolean) + ")"
	case 3:
		return g.list() + " + " + g.list()
	case 4:
		return g.list() + "." + g.pick("sort()", "distinct()", "reverse()")
	case 5:
		return "lists.range(" + g.pick("0", "4", "n") + ")"
	default:
		return "(" + g.boolean() + " ? " + g.list() + " : " + g.list() + ")"
	}
}

// TestCELCostsMatchKubeAPIServerOnTypedRandomExpressions compares results,
// errors and costs on random well-typed expressions.
func TestCELCostsMatchKubeAPIServerOnTypedRandomExpressions(t *testing.T) {
	vars := extensionCases()[0].vars
	g := &typedGen{r: rand.New(rand.NewPCG(7, 11))}
	var cs []celCase
	for range 3000 {
		var e string
		switch g.r.IntN(4) {
		case 0:
			e = g.integer()
		case 1:
			e = g.str()
		case 2:
			e = g.list()
		default:
			e = g.boolean()
		}
		cs = append(cs, celCase{expr: e, vars: vars})
	}
	compareCEL(t, cs, oursSide(t), boundedSide(t))
}

// TestCELCostsMatchKubeAPIServerOnRandomExpressions compares results, errors
// and runtime costs on random expressions, through cel-go's program and
// through gatehouse's bounded Program.
func TestCELCostsMatchKubeAPIServerOnRandomExpressions(t *testing.T) {
	vars := extensionCases()[0].vars
	g := &exprGen{r: rand.New(rand.NewPCG(1, 37)), vars: []string{"s1", "s2", "s3", "n", "u", "d", "bo", "li", "ls", "m", "dy", "dy2", "by"}}
	var cs []celCase
	for range 4000 {
		cs = append(cs, celCase{expr: g.expr(), vars: vars})
	}
	compareCEL(t, cs, oursSide(t), boundedSide(t))
}
