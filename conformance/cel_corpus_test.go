package conformance

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
)

// The differential corpus of the Kubernetes CEL libraries: every function of
// every library on a generated table of inputs, through variables (runtime
// paths) and through literals (constant folding, regex compilation at
// planning, literal validators).

// q quotes s as a CEL string literal.
func q(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func cases(exprs ...string) []celCase {
	out := make([]celCase, len(exprs))
	for i, e := range exprs {
		out[i] = celCase{expr: e}
	}
	return out
}

// withStrings returns one case per input: expr reading s1 (and s2 for the
// pairs).
func withStrings(inputs []string, exprs ...string) []celCase {
	var out []celCase
	for _, in := range inputs {
		for _, e := range exprs {
			out = append(out, celCase{expr: e, vars: map[string]any{"s1": in}})
		}
	}
	return out
}

func withStringPairs(left, right []string, exprs ...string) []celCase {
	var out []celCase
	for _, l := range left {
		for _, r := range right {
			for _, e := range exprs {
				out = append(out, celCase{expr: e, vars: map[string]any{"s1": l, "s2": r}})
			}
		}
	}
	return out
}

// literals returns, for each input, each template with %s replaced by the
// quoted input.
func literals(inputs []string, templates ...string) []celCase {
	var out []celCase
	for _, in := range inputs {
		for _, tpl := range templates {
			out = append(out, celCase{expr: strings.ReplaceAll(tpl, "%s", q(in))})
		}
	}
	return out
}

var urlInputs = []string{
	"https://kubernetes.io/docs/concepts?x=1&y=2#frag",
	"http://user:pass@host.example:8080/a%20b/c?q=1&q=2&r",
	"https://example.com",
	"https://example.com/",
	"HTTPS://EXAMPLE.COM:443/Path",
	"http://[::1]:80/x",
	"http://[fe80::1%25en0]:8080/",
	"http://192.168.0.1/",
	"mailto:someone@example.com",
	"ftp://files.example.com/pub/file.txt",
	"file:///etc/hosts",
	"urn:isbn:0451450523",
	"/relative/path",
	"relative/path",
	"",
	" ",
	"https://",
	"http://a b.com/",
	"http://example.com/%zz",
	"http://example.com:port/",
	"http://example.com:99999/",
	"http://example.com?",
	"http://example.com/p?a=1;b=2",
	"http://example.com/p?a=%zz",
	"://missing-scheme",
	"http://example.com/a/../b/./c",
	"http://example.com/#",
	"http://exa mple.com",
	"http://example.com/\u00e9t\u00e9",
	"https://example.com/p?q=a+b&x=%20",
	"*",
	"http:opaque",
}

func urlCases() []celCase {
	out := withStrings(urlInputs,
		"isURL(s1)",
		"url(s1)",
		"url(s1).getScheme()",
		"url(s1).getHost()",
		"url(s1).getHostname()",
		"url(s1).getPort()",
		"url(s1).getEscapedPath()",
		"url(s1).getQuery()",
		"url(s1) == url(s1)",
		"type(url(s1))",
		"url(s1).getQuery().size()",
	)
	out = append(out, literals(urlInputs[:10], "url(%s).getHost()", "isURL(%s)")...)
	out = append(out, withStringPairs(urlInputs[:6], urlInputs[:6], "url(s1) == url(s2)")...)
	out = append(out, cases(
		"url('https://a.b/c') == url('https://a.b/c')",
		"url('https://a.b/c') != url('https://a.b/d')",
		"[url('https://a.b')].size()",
		"dyn(url('https://a.b')) == 'https://a.b'",
		"url('https://a.b') in [url('https://a.b')]",
		"url(1)",
		"url('x', 'y')",
		"'https://a.b'.url()",
		"string(url('https://a.b'))",
	)...)
	return out
}

var regexStrings = []string{"", "abc", "aaa", "hello world 123", "ABC abc", "a1b22c333", "日本語テキスト", "line1\nline2", "x.y*z"}

var regexPatterns = []string{
	"", "a", "a+", "b*", "[a-c]+", "\\d+", "\\w+", "(?i)abc", "^$", ".*", "^a", "c$", "a{2,}", "[[:alpha:]]+",
	"\\pL+", "(a)(b)?", "(?P<n>x)", "\\.", "x|y|z", "(?m)^line\\d$", "(?s)1.l", "[^a-z ]+",
	"[", "a(b", "\\", "a{2,1}", "(?<n>x)", "*a", "\\8", "(?z)", "a**",
}

func regexCases() []celCase {
	var out []celCase
	for _, s := range regexStrings {
		for _, p := range regexPatterns {
			vars := map[string]any{"s1": s, "s2": p}
			for _, e := range []string{"s1.find(s2)", "s1.findAll(s2)", "s1.findAll(s2, 0)", "s1.findAll(s2, 1)", "s1.findAll(s2, -3)", "s1.findAll(s2, 2)", "s1.matches(s2)"} {
				out = append(out, celCase{expr: e, vars: vars})
			}
		}
	}
	for _, p := range regexPatterns {
		out = append(out, literals([]string{p}, "'hello world 123'.find(%s)", "'aaa bbb'.findAll(%s)", "'aaa bbb'.findAll(%s, 1)", "'abc'.matches(%s)")...)
	}
	out = append(out, cases(
		"'abc'.find()",
		"'abc'.findAll('a', 'b')",
		"'abc'.find(1)",
		"find('abc', 'a')",
		"dyn('abc').find('b')",
		"'a'.repeat(2)",
	)...)
	return out
}

func listCases() []celCase {
	lists := []string{
		"[]", "[1, 2, 3]", "[3, 1, 2]", "[1, 1, 1]", "[-5]", "[1u, 2u, 0u]", "[1.0, 2.5, -0.5]", "[1.0, 0.0/0.0]",
		"['b', 'a', 'c']", "['a', 'b']", "['', 'a']", "[true, false]", "[false, true]",
		"[duration('1s'), duration('2m'), duration('-1h')]", "[timestamp('2020-01-01T00:00:00Z'), timestamp('2019-01-01T00:00:00Z')]",
		"[b'a', b'b']", "[b'\\xff', b'']", "[[1], [2]]", "[{'a': 1}]",
		"[9223372036854775807, 1]", "[-9223372036854775808, -1]", "[18446744073709551615u, 1u]", "[1.7976931348623157e308, 1.7976931348623157e308]",
		"[duration('9223372036s'), duration('1s')]",
		"dyn([1, 'a'])", "dyn([1, 2u, 3.5])", "dyn([1, 1.0, 1u])", "dyn(['a', 1])", "dyn([[1], 2])", "dyn([null, 1])",
		"li", "ls", "ld", "dyn(li)", "dyn([])",
	}
	funcs := []string{"isSorted()", "sum()", "max()", "min()", "indexOf(1)", "lastIndexOf(1)", "indexOf('a')", "lastIndexOf('b')",
		"includes(1)", "includes('a')", "includes([1])", "indexOf(1.0)", "indexOf(1u)", "size()", "sort()", "distinct()", "reverse()", "flatten()", "slice(0, 1)"}
	var out []celCase
	vars := map[string]any{"li": []int64{5, 3, 3, 9}, "ls": []string{"x", "b", "x"}, "ld": []float64{2.5, -1, 2.5}}
	for _, l := range lists {
		for _, f := range funcs {
			out = append(out, celCase{expr: l + "." + f, vars: vars})
		}
	}
	// Heterogeneous lists at runtime (list literals must be homogeneous).
	hetero := [][]any{
		{int64(1), "a"}, {"a", int64(1)}, {int64(1), uint64(2), 3.5}, {int64(2), 1.0, uint64(1)}, {nil, int64(1)},
		{[]any{int64(1)}, int64(2)}, {map[string]any{}, map[string]any{}}, {true, int64(1)}, {int64(1)}, {},
		{"b", "a", "c"}, {[]byte("x"), "x"}, {types.Duration{Duration: time.Second}, int64(1)},
	}
	for _, h := range hetero {
		for _, f := range []string{"isSorted()", "sum()", "max()", "min()", "indexOf(1)", "lastIndexOf('a')", "includes(1)", "includes('a')", "sort()", "distinct()"} {
			out = append(out, celCase{expr: "dy." + f, vars: map[string]any{"dy": h}})
		}
	}
	out = append(out, cases(
		"'hello'.indexOf('l')", "'hello'.lastIndexOf('l')", "'hello'.indexOf('l', 3)", "'hello'.lastIndexOf('l', 2)",
		"'abc'.includes('a')", "1.includes(1)", "{'a': 1}.includes('a')", "dyn({'a': 1}).includes({'a': 1})",
		"dyn('abc').includes('abc')", "null.includes(null)",
		"[1, 2].sum() + [3u].sum() == 3", "[1,2,3].max() == 3 && [1,2,3].min() == 1",
		"[].sum()", "[].isSorted()", "dyn([]).max()", "dyn([]).min()",
		"dyn([duration('1s'), 1]).sum()", "dyn([1, duration('1s')]).sum()", "dyn(['a', 'b']).sum()",
		"dyn([1, 'a']).max()", "dyn(['a', 1]).isSorted()", "dyn([{}, {}]).isSorted()", "dyn([[1], [0]]).min()",
		"lists.range(5).sum()", "lists.range(0).max()", "[1, 2, 3].indexOf(4)",
		"[[1, 2], [3]].flatten().sum()", "dyn([1, 2]).indexOf('x')", "dyn(1).indexOf(1)",
	)...)
	return out
}

var quantityInputs = []string{
	"1", "0", "-1", "+1", "1Ki", "1.5Gi", "100m", "1e3", "1E3", "0.1", "1Mi", "1M", "1.5", "5e-3", "1n", "1u", "500k",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1Ei", "8Ei", "1EiB", "1T", "1P", "1E",
	"", " 1", "1 ", "abc", "1.2.3", "1ki", "1KI", "0x10", ".5", "5.", "1e", "1e-1000", "1e1000", "0.000000001",
	"123456789012345678901234567890", "1.0000000000000000001", "-0", "0.5m", "1m", "2Gi", "1024Mi", "3.14159",
}

func quantityCases() []celCase {
	out := withStrings(quantityInputs,
		"isQuantity(s1)",
		"quantity(s1)",
		"sign(quantity(s1))",
		"quantity(s1).asInteger()",
		"quantity(s1).isInteger()",
		"quantity(s1).asApproximateFloat()",
		"quantity(s1).add(1)",
		"quantity(s1).sub(1)",
		"quantity(s1).add(9223372036854775807)",
		"quantity(s1).add(quantity(s1))",
		"quantity(s1) == quantity(s1)",
		"quantity(s1).add(quantity('0')) == quantity(s1)",
		"quantity(s1) == quantity(s1).add(quantity('0'))",
	)
	pairs := []string{"1", "1000m", "1Ki", "1024", "-1", "0.5", "1e3", "2Gi", "1.5Gi"}
	out = append(out, withStringPairs(pairs, pairs,
		"quantity(s1).compareTo(quantity(s2))",
		"quantity(s1).isGreaterThan(quantity(s2))",
		"quantity(s1).isLessThan(quantity(s2))",
		"quantity(s1) == quantity(s2)",
		"quantity(s1).sub(quantity(s2))",
		"quantity(s1).add(quantity(s2)).asApproximateFloat()",
	)...)
	out = append(out, literals(quantityInputs[:12], "quantity(%s)", "isQuantity(%s)")...)
	out = append(out, cases(
		"quantity('1').add(quantity('2')) == quantity('3')",
		"sign(quantity('-5Mi'))",
		"quantity('1').sign()",
		"quantity('1').sub(9223372036854775807).sub(9223372036854775807).asInteger()",
		"type(quantity('1'))",
		"type(quantity('1').add(1))",
		"quantity('1') == dyn('1')",
		"dyn(quantity('1')) == 1",
		"[quantity('1')] == [quantity('1')]",
		"quantity(1)",
		"string(quantity('1'))",
		"quantity('1').isGreaterThan(semver('1.0.0'))",
		"dyn(quantity('2')).isGreaterThan(dyn(quantity('1')))",
	)...)
	return out
}

var ipInputs = []string{
	"192.168.0.1", "::1", "::ffff:1.2.3.4", "::ffff:192.0.2.1", "fe80::1%eth0", "1.2.3", "01.2.3.4", "2001:db8::",
	"2001:DB8::", "2001:0db8::1", "0.0.0.0", "::", "127.0.0.1", "127.1.2.3", "224.0.0.1", "ff02::1", "169.254.1.1",
	"fe80::1", "8.8.8.8", "", "1.2.3.4/24", "256.1.1.1", "1.2.3.4 ", "::ffff:0:0", "2001:db8:0:0:0:0:0:1", "10.0.0.1",
	"fd00::1", "::127.0.0.1", "1::2::3", "[::1]",
}

func ipCases() []celCase {
	out := withStrings(ipInputs,
		"isIP(s1)",
		"ip(s1)",
		"ip.isCanonical(s1)",
		"ip(s1).family()",
		"ip(s1).isUnspecified()",
		"ip(s1).isLoopback()",
		"ip(s1).isLinkLocalMulticast()",
		"ip(s1).isLinkLocalUnicast()",
		"ip(s1).isGlobalUnicast()",
		"string(ip(s1))",
		"ip(s1) == ip(s1)",
		"type(ip(s1))",
	)
	out = append(out, withStringPairs(ipInputs[:8], ipInputs[:8], "ip(s1) == ip(s2)")...)
	out = append(out, literals(ipInputs[:10], "ip(%s)", "ip.isCanonical(%s)", "ip(%s).family()")...)
	out = append(out, cases(
		"type(ip('1.2.3.4')) == net.IP",
		"ip('1.2.3.4') == dyn('1.2.3.4')",
		"dyn(ip('1.2.3.4')) == cidr('1.2.3.4/32')",
		"ip('1.2.3.4') in [ip('1.2.3.4')]",
		"ip(1)",
		"isIP(1)",
		"'1.2.3.4'.ip()",
		"dyn(ip('1.2.3.4')).family()",
	)...)
	return out
}

var cidrInputs = []string{
	"10.0.0.0/8", "10.0.0.1/8", "192.168.0.0/33", "192.168.0.0/32", "0.0.0.0/0", "::/0", "2001:db8::/32",
	"2001:db8::1/128", "::ffff:1.2.3.4/96", "1.2.3.4", "1.2.3.4/", "1.2.3.4/-1", "1.2.3.4/08", "fe80::1%eth0/64",
	"", "10.0.0.0/ 8", "300.0.0.0/8", "fd00::/8", "127.0.0.0/8",
}

func cidrCases() []celCase {
	out := withStrings(cidrInputs,
		"isCIDR(s1)",
		"cidr(s1)",
		"cidr(s1).ip()",
		"cidr(s1).masked()",
		"cidr(s1).prefixLength()",
		"string(cidr(s1))",
		"cidr(s1) == cidr(s1)",
		"cidr(s1).masked() == cidr(s1)",
		"type(cidr(s1))",
		"cidr(s1).ip().family()",
	)
	others := []string{"10.1.2.3", "10.0.0.0/16", "11.0.0.0/8", "2001:db8::5", "2001:db8::/48", "::ffff:10.0.0.1", "bad", "0.0.0.0/0", ""}
	out = append(out, withStringPairs(cidrInputs[:9], others,
		"cidr(s1).containsIP(s2)",
		"cidr(s1).containsIP(ip(s2))",
		"cidr(s1).containsCIDR(s2)",
		"cidr(s1).containsCIDR(cidr(s2))",
	)...)
	out = append(out, literals(cidrInputs[:8], "cidr(%s)", "cidr(%s).containsIP('10.0.0.1')", "cidr(%s).containsCIDR('10.0.0.0/24')")...)
	out = append(out, cases(
		"type(cidr('10.0.0.0/8')) == net.CIDR",
		"cidr('10.0.0.0/8') in [cidr('10.0.0.0/8')]",
		"cidr('10.0.0.0/8').ip() == ip('10.0.0.0')",
		"cidr(1)",
		"dyn(cidr('10.0.0.0/8')).containsIP('10.0.0.1')",
		"dyn(cidr('10.0.0.0/8')).ip()",
	)...)
	return out
}

var formatNames = []string{
	"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix", "dns1123SubdomainPrefix",
	"dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime",
}

var formatInputs = []string{
	"", "a", "abc", "a-b", "a-", "-a", "ab-", "A", "1a", "a.b", "a.b.c-", "a_b", "example.com/name", "example.com/", "/name",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 127) + "a", strings.Repeat("a", 254),
	"https://example.com/x", "not a uri", "/abs/path",
	"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000", "123e4567-e89b-12d3-a456-42661417400", "123e4567--e89b-12d3-a456-426614174000", "g23e4567-e89b-12d3-a456-426614174000",
	"aGVsbG8=", "aGVsbG8", "aGVsbA==", "aGVs", "a===", "====", "aGV=sbG8", "aGVsbG8=\n",
	"2024-02-29", "2023-02-29", "2024-13-01", "2024-1-01", "20240101",
	"2024-01-01T10:20:30Z", "2024-01-01t10:20:30z", "2024-01-01T10:20:30.123Z", "2024-01-01T10:20:30+05:30", "2024-01-01T24:00:00Z",
	"2024-01-01T10:60:00Z", "2024-01-01T10:20:30", "2024-01-01T10:20:30x5Z", "2024-01-01T10:20:30.Z", "2024-01-01 10:20:30Z",
	"2024-01-01T10:20:30Zt", "2024-01-01T10:20:30\u00e95z", "2024-01-01T10:20:30+0530", "2024-01-01TT10:20:30Z",
}

