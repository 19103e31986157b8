// Package cel is kube-apiserver 1.37's CEL environment for stored
// expressions, written for gatehouse: the cel-go options and AST validators
// kube-apiserver enables, cel-go's extension libraries, the Kubernetes CEL
// libraries, the Kubernetes cost model, and the cost limits. matchcond and
// mutation compile and evaluate every expression in an environment built
// here, so that an expression is accepted, evaluated and charged exactly as
// kube-apiserver does.
//
// kube-apiserver compiles stored expressions (match conditions, policies)
// with every library known to its version, whatever the compatibility
// version; this package therefore has no version switch.
package cel
