// Package conformance holds gatehouse's differential tests and side-by-side
// benchmarks: each engine is run beside the kube-apiserver 1.37 package it
// reimplements (k8s.io/apiserver v0.37.2 and friends), on the same inputs, and
// every difference in decisions, errors, field paths, messages or metrics is
// a failure. It is a module of its own so that the main module never depends
// on k8s.io/apiserver.
package conformance
