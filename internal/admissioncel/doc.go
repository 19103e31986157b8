// Package admissioncel holds what the CEL environments of admission
// expressions share: the declared types of kube-apiserver's admission
// variables (request, namespaceObject, kubernetes.variables), declared and
// provided with package celdecl, the lazy `variables` value, and the CEL view
// of typed Go values.
// Package matchcond compiles admission match conditions with it, and package
// mutation the expressions of MutatingAdmissionPolicies.
package admissioncel
