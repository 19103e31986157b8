// Package mutationpatch applies one MutatingAdmissionPolicy mutation's
// patch to an object as kube-apiserver 1.37 does: an ApplyConfiguration
// merged with structured-merge-diff under the atomic rule, or a JSON patch
// with the semantics of gopkg.in/evanphx/json-patch.v4 v4.13.0; then, for a
// built-in kind, the result taken through the kind's Go type as
// kube-apiserver's dispatcher and patcher take it. Package mutation resolves
// the schema and reports a missing one; the differential tests in
// conformance/ call this package directly.
//
// A [Merger], compiled from a kind's schema and carried by the kind's
// Typer, merges an ApplyConfiguration without structured-merge-diff when
// it is sure of structured-merge-diff's outcome, and leaves everything else
// to structured-merge-diff (FuzzMergerMatchesSMD compares the two).
package mutationpatch