func formatCases() []celCase {
	var out []celCase
	for _, name := range formatNames {
		for _, in := range formatInputs {
			vars := map[string]any{"s1": in, "s2": name}
			out = append(out,
				celCase{expr: "format." + name + "().validate(s1)", vars: vars},
				celCase{expr: "format.named(s2).value().validate(s1)", vars: vars},
			)
		}
		out = append(out, cases(
			"format."+name+"()",
			"format."+name+"() == format."+name+"()",
			"format.named('"+name+"')",
			"format.named('"+name+"').hasValue()",
			"format."+name+"().validate('')",
		)...)
	}
	out = append(out, cases(
		"format.named('nope')",
		"format.named('DNS1123Label')",
		"format.named('')",
		"format.dns1123Label() == format.dns1035Label()",
		"type(format.uuid())",
		"format.named('uuid').value() == format.uuid()",
		"format.uuid().validate(1)",
		"format.nope()",
		"format.uuid(1)",
		"dyn(format.uuid()).validate('x')",
		"format.named(dyn('uri')).orValue(format.uuid()).validate('x')",
	)...)
	return out
}

var semverInputs = []string{
	"1.2.3", "v1.2.3", "1.2", "1", "v1", "01.2.3", "1.02.3", "1.2.03", "1.2.3-alpha", "1.2.3-alpha.1", "1.2.3-01",
	"1.2.3-0", "1.2.3+build", "1.2.3-alpha+build.1", "1.2.3+", "1.2.3-", "1.2.3-a..b", "1.2.3-\u00e4", "1.2.3+b\u00e4",
	"", "v", "1.2.3.4", "99999999999999999999.0.0", "1.99999999999999999999.0", "1.2.99999999999999999999",
	"1.2.3-99999999999999999999", "1.2-beta", "1.2+meta", "1.2.3 ", " 1.2.3", "00.0.0", "0.0.0", "1.a.3", "a.b.c",
	"1.2.3-alpha.beta.1", "1.2.3-rc.1+build.5", "001", "v00.01.0002", "1..3", "1.2.", ".1.2", "1.2.3-+", "1.2.3++",
}

