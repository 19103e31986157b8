// Package kube names the Kubernetes an engine answers as: a version of
// kube-apiserver (1.35, 1.36, 1.37, or 1.38 from its beta) and its feature
// gates, set as kube-apiserver's --feature-gates sets them. Every engine's
// options take a Target; the zero Target is the newest release gatehouse
// tracks (LatestVersion) with its default gates.
//
//	t, err := kube.ParseTarget("1.36")                        // a 1.36 cluster
//	t, err = t.WithFeatureGates("ManifestBasedAdmissionControlConfig=true")
//	if t.Enabled(kube.MutatingAdmissionPolicy) { ... }
//
// The feature gates are kube-apiserver's own: their defaults, stages and
// locks at each version are generated from the versioned specs
// kube-apiserver registers (feature_gates.tsv, checked byte for byte
// against k8s.io/kubernetes v1.37.2 by conformance/kubernetes, which also
// compares every default and every --feature-gates answer with its
// emulation of each version), with the gates it no longer has from the
// releases that had them. WithFeatureGates gives kube-apiserver's answers
// and error texts: unrecognized gates, gates locked to their default,
// gates not yet there at the version (PreAlpha), AllAlpha and AllBeta, and
// dependencies between gates.
//
// # Differences from kube-apiserver
//
// The dependencies between gates (a gate enabled without one it needs) are
// kube-apiserver 1.37's at every version, between the gates the version
// has; gates registered outside k8s.io/kubernetes' table (client-go's,
// component-base's) are 1.37's at every version.
//
// What differs between versions beyond the gates (the CEL environments,
// served API versions, texts, fixes) is known to the engines through
// gatehouse's internal version room, not by comparing versions.
//
// # Adding a version
//
// A version is added by its row in the list of versions (version.go), its
// gates (regenerate feature_gates.tsv from that version's
// k8s.io/kubernetes, keep the rows of gates it removed in
// removed_gates.tsv), the rows of the internal version room, and its
// oracle modfile in conformance (README.md, "Adding a Kubernetes version").
package kube
