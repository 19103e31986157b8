package crdapproval

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ConditionType is the type of the status condition that kube-apiserver's
// approval controller keeps on every CRD of a protected group. (The KEP calls
// it KubeAPIApproved; that name was never used.)
const ConditionType = "KubernetesAPIApprovalPolicyConformant"

// The reasons of the condition, one per approval state.
const (
	ReasonApproved   = "ApprovedAnnotation"   // status True
	ReasonUnapproved = "UnapprovedAnnotation" // status False
	ReasonMissing    = "MissingAnnotation"    // status False
	ReasonInvalid    = "InvalidAnnotation"    // status False
)

// Condition returns the KubernetesAPIApprovalPolicyConformant condition that
// kube-apiserver's approval controller sets on a CRD of the given group with
// the given annotations, and false for an unprotected group, on which the
// controller neither sets nor removes the condition.
//
// Status and reason follow the state: Approved is True/ApprovedAnnotation;
// Unapproved, Missing and Invalid are False with UnapprovedAnnotation,
// MissingAnnotation and InvalidAnnotation. The message is kube-apiserver's
// text: `approved in <value>`, `not approved: "<value>"` (Go-quoted), or the
// text of the validation error for Missing and Invalid, which links to
// https://github.com/kubernetes/enhancements/pull/1111.
//
// LastTransitionTime and ObservedGeneration are left zero: SetCondition sets
// the time. The condition of a CRD (apiextensions.k8s.io) has the same JSON
// fields as metav1.Condition, without observedGeneration.
func Condition(group string, annotations map[string]string) (metav1.Condition, bool) {
	if !IsProtectedGroup(group) {
		return metav1.Condition{}, false
	}
	value := annotations[AnnotationKey]
	s := valueState(value)
	c := metav1.Condition{Type: ConditionType, Status: metav1.ConditionFalse, Message: reason(s, value)}
	switch s {
	case Approved:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonApproved
	case Unapproved:
		c.Reason = ReasonUnapproved
	case Missing:
		c.Reason = ReasonMissing
	default:
		c.Reason = ReasonInvalid
	}
	return c, true
}

// SetCondition puts c into *conditions the way the approval controller
// writes it, and reports whether anything changed; the controller writes the
// CRD's status only then.
//
//   - If a condition of c's type is there with the same status, reason and
//     message, nothing changes, even a zero LastTransitionTime.
//   - If there is none, c is appended with LastTransitionTime now.
//   - Otherwise its status, reason and message are overwritten, and its
//     LastTransitionTime becomes now if the status changed or the time was
//     zero.
//
// The caller supplies now from its clock (k8s.io/utils/clock).
func SetCondition(conditions *[]metav1.Condition, c metav1.Condition, now metav1.Time) bool {
	for i := range *conditions {
		old := &(*conditions)[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			return false
		}
		if old.Status != c.Status || old.LastTransitionTime.IsZero() {
			old.LastTransitionTime = now
		}
		old.Status, old.Reason, old.Message = c.Status, c.Reason, c.Message
		return true
	}
	c.LastTransitionTime = now
	*conditions = append(*conditions, c)
	return true
}