func semverCases() []celCase {
	out := withStrings(semverInputs,
		"isSemver(s1)",
		"isSemver(s1, true)",
		"isSemver(s1, false)",
		"semver(s1)",
		"semver(s1, true)",
		"semver(s1, true).major()",
		"semver(s1, true).minor()",
		"semver(s1, true).patch()",
		"semver(s1) == semver(s1)",
		"type(semver(s1, true))",
	)
	pairs := []string{"1.0.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0+build", "2.0.0", "1.10.0", "1.2.10"}
	out = append(out, withStringPairs(pairs, pairs,
		"semver(s1).compareTo(semver(s2))",
		"semver(s1).isGreaterThan(semver(s2))",
		"semver(s1).isLessThan(semver(s2))",
		"semver(s1) == semver(s2)",
	)...)
	out = append(out, literals(semverInputs[:12], "semver(%s)", "semver(%s, true)", "isSemver(%s)")...)
	out = append(out, cases(
		"semver('1.0.0') == dyn('1.0.0')",
		"semver(1)",
		"semver('1.0.0', 1)",
		"dyn(semver('2.0.0')).isGreaterThan(dyn(semver('1.0.0')))",
		"dyn(semver('2.0.0')).isGreaterThan(dyn(quantity('1')))",
		"semver('1.0.0').isGreaterThan(quantity('1'))",
	)...)
	return out
}

