package crdapproval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	approvedURL  = "https://github.com/kubernetes/enhancements/pull/1111"
	approvedURL2 = "https://github.com/kubernetes/kubernetes/pull/79724"

	renderedRequired = `metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`
	renderedInvalid  = `metadata.annotations[api-approved.kubernetes.io]: Invalid value: "invalid": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`
)

// ann is the annotations of a CRD whose approval annotation has the given
// value; "<none>" leaves the annotation out.
func ann(value string) map[string]string {
	if value == "<none>" {
		return map[string]string{"other": "x"}
	}
	return map[string]string{AnnotationKey: value, "other": "x"}
}

func requiredErr() field.ErrorList {
	return field.ErrorList{{
		Type:     field.ErrorTypeRequired,
		Field:    "metadata.annotations[api-approved.kubernetes.io]",
		BadValue: "",
		Detail:   missingReason,
	}}
}

func invalidErr(value string) field.ErrorList {
	return field.ErrorList{{
		Type:     field.ErrorTypeInvalid,
		Field:    "metadata.annotations[api-approved.kubernetes.io]",
		BadValue: value,
		Detail:   invalidReason,
	}}
}

func TestValidateCreate(t *testing.T) {
	tests := []struct {
		name  string
		group string
		value string
		want  field.ErrorList
	}{
		{"approved", "x.k8s.io", approvedURL, nil},
		{"approved, any scheme", "k8s.io", "foo://bar", nil},
		{"unapproved", "x.kubernetes.io", "unapproved", nil},
		{"unapproved with a reason", "sigs.k8s.io", "unapproved, experimental-only", nil},
		{"missing", "x.k8s.io", "<none>", requiredErr()},
		{"empty", "x.k8s.io", "", requiredErr()},
		{"invalid", "x.k8s.io", "invalid", invalidErr("invalid")},
		{"whitespace only", "kubernetes.io", " ", invalidErr(" ")},
		{"no scheme", "x.k8s.io", "github.com/x", invalidErr("github.com/x")},
		{"no host", "x.k8s.io", "https://", invalidErr("https://")},
		{"capital Unapproved", "x.k8s.io", "Unapproved", invalidErr("Unapproved")},
		{"leading space", "x.k8s.io", " " + approvedURL, invalidErr(" " + approvedURL)},
		{"very long invalid value", "x.k8s.io", longURL[8:], invalidErr(longURL[8:])},
		{"very long URL", "x.k8s.io", longURL, nil},
		{"unprotected, missing", "example.com", "<none>", nil},
		{"unprotected, invalid", "x-k8s.io", "invalid", nil},
		{"unprotected subdomain lookalike", "xk8s.io", "", nil},
		{"unprotected, upper case", "X.K8S.IO", "invalid", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateCreate(tt.group, ann(tt.value))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestErrorsAreThoseOfFieldHelpers(t *testing.T) {
	path := field.NewPath("metadata", "annotations").Key(AnnotationKey)
	assert.Equal(t, field.ErrorList{field.Required(path, missingReason)}, ValidateCreate("x.k8s.io", nil))
	assert.Equal(t, field.ErrorList{field.Invalid(path, "bad", invalidReason)}, ValidateCreate("x.k8s.io", ann("bad")))
}

func TestValidateCreateRendering(t *testing.T) {
	assert.Equal(t, renderedRequired, ValidateCreate("x.k8s.io", nil).ToAggregate().Error())
	assert.Equal(t, renderedInvalid, ValidateCreate("x.k8s.io", ann("invalid")).ToAggregate().Error())
	assert.Nil(t, ValidateCreate("x.k8s.io", ann(approvedURL)))
}

func TestValidateUpdate(t *testing.T) {
	tests := []struct {
		name     string
		group    string
		old, new string
		want     field.ErrorList
	}{
		// The state does not change: never an error.
		{"unchanged approved", "x.k8s.io", approvedURL, approvedURL, nil},
		{"approved with a new URL", "x.k8s.io", approvedURL, approvedURL2, nil},
		{"unapproved with a new reason", "x.k8s.io", "unapproved", "unapproved, later", nil},
		{"unchanged invalid value", "x.k8s.io", "invalid", "invalid", nil},
		{"another invalid value", "x.k8s.io", "invalid", "github.com/x", nil},
		{"missing stays missing", "x.k8s.io", "<none>", "<none>", nil},
		{"missing to empty", "x.k8s.io", "<none>", "", nil},
		{"empty to missing", "x.k8s.io", "", "<none>", nil},

		// To Approved or Unapproved: fine from any state.
		{"missing to approved", "x.k8s.io", "<none>", approvedURL, nil},
		{"invalid to approved", "x.k8s.io", "invalid", approvedURL, nil},
		{"unapproved to approved", "x.k8s.io", "unapproved", approvedURL, nil},
		{"approved to unapproved", "x.k8s.io", approvedURL, "unapproved", nil},
		{"missing to unapproved", "x.k8s.io", "<none>", "unapproved", nil},
		{"invalid to unapproved", "x.k8s.io", "invalid", "unapproved", nil},

		// To Missing: removal is rejected.
		{"approved removed", "x.k8s.io", approvedURL, "<none>", requiredErr()},
		{"approved emptied", "x.k8s.io", approvedURL, "", requiredErr()},
		{"unapproved removed", "x.k8s.io", "unapproved", "<none>", requiredErr()},
		{"invalid removed", "x.k8s.io", "invalid", "<none>", requiredErr()},

		// To Invalid.
		{"missing to invalid", "x.k8s.io", "<none>", "invalid", invalidErr("invalid")},
		{"approved to invalid", "x.k8s.io", approvedURL, "invalid", invalidErr("invalid")},
		{"unapproved to Unapproved", "x.k8s.io", "unapproved", "Unapproved", invalidErr("Unapproved")},
		{"approved to a host with a trailing space", "x.k8s.io", approvedURL, "https://example.com ", invalidErr("https://example.com ")},
		{"approved to a path with a trailing space", "x.k8s.io", approvedURL, approvedURL + " ", nil},

		// Unprotected groups: never checked.
		{"unprotected, removed", "example.com", approvedURL, "<none>", nil},
		{"unprotected, to invalid", "x-k8s.io", "<none>", "invalid", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateUpdate(tt.group, ann(tt.new), ann(tt.old))
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestValidateUpdateFollowsStates checks the update rule over every pair of
// sample values: an error exactly when the state changes to Missing or
// Invalid, and then the error of ValidateCreate.
func TestValidateUpdateFollowsStates(t *testing.T) {
	values := []string{"<none>", "", " ", "invalid", "github.com/x", "unapproved", "unapproved2", approvedURL, approvedURL2}
	for _, group := range []string{"x.k8s.io", "example.com"} {
		for _, oldValue := range values {
			for _, newValue := range values {
				got := ValidateUpdate(group, ann(newValue), ann(oldValue))
				oldState, newState := StateOf(group, ann(oldValue)), StateOf(group, ann(newValue))
				if oldState == newState || newState == Approved || newState == Unapproved || newState == NotRequired {
					assert.Nil(t, got, "%s: %q -> %q", group, oldValue, newValue)
					continue
				}
				assert.Equal(t, ValidateCreate(group, ann(newValue)), got, "%s: %q -> %q", group, oldValue, newValue)
			}
		}
	}
}
