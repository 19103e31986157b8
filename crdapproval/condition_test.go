package crdapproval

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCondition(t *testing.T) {
	tests := []struct {
		name  string
		group string
		value string
		want  *metav1.Condition
	}{
		{"approved", "sigs.k8s.io", approvedURL2, &metav1.Condition{
			Type: ConditionType, Status: metav1.ConditionTrue, Reason: "ApprovedAnnotation",
			Message: "approved in https://github.com/kubernetes/kubernetes/pull/79724",
		}},
		{"unapproved", "sigs.k8s.io", "unapproved for reasons", &metav1.Condition{
			Type: ConditionType, Status: metav1.ConditionFalse, Reason: "UnapprovedAnnotation",
			Message: `not approved: "unapproved for reasons"`,
		}},
		{"missing", "sigs.k8s.io", "<none>", &metav1.Condition{
			Type: ConditionType, Status: metav1.ConditionFalse, Reason: "MissingAnnotation",
			Message: `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{"empty", "k8s.io", "", &metav1.Condition{
			Type: ConditionType, Status: metav1.ConditionFalse, Reason: "MissingAnnotation",
			Message: `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{"invalid", "kubernetes.io", "bad value", &metav1.Condition{
			Type: ConditionType, Status: metav1.ConditionFalse, Reason: "InvalidAnnotation",
			Message: `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{"unapproved with quotes", "x.k8s.io", `unapproved "yet"`, &metav1.Condition{
			Type: ConditionType, Status: metav1.ConditionFalse, Reason: "UnapprovedAnnotation",
			Message: `not approved: "unapproved \"yet\""`,
		}},
		{"unprotected", "example.com", "<none>", nil},
		{"unprotected with an approval", "x-k8s.io", approvedURL, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Condition(tt.group, ann(tt.value))
			if tt.want == nil {
				assert.False(t, ok)
				assert.Equal(t, metav1.Condition{}, got)
				return
			}
			assert.True(t, ok)
			assert.Equal(t, *tt.want, got)
		})
	}
}

// TestConditionMessageIsValidationDetail checks that the condition of a CRD
// that fails validation says what the validation error says.
func TestConditionMessageIsValidationDetail(t *testing.T) {
	for _, value := range []string{"<none>", "", " ", "invalid", "https://"} {
		c, ok := Condition("x.k8s.io", ann(value))
		assert.True(t, ok)
		errs := ValidateCreate("x.k8s.io", ann(value))
		if assert.Len(t, errs, 1, "%q", value) {
			assert.Equal(t, errs[0].Detail, c.Message, "%q", value)
		}
	}
}

func TestSetCondition(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(t0.Add(time.Hour))
	approved, _ := Condition("x.k8s.io", ann(approvedURL))
	approved2, _ := Condition("x.k8s.io", ann(approvedURL2))
	missing, _ := Condition("x.k8s.io", nil)
	invalid, _ := Condition("x.k8s.io", ann("invalid"))
	other := metav1.Condition{Type: "Established", Status: metav1.ConditionTrue, Reason: "InitialNamesAccepted", LastTransitionTime: t0}
	at := func(c metav1.Condition, ts metav1.Time) metav1.Condition {
		c.LastTransitionTime = ts
		return c
	}

	tests := []struct {
		name        string
		conditions  []metav1.Condition
		set         metav1.Condition
		want        []metav1.Condition
		wantChanged bool
	}{
		{
			name: "appended to nothing", set: approved,
			want: []metav1.Condition{at(approved, now)}, wantChanged: true,
		},
		{
			name: "appended after another type", conditions: []metav1.Condition{other}, set: missing,
			want: []metav1.Condition{other, at(missing, now)}, wantChanged: true,
		},
		{
			name: "the same: no change", conditions: []metav1.Condition{other, at(approved, t0)}, set: approved,
			want: []metav1.Condition{other, at(approved, t0)}, wantChanged: false,
		},
		{
			name: "the same with a zero time: still no change", conditions: []metav1.Condition{approved}, set: approved,
			want: []metav1.Condition{approved}, wantChanged: false,
		},
		{
			name: "new message, same status: time kept", conditions: []metav1.Condition{at(approved, t0)}, set: approved2,
			want: []metav1.Condition{at(approved2, t0)}, wantChanged: true,
		},
		{
			name: "new reason, same status: time kept", conditions: []metav1.Condition{at(missing, t0)}, set: invalid,
			want: []metav1.Condition{at(invalid, t0)}, wantChanged: true,
		},
		{
			name: "new status: time updated", conditions: []metav1.Condition{at(missing, t0), other}, set: approved,
			want: []metav1.Condition{at(approved, now), other}, wantChanged: true,
		},
		{
			name: "zero time, new message: time set", conditions: []metav1.Condition{missing}, set: invalid,
			want: []metav1.Condition{at(invalid, now)}, wantChanged: true,
		},
		{
			name: "the time of the new condition is ignored", conditions: []metav1.Condition{at(missing, t0)}, set: at(approved, t0),
			want: []metav1.Condition{at(approved, now)}, wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conditions := append([]metav1.Condition(nil), tt.conditions...)
			changed := SetCondition(&conditions, tt.set, now)
			assert.Equal(t, tt.wantChanged, changed)
			assert.Equal(t, tt.want, conditions)
		})
	}
}