func authzCases() []celCase {
	selectors := []string{
		"", "a=b", "a==b", "a!=b", "a=b,c!=d", "spec.nodeName=n1", "metadata.name", "a@b", "=b", "a=", "a in (x)",
		"a in (x,y)", "a notin (x)", "a", "!a", "a>1", "a<1", "a in (", "a=b,", ",", "a=b=c", "x\\,y=z", "a=\\", "  a = b  ",
	}
	var out []celCase
	for _, sel := range selectors {
		vars := map[string]any{"s1": sel}
		for _, e := range []string{
			"authorizer.group('').resource('pods').fieldSelector(s1).check('get').allowed()",
			"authorizer.group('').resource('pods').labelSelector(s1).check('list').reason()",
			"authorizer.group('').resource('pods').fieldSelector(s1).labelSelector(s1).check('watch').error()",
		} {
			out = append(out, celCase{expr: e, vars: vars})
		}
	}
	names := []string{"sa", "", "Sa", "a.b", "a_b", "-a", strings.Repeat("a", 64), strings.Repeat("a", 254)}
	for _, ns := range names {
		for _, name := range names {
			out = append(out, celCase{
				expr: "authorizer.serviceAccount(s1, s2).group('g').resource('r').check('get').allowed()",
				vars: map[string]any{"s1": ns, "s2": name},
			})
		}
	}
	for _, verb := range []string{"get", "list", "watch", "create", ""} {
		vars := map[string]any{"s1": verb}
		for _, e := range []string{
			"authorizer.path('/healthz').check(s1).allowed()",
			"authorizer.path('/healthz').check(s1).reason()",
			"authorizer.path('/healthz').check(s1).errored()",
			"authorizer.path('/healthz').check(s1).error()",
			"authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('n').check(s1).allowed()",
			"requestResource.check(s1).allowed()",
			"requestResource.subresource('').namespace('other').check(s1).reason()",
			"authorizer.serviceAccount('kube-system', 'builder').path('/metrics').check(s1).reason()",
		} {
			out = append(out, celCase{expr: e, vars: vars})
		}
	}
	out = append(out, cases(
		"authorizer.path('').check('get').allowed()",
		"authorizer.path(' ').check('get').allowed()",
		"authorizer.group('').resource(' ').check('get').allowed()",
		"authorizer.group(' ').resource('pods').check('get').allowed()",
		"authorizer == authorizer",
		"authorizer.path('/a') == authorizer.path('/a')",
		"requestResource.check('get') == requestResource.check('get')",
		"type(authorizer)",
		"type(authorizer.path('/a'))",
		"type(authorizer.group('g'))",
		"type(requestResource)",
		"type(requestResource.check('get'))",
		"string(authorizer)",
		"dyn(authorizer).path('/x').check('get').allowed()",
		"[authorizer].size()",
		"authorizer.check('get')",
		"authorizer.group('g').check('get')",
		"authorizer.path('/a').path('/b')",
		"authorizer.group('').resource('pods').check('get').allowed() || authorizer.group('').resource('pods').check('list').allowed()",
		"authorizer.group('').resource('pods').check('get').allowed() && authorizer.group('').resource('pods').check('list').allowed() && authorizer.group('').resource('pods').check('watch').allowed()",
		"authorizer.path('/a').check('get') != authorizer.path('/a').check('get')",
		"'%s'.format([authorizer])",
		"dyn(authorizer) == dyn(1)",
	)...)
	return out
}

