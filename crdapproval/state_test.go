package crdapproval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// longURL is an approval URL of more than 300 KiB, beyond the 256 KiB that
// kube-apiserver allows for all annotations together.
var longURL = "https://github.com/kubernetes/enhancements/pull/1111?" + strings.Repeat("a", 300<<10)

func TestStateOfValue(t *testing.T) {
	tests := []struct {
		value string
		want  State
	}{
		// Missing: absent or empty. Whitespace is not empty.
		{"", Missing},
		{" ", Invalid},
		{"\t", Invalid},
		{"\n", Invalid},

		// Unapproved: the prefix "unapproved", case-sensitive, no separator
		// needed, checked before the URL.
		{"unapproved", Unapproved},
		{"unapprovedfoo", Unapproved},
		{"unapproved, experimental-only", Unapproved},
		{"unapproved, experimental-only; please get an approval from Kubernetes API reviewers", Unapproved},
		{"unapproved://github.com/x", Unapproved},
		{"unapproved\x00\xff", Unapproved},
		{"unapproved" + strings.Repeat(" ", 1<<20), Unapproved},
		{"Unapproved", Invalid},
		{"UNAPPROVED", Invalid},
		{" unapproved", Invalid},
		{"\tunapproved", Invalid},
		{"unapprove", Invalid},
		{"not unapproved", Invalid},
		{"un-approved", Invalid},
		{"approved", Invalid},

		// Approved: ParseRequestURI with a scheme and a host.
		{"https://github.com/kubernetes/enhancements/pull/1111", Approved},
		{"https://github.com/kubernetes/kubernetes/issues/12345", Approved},
		{"http://x", Approved},
		{"ftp://example.com/a", Approved},
		{"foo://bar", Approved},
		{"HTTPS://EXAMPLE.COM", Approved},
		{"https://user:pw@example.com", Approved},
		{"https://example.com?q=1", Approved},
		{"https://example.com/#frag", Approved},
		{"https://example.com/a b", Approved},
		{"https://example.com/a ", Approved}, // a trailing space in the path is fine, but not after the host
		{"https://example.com/\t", Invalid},  // a control character is not
		{"https://[::1]/x", Approved},
		{"https://example.com:8443/x", Approved},
		{"https://example.com:/x", Approved},
		{"git+ssh://host/repo", Approved},
		{"https://a", Approved},
		{"https://example.com/\xff", Approved},
		{longURL, Approved},

		// Invalid: no scheme, no host, or not a URL.
		{"github.com/kubernetes/enhancements/pull/1111", Invalid},
		{"www.github.com", Invalid},
		{"https://", Invalid},
		{"https:///path", Invalid},
		{"http:///path", Invalid},
		{"/", Invalid},
		{"/kubernetes/enhancements/pull/1111", Invalid},
		{"//example.com/x", Invalid},
		{"https:example.com", Invalid},
		{"https:/example.com", Invalid},
		{"mailto:a@b.c", Invalid},
		{"urn:isbn:0451450523", Invalid},
		{"https://%zz", Invalid},
		{"https://example.com:port/x", Invalid},
		{"https://[::1/x", Invalid},
		{"1https://example.com", Invalid},
		{" https://example.com", Invalid},
		{"https://example.com ", Invalid},
		{"https://example.com\n", Invalid},
		{"https://exa mple.com", Invalid},
		{"://example.com", Invalid},
		{"bad value", Invalid},
		{"true", Invalid},
		{"1111", Invalid},
		{"#1111", Invalid},
		{"\x00", Invalid},
		{"\xff", Invalid},
		{strings.Repeat("x", 300<<10), Invalid},
	}
	for _, tt := range tests {
		name := tt.value
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, valueState(tt.value), "valueState")
			assert.Equal(t, tt.want, StateOf("x.k8s.io", map[string]string{AnnotationKey: tt.value}), "StateOf in a protected group")
			assert.Equal(t, NotRequired, StateOf("example.com", map[string]string{AnnotationKey: tt.value}), "StateOf in an unprotected group")
		})
	}
}

func TestStateOf(t *testing.T) {
	approved := "https://github.com/kubernetes/enhancements/pull/1111"
	tests := []struct {
		name        string
		group       string
		annotations map[string]string
		want        State
	}{
		{"nil annotations", "x.k8s.io", nil, Missing},
		{"empty annotations", "x.k8s.io", map[string]string{}, Missing},
		{"other annotations only", "x.k8s.io", map[string]string{"controller-gen.kubebuilder.io/version": "v0.15.0"}, Missing},
		{"a key that differs by a prefix", "x.k8s.io", map[string]string{"example.com/api-approved.kubernetes.io": approved}, Missing},
		{"a key that differs by case", "x.k8s.io", map[string]string{"API-Approved.kubernetes.io": approved}, Missing},
		{"a key with a trailing slash", "x.k8s.io", map[string]string{"api-approved.kubernetes.io/": approved}, Missing},
		{"the proposed api-approved.kubernetes.io/uri", "x.k8s.io", map[string]string{"api-approved.kubernetes.io/uri": approved}, Missing},
		{"approved among others", "x.kubernetes.io", map[string]string{"a": "b", AnnotationKey: approved}, Approved},
		{"unapproved", "k8s.io", map[string]string{AnnotationKey: "unapproved"}, Unapproved},
		{"invalid", "kubernetes.io", map[string]string{AnnotationKey: "invalid"}, Invalid},
		{"unprotected, no annotation", "example.com", nil, NotRequired},
		{"unprotected, invalid annotation", "x-k8s.io", map[string]string{AnnotationKey: "invalid"}, NotRequired},
		{"unprotected, empty group", "", map[string]string{AnnotationKey: "invalid"}, NotRequired},
		{"unprotected, upper case", "X.K8S.IO", nil, NotRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, StateOf(tt.group, tt.annotations))
		})
	}
}

func TestStateString(t *testing.T) {
	tests := []struct {
		state State
		want  string
	}{
		{Invalid, "Invalid"},
		{Approved, "Approved"},
		{Unapproved, "Unapproved"},
		{Missing, "Missing"},
		{NotRequired, "NotRequired"},
		{State(5), "State(5)"},
		{State(255), "State(255)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.state.String())
	}
	var zero State
	assert.Equal(t, Invalid, zero, "the zero State fails closed")
}

func TestReason(t *testing.T) {
	tests := []struct {
		state State
		value string
		want  string
	}{
		{Missing, "", `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`},
		{Invalid, "bad value", `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`},
		{Approved, "https://github.com/kubernetes/kubernetes/pull/79724", `approved in https://github.com/kubernetes/kubernetes/pull/79724`},
		{Unapproved, "unapproved for reasons", `not approved: "unapproved for reasons"`},
		// Go's %q: quotes and backslashes escaped, invalid UTF-8 as \x, printable Unicode kept.
		{Unapproved, `unapproved "quoted" \ é` + "\t\n\x00\xff", `not approved: "unapproved \"quoted\" \\ é\t\n\x00\xff"`},
		{NotRequired, "anything", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, reason(tt.state, tt.value), "%v %q", tt.state, tt.value)
	}
}
