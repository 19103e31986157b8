package cel

import (
	"testing"
)

// The tables below are kube-apiserver 1.37's results and error texts (the
// conformance module checks them against kube-apiserver's own libraries).

func TestURLsLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "isURL('https://example.com/p?q=1')", want: "true"},
		{expr: "isURL('/absolute/path')", want: "true"},
		{expr: "isURL('relative/path')", want: "false"},
		{expr: "isURL('')", want: "false"},
		{expr: "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y#frag').getScheme()", want: `"https"`},
		{expr: "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y#frag').getHost()", want: `"example.com:8443"`},
		{expr: "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y#frag').getHostname()", want: `"example.com"`},
		{expr: "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y#frag').getPort()", want: `"8443"`},
		{expr: "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y#frag').getEscapedPath()", want: `"/a%20b/c"`},
		{expr: "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y#frag').getQuery()", want: `{"x": ["1", "2"], "y": [""]}`},
		{expr: "url('http://[::1]:80/').getHostname()", want: `"::1"`},
		{expr: "url('https://a.b/c') == url('https://a.b/c')", want: "true"},
		{expr: "url('https://a.b/c') == url('https://a.b/d')", want: "false"},
		{expr: "url('https://example.com')", want: "kubernetes.URL(https://example.com)"},
		{expr: "url('relative')", err: `URL parse error during conversion from string: parse "relative": invalid URI for request`},
		{expr: "url('')", err: `URL parse error during conversion from string: parse "": empty url`},
		{expr: "url('http://a b.com/')", err: `URL parse error during conversion from string: parse "http://a b.com/": invalid character " " in host name`},
		{expr: "url('http://example.com:port/')", err: `URL parse error during conversion from string: parse "http://example.com:port/": invalid port ":port" after host`},
		{expr: "url('http://example.com/%zz')", err: `URL parse error during conversion from string: parse "http://example.com/%zz": invalid URL escape "%zz"`},
		{expr: "type(url('https://a.b')) == type(url('https://c.d'))", want: "true"},
	})
}

func TestRegexLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "'hello world 123'.find('[0-9]+')", want: `"123"`},
		{expr: "'hello'.find('x')", want: `""`},
		{expr: "'a1b22c333'.findAll('[0-9]+')", want: `["1", "22", "333"]`},
		{expr: "'a1b22c333'.findAll('[0-9]+', 2)", want: `["1", "22"]`},
		{expr: "'a1b22c333'.findAll('[0-9]+', 0)", want: `[]`},
		{expr: "'a1b22c333'.findAll('[0-9]+', -1)", want: `["1", "22", "333"]`},
		{expr: "s.find(s + '[')", err: "Illegal regex: error parsing regexp: missing closing ]: `[`"},
		{expr: "s.findAll('(' + s)", err: "Illegal regex: error parsing regexp: missing closing ): `(hello`"},
		{expr: "s.find('l+')", want: `"ll"`},
	})
}

func TestListsLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "[1, 2, 3].isSorted()", want: "true"},
		{expr: "l.isSorted()", want: "false"},
		{expr: "['a', 'b', 'b'].isSorted()", want: "true"},
		{expr: "[].isSorted()", want: "true"},
		{expr: "l.sum()", want: "6"},
		{expr: "[1.5, 2.5].sum()", want: "4"},
		{expr: "[1u, 2u].sum()", want: "3"},
		{expr: "[duration('1s'), duration('1m')].sum()", want: "duration(1m1s)"},
		{expr: "[].sum()", want: "0"},
		{expr: "[9223372036854775807, 1].sum()", err: "integer overflow"},
		{expr: "l.max()", want: "3"},
		{expr: "l.min()", want: "1"},
		{expr: "['b', 'a'].min()", want: `"a"`},
		{expr: "dyn([]).max()", err: "max called on empty list"},
		{expr: "dyn([]).min()", err: "min called on empty list"},
		{expr: "d.max()", want: "1"},
		{expr: "d.sum()", err: "no such overload"},
		{expr: "l.indexOf(1)", want: "1"},
		{expr: "[1, 2, 1].lastIndexOf(1)", want: "2"},
		{expr: "l.indexOf(9)", want: "-1"},
		{expr: "[1, 2].includes(2)", want: "true"},
		{expr: "[1, 2].includes(3)", want: "false"},
		{expr: "'abc'.includes('abc')", want: "true"},
		{expr: "d.includes('a')", want: "true"},
		{expr: "s.indexOf('l')", want: "2"},
	})
}

func TestQuantityLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "isQuantity('1.5Gi')", want: "true"},
		{expr: "isQuantity('1EiB')", want: "false"},
		{expr: "quantity('1Ki').asInteger()", want: "1024"},
		{expr: "quantity('1.5').isInteger()", want: "false"},
		{expr: "quantity('1.5').asInteger()", err: "cannot convert value to integer"},
		{expr: "quantity('100m').asApproximateFloat()", want: "0.1"},
		{expr: "sign(quantity('-5Mi'))", want: "-1"},
		{expr: "quantity('1Ki').compareTo(quantity('1024'))", want: "0"},
		{expr: "quantity('2').isGreaterThan(quantity('1'))", want: "true"},
		{expr: "quantity('2').isLessThan(quantity('1'))", want: "false"},
		{expr: "quantity('1').add(quantity('500m'))", want: "kubernetes.Quantity(1500m)"},
		{expr: "quantity('1').add(2)", want: "kubernetes.Quantity(3)"},
		{expr: "quantity('1').sub(quantity('2'))", want: "kubernetes.Quantity(-1)"},
		{expr: "quantity('1Gi').sub(1)", want: "kubernetes.Quantity(1073741823)"},
		{expr: "quantity('1') == quantity('1000m')", want: "true"},
		{expr: "quantity('1').add(1) == quantity('2')", want: "true"},
		{expr: "quantity('2') == quantity('1').add(1)", err: "no such overload"},
		{expr: "quantity('abc')", err: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		{expr: "quantity('')", err: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		{expr: "quantity('1ki')", err: "unable to parse quantity's suffix"},
	})
}

func TestIPLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "isIP('192.168.0.1')", want: "true"},
		{expr: "isIP('::ffff:1.2.3.4')", want: "false"},
		{expr: "ip('192.168.0.1').family()", want: "4"},
		{expr: "ip('2001:db8::1').family()", want: "6"},
		{expr: "ip.isCanonical('2001:db8::1')", want: "true"},
		{expr: "ip.isCanonical('2001:DB8::1')", want: "false"},
		{expr: "ip('127.0.0.1').isLoopback()", want: "true"},
		{expr: "ip('0.0.0.0').isUnspecified()", want: "true"},
		{expr: "ip('224.0.0.1').isLinkLocalMulticast()", want: "true"},
		{expr: "ip('fe80::1').isLinkLocalUnicast()", want: "true"},
		{expr: "ip('8.8.8.8').isGlobalUnicast()", want: "true"},
		{expr: "string(ip('2001:db8:0:0::1'))", want: `"2001:db8::1"`},
		{expr: "ip('1.2.3.4') == ip('1.2.3.4')", want: "true"},
		{expr: "ip('::ffff:1.2.3.4')", err: `IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed`},
		{expr: "ip('fe80::1%eth0')", err: `IP address "fe80::1%eth0" with zone value is not allowed`},
		{expr: "ip('01.2.3.4')", err: `IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero`},
		{expr: "ip.isCanonical('1.2.3')", err: `IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short`},
	})
}

func TestCIDRLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "isCIDR('10.0.0.0/8')", want: "true"},
		{expr: "isCIDR('10.0.0.0')", want: "false"},
		{expr: "cidr('10.0.0.1/8').ip()", want: "net.IP(10.0.0.1)"},
		{expr: "cidr('10.0.0.1/8').masked()", want: "net.CIDR(10.0.0.0/8)"},
		{expr: "cidr('2001:db8::/32').prefixLength()", want: "32"},
		{expr: "cidr('10.0.0.0/8').containsIP('10.1.2.3')", want: "true"},
		{expr: "cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", want: "false"},
		{expr: "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", want: "true"},
		{expr: "cidr('10.0.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", want: "false"},
		{expr: "string(cidr('10.0.0.1/8'))", want: `"10.0.0.1/8"`},
		{expr: "cidr('10.0.0.0/8').containsIP('bad')", err: "no such overload"},
		{expr: "cidr('10.0.0.0/8').containsCIDR('bad')", err: `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("bad"): no '/'`},
		{expr: "cidr('192.168.0.0/33')", err: `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range`},
		{expr: "cidr('::ffff:1.2.3.4/96')", err: `network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/96" is not allowed`},
	})
}

func TestFormatLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "format.dns1123Label().validate('my-name')", want: "none"},
		{expr: "format.dns1123Label().validate('My_Name')", want: `optional(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])`},
		{expr: "format.dns1123LabelPrefix().validate('abc-')", want: "none"},
		{expr: "format.named('uuid').value().validate('123e4567-e89b-12d3-a456-426614174000')", want: "none"},
		{expr: "format.uuid().validate('nope')", want: `optional(["does not match the UUID format"])`},
		{expr: "format.byte().validate('aGVsbG8=')", want: "none"},
		{expr: "format.byte().validate('aGVsbG8')", want: `optional(["invalid base64"])`},
		{expr: "format.date().validate('2024-02-29')", want: "none"},
		{expr: "format.date().validate('2023-02-29')", want: `optional(["invalid date"])`},
		{expr: "format.datetime().validate('2024-01-01T10:20:30.5+05:30')", want: "none"},
		{expr: "format.datetime().validate('2024-01-01T24:00:00Z')", want: `optional(["invalid datetime"])`},
		{expr: "format.uri().validate('relative')", want: `optional(["parse \"relative\": invalid URI for request"])`},
		{expr: "format.named('nope').hasValue()", want: "false"},
		{expr: "format.uuid() == format.uuid()", want: "true"},
		{expr: "format.uuid() == format.byte()", want: "false"},
	})
}

func TestSemverLibrary(t *testing.T) {
	runLibraryTable(t, []libraryCase{
		{expr: "isSemver('1.2.3-alpha.1+build')", want: "true"},
		{expr: "isSemver('v1.2')", want: "false"},
		{expr: "isSemver('v1.2', true)", want: "true"},
		{expr: "semver('v01.2', true).major()", want: "1"},
		{expr: "semver('1.2.3').minor()", want: "2"},
		{expr: "semver('1.2.3').patch()", want: "3"},
		{expr: "semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", want: "true"},
		{expr: "semver('1.0.0-beta.11').compareTo(semver('1.0.0-beta.2'))", want: "1"},
		{expr: "semver('1.0.0+a') == semver('1.0.0+b')", want: "true"},
		{expr: "semver('2.0.0').isGreaterThan(semver('10.0.0'))", want: "false"},
		{expr: "semver('1.2')", err: "No Major.Minor.Patch elements found"},
		{expr: "semver('01.2.3')", err: `Major number must not contain leading zeroes "01"`},
		{expr: "semver('1.2.3-01')", err: `Numeric PreRelease version must not contain leading zeroes "01"`},
		{expr: "semver('1.2.3+')", err: "Build meta data is empty"},
		{expr: "semver('1.2-beta', true)", err: "short version cannot contain PreRelease/Build meta data"},
		{expr: "semver('')", err: "Version string empty"},
		{expr: "semver('99999999999999999999.0.0')", err: `strconv.ParseUint: parsing "99999999999999999999": value out of range`},
	})
}

func TestJSONPatchLibrary(t *testing.T) {
	env, err := NewEnv(JSONPatch())
	if err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string]string{
		"jsonpatch.escapeKey('k8s.io/x~y')": `"k8s.io~1x~0y"`,
		"jsonpatch.escapeKey('plain')":      `"plain"`,
		"jsonpatch.escapeKey('~1/')":        `"~01~1"`,
		"jsonpatch.escapeKey('')":           `""`,
	} {
		got := evalBoth(t, env, expr, map[string]any{})
		if got.value != want {
			t.Errorf("%s = %s, want %s", expr, got.value, want)
		}
	}
	base, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	if _, iss := base.Compile("jsonpatch.escapeKey('a')"); iss.Err() == nil {
		t.Error("jsonpatch.escapeKey compiles in the base environment; kube-apiserver adds it for mutations only")
	}
}