// formatStringCases exercise ext.Strings' string.format on every verb, with
// Kubernetes values as arguments.
func formatStringCases() []celCase {
	verbs := []string{"%s", "%d", "%f", "%.2f", "%.0f", "%e", "%.3e", "%b", "%o", "%x", "%X", "%%", "%q", "%v", "%", "%5d", "%-5s", "%.x", "%z", "%.", "%.10000f", "%s %s", "%d%%"}
	args := []string{"1", "-12", "3u", "2.5", "-0.0", "1e100", "'str'", "b'by'", "true", "null", "[1, 2]", "{'a': 1}", "duration('1h2m')",
		"timestamp('2024-01-01T00:00:00Z')", "quantity('1Ki')", "ip('::1')", "cidr('10.0.0.0/8')", "url('https://a.b')", "semver('1.2.3')",
		"format.uuid()", "1.0/0.0", "0.0/0.0", "type(1)", "optional.of(1)", "dyn(1)", "18446744073709551615u"}
	var out []celCase
	for _, v := range verbs {
		for _, a := range args {
			out = append(out, celCase{expr: "'" + v + "'.format([" + a + "])"})
		}
		out = append(out, celCase{expr: "s1.format([dy])", vars: map[string]any{"s1": v, "dy": int64(7)}})
		out = append(out, celCase{expr: "'" + v + "'.format([])"})
	}
	return out
}

