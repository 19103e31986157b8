package crdapproval

import (
	"net/url"
	"strconv"
	"strings"
)

// AnnotationKey is the annotation that records the approval of an API in a
// protected group. It has no "/" prefix, unlike most annotation keys.
const AnnotationKey = "api-approved.kubernetes.io"

// PolicyURL is the page that the messages for a missing or invalid
// annotation link to: the enhancements pull request that set the policy
// (KEP-2337).
const PolicyURL = "https://github.com/kubernetes/enhancements/pull/1111"

// State is the approval state of a CRD, from its group and the value of its
// api-approved.kubernetes.io annotation.
//
// The numeric values of Invalid, Approved, Unapproved and Missing are those of
// kube-apiserver's apihelpers.APIApprovalState (Invalid, Approved, Bypassed,
// Missing), so the zero State is Invalid and an uninitialised State fails
// closed. NotRequired has no counterpart there: kube-apiserver does not ask
// for the state of an unprotected group.
type State uint8

const (
	// Invalid: the value is neither a URL with a scheme and a host nor a
	// reason starting with "unapproved". Creating such a CRD fails.
	Invalid State = iota
	// Approved: the value is a URL with a scheme and a host, which by
	// convention points at the pull request where the API was approved.
	Approved
	// Unapproved: the value starts with "unapproved" (kube-apiserver's
	// APIApprovalBypassed). The CRD is accepted, and its condition is False.
	Unapproved
	// Missing: the annotation is absent or empty. Creating such a CRD fails.
	Missing
	// NotRequired: the group is not protected, so the annotation is ignored
	// whatever its value.
	NotRequired
)

// String returns the name of the constant, or "State(n)" for other values.
func (s State) String() string {
	switch s {
	case Invalid:
		return "Invalid"
	case Approved:
		return "Approved"
	case Unapproved:
		return "Unapproved"
	case Missing:
		return "Missing"
	case NotRequired:
		return "NotRequired"
	default:
		return "State(" + strconv.Itoa(int(s)) + ")"
	}
}

// StateOf returns the approval state of a CRD of the given group with the
// given annotations (nil is fine): NotRequired for an unprotected group,
// otherwise the state of the api-approved.kubernetes.io annotation's value,
// by the rules of the package documentation. Other annotations do not count.
func StateOf(group string, annotations map[string]string) State {
	if !IsProtectedGroup(group) {
		return NotRequired
	}
	return valueState(annotations[AnnotationKey])
}

// valueState classifies an annotation value of a CRD in a protected group.
// The checks run in kube-apiserver's order, on the exact bytes (no trimming,
// case-sensitive), so that " unapproved" and "Unapproved" are Invalid:
//
//  1. "" (or no annotation): Missing; " " is not empty, so it is Invalid.
//  2. a value that starts with "unapproved", with or without a separator
//     ("unapproved", "unapprovedfoo", "unapproved, experimental-only"):
//     Unapproved, even if the rest looks like a URL.
//  3. a value that net/url.ParseRequestURI accepts with a non-empty scheme and
//     a non-empty host: Approved. Any scheme will do ("foo://bar"); no scheme
//     ("github.com/x"), no host ("https://", "http:///x") or a parse error
//     ("https://%zz", a leading space, a control character, a space after
//     the host) is not enough; a space in the path is accepted.
//  4. anything else: Invalid.
func valueState(value string) State {
	switch {
	case value == "":
		return Missing
	case strings.HasPrefix(value, "unapproved"):
		return Unapproved
	case isApprovalURL(value):
		return Approved
	default:
		return Invalid
	}
}

func isApprovalURL(value string) bool {
	// ParseRequestURI finds a host only after "<scheme>://", so a value
	// without "://" cannot have both; skipping the parse saves its
	// allocations on the common invalid values.
	if !strings.Contains(value, "://") {
		return false
	}
	u, err := url.ParseRequestURI(value)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// The texts of kube-apiserver's reasons. They are the messages of the
// condition and the details of the validation errors.
const (
	missingReason = `protected groups must have approval annotation "` + AnnotationKey + `", see ` + PolicyURL
	invalidReason = `protected groups must have approval annotation "` + AnnotationKey +
		`" with either a URL or a reason starting with "unapproved", see ` + PolicyURL
)

// reason explains a state the way kube-apiserver does. value is the
// annotation value the state came from; NotRequired has no reason.
func reason(s State, value string) string {
	switch s {
	case Missing:
		return missingReason
	case Unapproved:
		return "not approved: " + strconv.Quote(value)
	case Approved:
		return "approved in " + value
	case Invalid:
		return invalidReason
	default:
		return ""
	}
}
