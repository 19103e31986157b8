// This file wires the Dispatcher to the package's compiler and patch
// application.

package mutation

import admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

// NewDispatcher compiles policies and bindings for dispatch. Policies are
// compiled once (compile errors are deferred to admission, as
// kube-apiserver's are); a binding whose policy is not among policies is
// ignored, as is a policy without bindings or whose paramKind apiVersion
// does not parse (kube-apiserver leaves those out of its hooks). Of several
// policies of one name, the first is used. The objects are taken as
// kube-apiserver stores them, with their defaults (Decode sets them;
// SetDefaultsPolicy and SetDefaultsBinding for objects built in code): a
// policy whose selectors are nil fails its requests, as kube-apiserver's
// matcher would. The slices and objects must not be modified afterwards.
func NewDispatcher(policies []*admissionregistrationv1.MutatingAdmissionPolicy, bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding, o Options) (*Dispatcher, error) {
	c, err := NewCompilerFor(o.Kube)
	if err != nil {
		return nil, err
	}
	compile := func(p *admissionregistrationv1.MutatingAdmissionPolicy) evaluator { return c.Compile(p) }
	return newDispatcher(policies, bindings, o, compile, applyPatch), nil
}
