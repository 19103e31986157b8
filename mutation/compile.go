package mutation

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// Compiler compiles MutatingAdmissionPolicies in kube-apiserver 1.37's CEL
// environments of mutations: variables, match conditions, and mutations with
// the Object and JSONPatch types and jsonpatch.escapeKey. Its environments
// are built once; it is safe for concurrent use.
type Compiler struct {
	c *mutationcel.Compiler
}

// NewCompiler builds the environments of mutations, as the newest
// release's kube-apiserver (NewCompilerFor).
func NewCompiler() (*Compiler, error) {
	return NewCompilerFor(kube.Target{})
}

// NewCompilerFor builds the environments of mutations as kube-apiserver t
// does, with the CEL of its version.
func NewCompilerFor(t kube.Target) (*Compiler, error) {
	c, err := mutationcel.NewCompilerFor(t)
	if err != nil {
		return nil, err
	}
	return &Compiler{c: c}, nil
}

// Compile compiles a policy's variables, match conditions and mutations as
// kube-apiserver does when it loads the policy. An expression that does not
// compile is not an error here: as in kube-apiserver, it fails the requests
// that evaluate it (with "compilation failed: ..."), and CompileErrors lists
// it. A mutation of an unknown patch type, or without the body of its type,
// is not compiled, as in kube-apiserver. The policy must not be modified
// afterwards.
func (c *Compiler) Compile(p *admissionregistrationv1.MutatingAdmissionPolicy) *Policy {
	return &Policy{p: c.c.Compile(p)}
}

// Policy is a compiled MutatingAdmissionPolicy. It is immutable and safe for
// concurrent use.
type Policy struct {
	p *mutationcel.Policy
}

// CompileErrors returns the errors of the policy's expressions that do not
// compile, in the order of its variables, match conditions and mutations.
func (p *Policy) CompileErrors() []error { return p.p.CompileErrors() }

// WrittenFields returns the fields that mutation i, an ApplyConfiguration,
// may set, computed from its expression: paths from the object's root such
// as ".spec.containers[*].image" ("[*]" the items of a list, "[k]" a map key
// with dots), each standing for its whole subtree. known is false when they
// cannot be known without evaluating (the value is not built of Object
// initializers), for a JSON Patch, and for a mutation that does not
// compile. kube-apiserver computes nothing of the kind; a reviewer or a
// tool uses it to see what a policy can touch.
func (p *Policy) WrittenFields(i int) (paths []string, known bool) { return p.p.WrittenFields(i) }

// matchConditions evaluates the policy's match conditions with its failure
// policy (namespaceObject is null there, as in kube-apiserver).
func (p *Policy) matchConditions(ctx context.Context, in *evalInput) matchcond.AdmissionMatchResult {
	return p.p.MatchConditions(ctx, in.cel())
}

// mutationCount is the number of the policy's mutations that are compiled.
func (p *Policy) mutationCount() int { return p.p.MutationCount() }

// evaluateMutation evaluates mutation i into its patch.
func (p *Policy) evaluateMutation(ctx context.Context, i int, in *evalInput) (patch, error) {
	out, err := p.p.EvaluateMutation(ctx, i, in.cel())
	return patch{applyConfiguration: out.ApplyConfiguration, jsonPatch: out.JSONPatch}, err
}

// cel is the input of an evaluation.
func (in *evalInput) cel() *mutationcel.Input {
	return &mutationcel.Input{
		Request:    in.request,
		Object:     in.object,
		OldObject:  in.oldObject,
		Params:     in.params,
		Namespace:  in.namespace,
		Authorizer: in.authorizer,
		TypedView:  in.typedView,
	}
}
