// Package resources gives what matchPolicy Equivalent needs and a caller
// had to write itself: the resources kube-apiserver treats as equivalent,
// at each version gatehouse answers for, and the conversion of custom resources between the versions
// of their CRD.
//
// A webhook or an admission policy with matchPolicy Equivalent (the
// default) that matches a resource equivalent to the request's (another
// version of it, or a resource of another group sharing its storage, as
// core and events.k8s.io events do) is called
// with, and its expressions see, the request's objects converted to the
// matched resource's version and kind. The engines (packages mutation,
// validatingpolicy, admissionwebhook, admission) take both as options:
// Equivalents, a runtime.EquivalentResourceMapper, and Converter.
//
// # Equivalent resources
//
// [BuiltInFor] returns a new runtime.EquivalentResourceRegistry holding what
// the registry of kube-apiserver as a kube.Target holds with its default API
// enablement (no --runtime-config); [BuiltIn] is that of kube.LatestVersion
// (a zero Target's). What differs between versions is what is served, and
// served by default: 1.35 lacks admissionregistration.k8s.io/v1
// MutatingAdmissionPolicies (1.36), 1.35 and 1.36 lack certificates.k8s.io/v1
// ClusterTrustBundles and PodCertificateRequests, resource.k8s.io/v1
// DeviceTaintRules and storagemigration.k8s.io/v1 (1.37); see README.md,
// "Kubernetes version". kube-apiserver builds its registry with
// runtime.NewEquivalentResourceRegistryWithIdentity keyed by the storage
// prefix of each group resource (k8s.io/apiserver's Config.Complete), and
// its API installer registers the kind of every resource and subresource
// path it installs (RegisterKindFor of the installer's fully qualified kind,
// the kind discovery shows). So the registry holds every resource and
// subresource of every group version served by default, with its kind
// (deployments/scale: autoscaling/v1 Scale; pods/eviction: policy/v1
// Eviction; pods/exec: v1 PodExecOptions; serviceaccounts/token:
// authentication.k8s.io/v1 TokenRequest; pods/status: v1 Pod), and the
// resources equivalent to one are those of one storage: the served
// versions of a group resource (autoscaling v2 and v1
// horizontalpodautoscalers) and cohabitating resources (core v1 and
// events.k8s.io/v1 events). Alpha and beta versions, disabled by default,
// are not in it; a caller that enables some registers them with
// RegisterKindFor. (As in kube-apiserver, a version that is not
// registered has no kind, but the equivalents of its group resource.) The
// data is each version's table of served resources, generated from and
// checked against its k8s.io/kubernetes (v1.35.4, v1.36.3, v1.37.2,
// v1.38.0-beta.0: their discovery documents, default enablement and storage
// prefixes) by conformance/kubernetes/oracle/servedtable. Custom resources are added with [RegisterCRD], aggregated APIs
// with RegisterKindFor.
//
// # Conversion
//
// [NewNoneConverter] returns a [NoneConverter], a [Converter] of the
// custom resources of CRDs with conversion strategy None, which
// kube-apiserver converts by changing only apiVersion
// (k8s.io/apiextensions-apiserver's nopConverter in its crConverter and
// safe converter, as admission calls them): the same objects and the same
// error texts, checked against apiextensions-apiserver v0.37.2 in
// conformance/. Built-in kinds are not converted by it: [NoneConverter.Or]
// passes them to a converter of the caller's (a scheme's, say); without
// one, converting them is an error naming both kinds.
//
// # Differences from kube-apiserver
//
// kube-apiserver keeps one registry for its built-in resources and one per
// CRD (each CRD's holds its versions only); BuiltIn and RegisterCRD put
// them in one registry, where a CRD's resources, in their own group, are
// equivalent only to themselves, so the answers are the same.
// kube-apiserver's registry also lists the versions of a resource in the
// order its API groups were installed; BuiltInFor lists the legacy group
// first, then the others, each group's versions from the newest, which is
// that order for every equivalence of the supported versions (autoscaling
// v2 and v1 are the only group resource with several versions served by
// default; the generator of the tables checks each version's priority, and
// conformance/kubernetes 1.37's scheme). A CRD's converter in
// kube-apiserver is chosen by the request's resource; NoneConverter chooses
// it by the kind converted to, else the object's kind. kube-apiserver
// converts the resources of a CRD with strategy Webhook by calling its
// webhook; NewNoneConverter refuses such a CRD.
package resources
