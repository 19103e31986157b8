package conformance

import (
	"sort"
	"strings"
)

// The corpus of the crdapproval differential tests: API groups and values of
// the api-approved.kubernetes.io annotation, generated from parts so that
// every rule meets every near miss. See crdapproval_test.go.

// crdApprovalNoAnnotation stands for a CRD without the annotation.
const crdApprovalNoAnnotation = "\x00<no annotation>"

// crdApprovalGroups returns the API groups of the corpus: the protected
// domains behind prefixes and the near misses of each, valid DNS names or
// not.
func crdApprovalGroups() []string {
	set := map[string]bool{}
	prefixes := []string{"", "x.", "x", "x-", ".", "-.", "X.", "a.b.", "sigs.", "gateway.networking.", "rbac.authorization.", " ", "x..", "é."}
	domains := []string{
		"k8s.io", "kubernetes.io", // protected
		"K8S.IO", "K8s.io", "Kubernetes.io", "KUBERNETES.IO", // case
		"k8s.io.", "k8s.io ", "k8s.iox", "kubernetes.io.x", "k8s.io.example.com", // after the domain
		"8s.io", "s.io", "ubernetes.io", "k8s", "io", // a part of it
		"x-k8s.io", "xk8s.io", "k8sio", "k8s-io", "kubernetes-io", // lookalikes
		"example.com", "different.io", "",
	}
	for _, p := range prefixes {
		for _, d := range domains {
			set[p+d] = true
		}
	}
	for _, g := range []string{
		strings.Repeat("a", 246) + ".k8s.io",        // 253 bytes, the longest DNS subdomain
		strings.Repeat("a.", 124) + "k8s.io",        // many labels
		strings.Repeat("a", 300) + ".kubernetes.io", // too long for a DNS name
		"k8s.io\n", "\tk8s.io", "x.k8s.io/v1", "*.k8s.io", // odd bytes
	} {
		set[g] = true
	}
	return sortedKeys(set)
}

// crdApprovalValues returns the annotation values of the corpus, including
// crdApprovalNoAnnotation.
func crdApprovalValues() []string {
	set := map[string]bool{crdApprovalNoAnnotation: true}
	for _, v := range []string{
		"", " ", "\t", "\n", "\x00", "\xff", "x",
		"unapproved", "unapprovedfoo", "unapproved, experimental-only", "unapproved ", "unapproved\n",
		"unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups",
		`unapproved "quoted" \ é` + "\t\x00\xff", "unapproved://github.com/x",
		"unapproved: pas encore approuvé", "unapproved 未承認", "unapproved \u2028\u00a0\U0001F600", "unapproved\x7f\x1b[0m",
		"Unapproved", "UNAPPROVED", " unapproved", "\tunapproved", "unapprove", "un-approved", "not unapproved", "approved", "bad value",
		"true", "1111", "#1111", "*", "/", "//", "///", "?", "#", "%zz",
		"mailto:a@b.c", "urn:isbn:0451450523", "file:///etc/passwd", "https:example.com", "https:/example.com",
		"//example.com/x", "/kubernetes/enhancements/pull/1111",
		"github.com/kubernetes/enhancements/pull/1111", "www.github.com",
		"https://github.com/kubernetes/enhancements/pull/1111",
		"https://github.com/kubernetes/kubernetes/pull/79724",
		"https://github.com/kubernetes/kubernetes/issues/12345",
		"https://github.com/kcp-dev/kubernetes/pull/4",
		"HTTPS://EXAMPLE.COM", "https://user:pw@example.com", "https://[::1]/x", "https://[::1/x", "https://[fe80::1%25en0]/",
		"https://example.com:8443/x", "https://example.com:/x", "https://example.com:port/x", "https://example.com:99999/x",
		"https://exa mple.com", "https://example.com ", " https://example.com", "https://example.com\n",
		"https://example.com/a ", "https://example.com/\t", "https://example.com/\xff", "https://\xff/",
		"https://example.com?q=1", "https://example.com/#frag", "https://example.com/?", "https://example.com/??",
		"git+ssh://host/repo", "1http://x", "-http://x", "ht tp://x", "://x", "a://b", "a://",
		"https://" + strings.Repeat("a", 300<<10), // beyond the 256 KiB of all annotations
		strings.Repeat("unapproved", 30<<10),
		strings.Repeat("x", 300<<10),
	} {
		set[v] = true
	}
	// Generated URLs: scheme, separator, authority and path.
	for _, scheme := range []string{"https", "HTTP", "foo", "git+ssh", "a.b-c", "1http", "ht tp", "", "unapproved"} {
		for _, sep := range []string{"://", ":", ":/", ":///", "//", "://@"} {
			for _, host := range []string{"github.com", "", "[::1]", "[::1", "%zz", "%41", "user:pw@h", "h:8443", "h:port", "h h", "h\t", "@"} {
				for _, path := range []string{"", "/x", "/a b", "?q=1", "#f", "/\xff", " "} {
					set[scheme+sep+host+path] = true
				}
			}
		}
	}
	return sortedKeys(set)
}

// crdApprovalSampleValues is a smaller set of values, one or more of each
// kind, for the update corpus (whose size is the square of it).
func crdApprovalSampleValues() []string {
	return []string{
		crdApprovalNoAnnotation, "", " ", "\x00",
		"unapproved", "unapprovedfoo", "unapproved, experimental-only", "Unapproved", " unapproved",
		"approved", "bad value", "github.com/x", "https://", "http:///x", "https:example.com", "mailto:a@b.c", "https://%zz",
		"https://example.com ", "https://example.com/a ", "https://exa mple.com",
		"https://github.com/kubernetes/enhancements/pull/1111", "https://github.com/kubernetes/kubernetes/pull/79724",
		"foo://bar", "HTTPS://EXAMPLE.COM", "https://[::1]/x", "https://example.com:port/x",
		"https://" + strings.Repeat("a", 300<<10),
	}
}

// crdApprovalAnnotations returns the annotations of a CRD whose approval
// annotation has value (or none), with another annotation beside it.
func crdApprovalAnnotations(value string) map[string]string {
	annotations := map[string]string{"controller-gen.kubebuilder.io/version": "v0.17.2"}
	if value != crdApprovalNoAnnotation {
		annotations["api-approved.kubernetes.io"] = value
	}
	return annotations
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
