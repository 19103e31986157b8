package crdapproval

import "k8s.io/apimachinery/pkg/util/validation/field"

// ValidateCreate checks the approval annotation of a CRD that is being
// created, as kube-apiserver does when it validates the CRD. It returns nil
// for an unprotected group and for the states Approved and Unapproved, and
// otherwise one error at metadata.annotations[api-approved.kubernetes.io]:
//
//   - Missing: Required, with the detail `protected groups must have approval
//     annotation "api-approved.kubernetes.io", see
//     https://github.com/kubernetes/enhancements/pull/1111`;
//   - Invalid: Invalid, with the annotation value as the bad value and the
//     detail `protected groups must have approval annotation
//     "api-approved.kubernetes.io" with either a URL or a reason starting with
//     "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`.
//
// It checks the approval annotation only, not the rest of the CRD (see the
// package documentation).
func ValidateCreate(group string, annotations map[string]string) field.ErrorList {
	if !IsProtectedGroup(group) {
		return nil
	}
	value := annotations[AnnotationKey]
	return approvalErrors(valueState(value), value)
}

// ValidateUpdate checks the approval annotation of a CRD that is being
// updated from oldAnnotations to annotations. group is the CRD's group after
// the update (a CRD's group cannot change). The check bites only when the
// approval state changes:
//
//   - the same state before and after passes, even Invalid to Invalid with a
//     different bad value, or Missing to Missing, so that CRDs created before
//     the rule, or by v1beta1, stay updatable;
//   - a change to Approved or Unapproved passes;
//   - a change to Missing (removing the annotation, or emptying it) or to
//     Invalid fails with the error of ValidateCreate.
func ValidateUpdate(group string, annotations, oldAnnotations map[string]string) field.ErrorList {
	if !IsProtectedGroup(group) {
		return nil
	}
	value := annotations[AnnotationKey]
	state := valueState(value)
	if state == valueState(oldAnnotations[AnnotationKey]) {
		return nil
	}
	return approvalErrors(state, value)
}

// annotationField is the field path of the errors,
// field.NewPath("metadata", "annotations").Key(AnnotationKey) as a string.
const annotationField = "metadata.annotations[" + AnnotationKey + "]"

// approvalErrors is the error of a protected CRD whose approval state is s:
// what field.Required and field.Invalid return, without building the path.
func approvalErrors(s State, value string) field.ErrorList {
	switch s {
	case Missing:
		return field.ErrorList{{Type: field.ErrorTypeRequired, Field: annotationField, BadValue: "", Detail: missingReason}}
	case Invalid:
		return field.ErrorList{{Type: field.ErrorTypeInvalid, Field: annotationField, BadValue: value, Detail: invalidReason}}
	default:
		return nil
	}
}
