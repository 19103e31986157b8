// Package celdecl declares the types of CEL variables the way kube-apiserver
// declares its "DeclTypes" (named object types with typed fields, lists and
// maps), and provides them to a CEL environment. The authorization match
// conditions declare their `request` with it, and the admission expressions
// (package admissioncel) their variables; it imports nothing of admission,
// so that the authorizer's programs do not link admission's API types.
package celdecl
