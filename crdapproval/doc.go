// Package crdapproval is kube-apiserver's protection of the k8s.io and
// kubernetes.io API groups (KEP-2337, enhancements pull request #1111): a CRD
// in one of these groups must carry the api-approved.kubernetes.io
// annotation, set to the URL of the pull request that approved the API, or
// to a reason that starts with "unapproved".
//
// It gives, offline, the answers of kube-apiserver 1.37
// (k8s.io/apiextensions-apiserver v0.37.2), for CI pipelines that check CRDs
// before they ship and for custom apiservers that serve CRD-like APIs. It
// imports only k8s.io/apimachinery, sigs.k8s.io/yaml, sigs.k8s.io/json and the
// standard library.
//
//   - IsProtectedGroup: whether a group needs the annotation.
//   - StateOf: the approval state of a group and its annotations: Approved,
//     Unapproved, Missing, Invalid or NotRequired.
//   - ValidateCreate and ValidateUpdate: the errors kube-apiserver returns
//     when a CRD is created or updated, with its field path and messages. An
//     update is checked only when the approval state changes.
//   - Condition and SetCondition: the KubernetesAPIApprovalPolicyConformant
//     condition that kube-apiserver's approval controller keeps on the CRD,
//     and how it writes it.
//   - Decode and FromUnstructured: the parts of a CRD that the check reads,
//     from a YAML or JSON stream or from unstructured content.
//
// # The rules
//
// A group is protected if it is k8s.io or kubernetes.io or ends with
// ".k8s.io" or ".kubernetes.io", compared byte for byte: "x.k8s.io" is
// protected, "xk8s.io", "x-k8s.io", "k8s.io.example.com" and "X.K8S.IO" are
// not. In an unprotected group the annotation is ignored, whatever its value.
//
// In a protected group the value of the annotation decides, checked in this
// order on the exact bytes (no trimming, case-sensitive):
//
//  1. absent or "": Missing;
//  2. starts with "unapproved" ("unapproved", "unapprovedfoo",
//     "unapproved, experimental-only"): Unapproved;
//  3. accepted by net/url.ParseRequestURI with a non-empty scheme and host
//     ("https://github.com/kubernetes/enhancements/pull/1111", any scheme):
//     Approved;
//  4. anything else: Invalid. That includes " ", a leading space, a space or
//     a control character in the URL's host ("https://example.com "; a space
//     in its path is accepted), "Unapproved", a URL without a scheme
//     ("github.com/x") or without a host ("https://", "http:///x"), and
//     "mailto:a@b.c".
//
// Creating a CRD that is Missing or Invalid fails; Approved and Unapproved
// pass. Updating it fails only if the state changes to Missing or Invalid:
// an unchanged bad value passes, and so does one bad value replaced by
// another; removing the annotation fails.
//
// The condition is True with reason ApprovedAnnotation for Approved, and
// False with UnapprovedAnnotation, MissingAnnotation or InvalidAnnotation
// otherwise. An unprotected CRD gets no condition.
//
// # What is not checked
//
// This is the approval check alone, not the validation of a whole CRD:
// names, versions, schemas and the rest of metadata are not looked at. In
// particular kube-apiserver also limits the annotations of an object to
// 256 KiB in total (metadata.annotations: Too long), which a very long
// approval value can exceed; ValidateCreate does not report that.
//
// # Input
//
// Decode reads a stream as kubectl apply -f does: a JSON stream if it starts
// with "{", otherwise YAML documents separated by "---" lines. Every document
// that is not empty must be an apiextensions.k8s.io/v1 or v1beta1
// CustomResourceDefinition; each CRD is returned with its document number and
// line, and each bad document gets a DecodeError that says where and what is
// wrong (see Decode). Only apiVersion, kind, metadata.name,
// metadata.annotations and spec.group are read, and their types are checked
// as kube-apiserver's decoder checks them; other fields are not read, so an
// unknown field elsewhere is not an error.
//
// # apiextensions.k8s.io/v1beta1
//
// Kubernetes 1.22 removed the v1beta1 CRD API, so a 1.37 cluster rejects a
// v1beta1 CRD before any check. Decode still reads v1beta1 CRDs (many are
// still published), and the checks give the verdict a 1.37 cluster would give
// the same CRD converted to v1, since 1.37 applies the rule whatever the
// request version. From 1.16 to 1.21,
// kube-apiserver skipped the check for requests made through v1beta1 and only
// set the condition; that historical exemption is not reproduced.
//
// # Differences from kube-apiserver
//
// None in the answers: the state, the errors (type, field path, bad value,
// detail) and the condition (type, status, reason, message) are those of
// k8s.io/apiextensions-apiserver v0.37.2, as the differential test in the
// conformance module checks over thousands of cases. The approval controller
// itself (informers, work queue, the status writes) is not reproduced;
// SetCondition has its rules for writing the condition.
//
// Decode is stricter than kubectl on purpose, where kubectl would read
// something other than what the file says: it rejects duplicate keys (the
// last would win without strict field validation), text after a "---"
// separator on the same line, and content after a "..." end marker (kubectl
// drops both).
package crdapproval