// extensionCases cover cel-go's extension libraries and language options as
// kube-apiserver enables them (costs included).
func extensionCases() []celCase {
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	vars := map[string]any{
		"s1": "Hello, World", "s2": "o", "s3": "", "n": int64(3), "u": uint64(7), "d": 2.5, "by": []byte("bytes"), "bo": true,
		"li": []int64{4, 1, 3}, "ls": []string{"b", "a", "c"}, "ld": []float64{1.5}, "m": map[string]string{"k": "v", "x": "y"},
		"dy": map[string]any{"a": []any{int64(1), "two", 3.0}, "b": nil, "t": types.Timestamp{Time: now}}, "dy2": []any{int64(1), uint64(1), 1.0},
	}
	exprs := []string{
		"s1.charAt(4)", "s1.charAt(100)", "s1.indexOf(s2)", "s1.indexOf(s2, 5)", "s1.indexOf(s2, 100)", "s1.lastIndexOf(s2)", "s1.lastIndexOf(s2, 3)",
		"s1.lowerAscii()", "s1.upperAscii()", "s1.replace(s2, 'X')", "s1.replace(s2, 'X', 1)", "s1.replace('', '-')", "s1.split(', ')", "s1.split('', 3)",
		"s1.substring(3)", "s1.substring(3, 5)", "s1.substring(5, 3)", "s1.trim()", "'  x '.trim()", "ls.join()", "ls.join('-')", "strings.quote(s1)",
		"s1.reverse()", "s1.format([1])", "'%d-%s'.format([n, s2])", "s3.size()", "s1.contains(s2)", "s1.startsWith('He')", "s1.endsWith('ld')", "s1.matches('W.r')",
		"sets.contains(li, [1])", "sets.equivalent(li, [1, 3, 4])", "sets.intersects(li, [9])", "sets.contains(dy2, [1])",
		"li.all(i, v, v > 0)", "m.exists(k, v, v == 'zz')", "li.transformList(i, v, v * 2)", "m.transformMap(k, v, v + k)", "li.existsOne(i, v, v == 3)",
		"m.transformMapEntry(k, v, {v: k})", "li.transformList(i, v, i > 0, v)",
		"lists.range(10)", "lists.range(-1)", "li.sort()", "ls.sort()", "ls.sortBy(x, x)", "li.distinct()", "[[1, [2]], [3]].flatten()", "[[1, [2]], [3]].flatten(2)",
		"li.reverse()", "li.slice(1, 3)", "li.slice(2, 1)", "li.slice(0, 10)", "dy2.distinct()", "[1, 2].sortBy(x, -x)",
		"optional.of(1).orValue(2)", "optional.none().orValue(2)", "m.?k.orValue('z')", "m.?zz.orValue('z')", "dy.?a[?5].hasValue()", "optional.ofNonZeroValue('')",
		"[?optional.none(), ?optional.of(1)]", "{?'a': optional.of(1)}", "dy.?a.optMap(x, x.size())", "optional.of(1).or(optional.of(2))",
		"1 < 1.5", "2u > 1", "1.0 == 1", "dyn(1) == dyn(1u)", "[1, 2u, 3.0]", "{1: 'a', 'b': 2}",
		"has(dy.a)", "has(dy.zzz)", "has(m.k)", "dy.b == null", "dy.t.getFullYear()", "dy.t + duration('1h') > dy.t",
		"duration('1x')", "timestamp('not a time')", "duration(s1)", "timestamp(s1)", "'a'.matches('[')", "s1.matches(s3 + '[')",
		"[1, 'a']", "{'a': 1, 'b': 'c'}", "dyn([1, 'a'])", "int('12')", "int(s1)", "uint(-1)", "double('x')", "string(by)", "bytes(s1)",
		"li.map(x, x * 2)", "li.filter(x, x > 1)", "li.exists_one(x, x > 3)", "li.map(x, x > 1, x)", "m.map(k, k).sort()",
		"9223372036854775807 + 1", "-9223372036854775808 - 1", "1 / 0", "1 % 0", "18446744073709551615u + 1u", "0u - 1u",
		"s1 + s2", "by + b'x'", "li + [1]", "size(s1)", "size(by)", "size(li)", "size(m)", "s1[0]", "li[10]", "m['nope']",
		"type(s1) == string", "type(dy) == map", "dyn(s1).size()", "bo ? n : u", "bo ? s1 : s2", "!bo || n > 2",
		"math.greatest(1, 2)", "base64.encode(by)", "cel.bind(x, 1, x)", "strings.quote()", "'x'.lastIndexOf()",
	}
	var out []celCase
	for _, e := range exprs {
		out = append(out, celCase{expr: e, vars: vars})
	}
	return out
}

