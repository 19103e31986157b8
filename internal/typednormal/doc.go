// Package typednormal gives the unstructured content of a built-in object as
// kube-apiserver holds it — converted to the Go type of its kind and back
// with runtime.DefaultUnstructuredConverter — without reflection on the
// request path.
//
// kube-apiserver holds objects of built-in kinds as their Go types, so the
// admission engines take such an object through its Go type: unknown fields
// dropped, struct fields without omitempty added with their zero values,
// empty omitempty fields dropped, quantities, times and durations in
// canonical form, whole floats in integer fields made int64. That round trip
// (FromUnstructured then ToUnstructured) walks the object with reflection
// twice and is nearly half the cost of an admission dispatch.
//
// A Normalizer walks the Go type of a kind once, at the kind's first use,
// and keeps a plan of it: for each struct its JSON fields (names,
// omitempty, omitzero, inlined embedded structs) and for each field what the
// converter does with it (strings, booleans, integers and floats with their
// ranges, []byte as base64, pointers, slices, maps) and the types the
// converter hands to their own (un)marshalling: resource.Quantity,
// metav1.Time and MicroTime, metav1.Duration, intstr.IntOrString,
// runtime.RawExtension and metav1.FieldsV1. The output of a field that is
// absent or null is the converter's own output for the zero value,
// computed once when the plan is built.
//
// On the request path the input is walked with the plan and the output built
// from it. Whenever the input holds anything the plan is not certain of — a
// value of an unexpected Go type, a type mismatch (which the converter
// rejects), a number out of its field's range, a string that does not parse,
// a type the plan does not implement — Normalize answers "not handled", and
// the caller runs the exact round trip, whose result and errors are then
// kube-apiserver's. The fast path never produces an error of its own.
//
// NormalizeDecoded does the same for the other way kube-apiserver takes a
// patched object through its Go type — its JSON decoded into it, then
// converted — and declines, in addition, where decoding JSON and the
// converter differ.
//
// AppendJSON writes, from the same walk, the JSON json.Marshal writes for
// the typed object (kube-apiserver's encoding of an object it holds, as
// in an AdmissionReview), declining likewise, and where encoding/json
// reads a type otherwise than the converter.
//
// Differential fuzzing (FuzzNormalize, FuzzEncodeTyped) checks all three
// agree with the exact conversions (and json.Marshal) on every kind of the
// scheme; TestNormalizeCorpora and TestEncodeCorpora run every built-in
// object of the repository's test corpora through them.
package typednormal