// limitCases exceed the cost limit, or come close to it, in one call: the
// calls gatehouse checks before running them (lists.range, distinct, sort,
// sortBy, sets.*) at sizes kube-apiserver still evaluates quickly.
func limitCases() []celCase {
	return cases(
		"lists.range(999988)", "lists.range(999988).size()", "lists.range(999989)", "lists.range(999990)", "lists.range(1000000)",
		"lists.range(1000001)", "lists.range(-1)", "lists.range(-1).size()", "lists.range(1000001).distinct()",
		"lists.range(1000).distinct()", "lists.range(706).distinct()", "lists.range(707).distinct()", "lists.range(600).sort()",
		"lists.range(900).sort()", "lists.range(700).sortBy(x, -x)", "lists.range(800).sortBy(x, -x)",
		"sets.contains(lists.range(1000), lists.range(999))", "sets.contains(lists.range(1000), lists.range(1001))",
		"sets.equivalent(lists.range(700), lists.range(700))", "sets.intersects(lists.range(1000), lists.range(1000))",
		"lists.range(1000).map(x, string(x)).sort()", "lists.range(1000).map(x, string(x)).distinct()",
		"dyn(lists.range(1000)).distinct()", "[lists.range(800)].all(l, l.sort().size() > 0)",
		"lists.range(500).map(i, lists.range(500).distinct().size()).size()",
		"lists.range(3).map(i, lists.range(999000).size())", "[lists.range(5), lists.range(999990)].size()",
	)
}

// allLibraryCases is the whole corpus.
func allLibraryCases() []celCase {
	var out []celCase
	for _, gen := range []func() []celCase{
		urlCases, regexCases, listCases, quantityCases, ipCases, cidrCases, formatCases, semverCases, authzCases,
		formatStringCases, extensionCases, limitCases,
	} {
		out = append(out, gen()...)
	}
	return out
}
