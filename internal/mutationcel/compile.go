package mutationcel

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// Compiler compiles MutatingAdmissionPolicies in kube-apiserver 1.37's CEL
// environments of mutations. Its environments are built once; it is safe
// for concurrent use.
type Compiler struct {
	conditions *matchcond.AdmissionCompiler
	// bases are the environments of stored expressions (those of
	// evaluation), by [hasParams][patchTypes]; a policy's extend them with
	// its variables.
	bases [2][2]*cel.Env
	// newBases are those of new expressions (validation of writes), built
	// when first needed.
	newBases *lazyEnvs
	// stored is the flavor of the stored expressions' environments.
	stored icel.Flavor
	// noVariables are the environments of policies without variables, by
	// [hasParams][patchTypes]: such policies share them rather than each
	// extending its own.
	noVariables [2][2]*admissioncel.PolicyEnv
}

// NewCompiler builds the environments of mutations.
func NewCompiler() (*Compiler, error) {
	return NewCompilerFor(kube.Target{})
}

// NewCompilerFor is NewCompiler as kube-apiserver t compiles, with the CEL
// of its version (its environments of stored and of new expressions).
func NewCompilerFor(t kube.Target) (*Compiler, error) {
	conditions, err := matchcond.NewAdmissionCompilerFor(t)
	if err != nil {
		return nil, err
	}
	c := &Compiler{conditions: conditions, stored: icel.FlavorOf(t, true)}
	c.newBases = &lazyEnvs{flavor: icel.FlavorOf(t, false)}
	for _, params := range []bool{false, true} {
		for _, patchTypes := range []bool{false, true} {
			env, err := newMutationEnv(c.stored.NewEnv, params, patchTypes)
			if err != nil {
				return nil, err
			}
			c.bases[b2i(params)][b2i(patchTypes)] = env
			// The registration of kubernetes.variables of these never gains
			// a field.
			noVars := celdecl.NewObjectRegistration(admissioncel.VariablesTypeName)
			if c.noVariables[b2i(params)][b2i(patchTypes)], err = admissioncel.WithVariables(env, noVars, true, c.stored); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newMutationEnv builds kube-apiserver's admission environment of a
// MutatingAdmissionPolicy: object, oldObject, request, namespaceObject,
// authorizer and authorizer.requestResource, params with a paramKind, and,
// for mutations, the Object and JSONPatch types and jsonpatch.escapeKey.
func newMutationEnv(newEnv func(...cel.EnvOption) (*cel.Env, error), params, patchTypes bool) (*cel.Env, error) {
	o := admissioncel.EnvOptions{Params: params, Authorizer: true}
	if patchTypes {
		o.Extra = []cel.EnvOption{patchTypesOption(), icel.JSONPatch()}
	}
	return admissioncel.NewPolicyBaseEnv(newEnv, o)
}

// lazyEnvs holds the environments of new expressions, built on first use.
type lazyEnvs struct {
	envs   [2][2]lazyEnv
	flavor icel.Flavor
}

type lazyEnv struct {
	once sync.Once
	env  *cel.Env
	err  error
}

func (l *lazyEnvs) get(params, patchTypes bool) (*cel.Env, error) {
	e := &l.envs[b2i(params)][b2i(patchTypes)]
	e.once.Do(func() { e.env, e.err = newMutationEnv(l.flavor.NewEnv, params, patchTypes) })
	return e.env, e.err
}

// returnTypeOf is the type a mutation's expression must have, and its
// expression; ok is false for a mutation that kube-apiserver does not
// compile (an unknown patch type, or no body for its type).
func returnTypeOf(m admissionregistrationv1.Mutation) (want *types.Type, expression string, ok bool) {
	switch m.PatchType {
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration != nil {
			return applyConfigType, m.ApplyConfiguration.Expression, true
		}
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch != nil {
			return jsonPatchListType, m.JSONPatch.Expression, true
		}
	}
	return nil, "", false
}

// Compile compiles a policy's variables, match conditions and mutations
// as kube-apiserver does when it loads the policy. An expression that does
// not compile is not an error here: as in kube-apiserver, it fails the
// requests that evaluate it; CompileErrors lists such errors. The policy
// must not be modified afterwards.
func (c *Compiler) Compile(p *admissionregistrationv1.MutatingAdmissionPolicy) *Policy {
	out := &Policy{policy: p}
	if p == nil {
		out.envErr = errors.New("no policy")
		return out
	}
	if err := out.compile(c); err != nil {
		out.envErr = err
	}
	return out
}

// compiledMutation is one compiled mutation.
type compiledMutation struct {
	patchType  admissionregistrationv1.PatchType
	expression string
	program    *icel.Program
	err        *admissioncel.CompileError
	// written and writtenKnown: the fields an ApplyConfiguration may set,
	// when known statically (see writtenFields).
	written      []string
	writtenKnown bool
	// constant is set when the expression reads nothing of the request
	// (constant.go).
	constant *constantPatch
}

func (p *Policy) compile(c *Compiler) error {
	spec := &p.policy.Spec
	hasParams := spec.ParamKind != nil
	if len(spec.MatchConditions) > 0 {
		conds, err := c.conditions.Compile(spec.MatchConditions, matchcond.AdmissionOptions{
			Policy:        true,
			HasParams:     hasParams,
			Variables:     spec.Variables,
			FailurePolicy: spec.FailurePolicy,
			Name:          p.policy.Name,
			Type:          "validate",
		})
		if err != nil {
			return err
		}
		p.conditions = conds
	}
	var err error
	p.variables = admissioncel.NoVariables()
	mutEnv := c.noVariables[b2i(hasParams)][1]
	if len(spec.Variables) > 0 {
		if mutEnv, err = p.compileVariables(c, hasParams); err != nil {
			return err
		}
	}
	for _, m := range spec.Mutations {
		want, expr, ok := returnTypeOf(m)
		if !ok {
			continue
		}
		cm := compiledMutation{patchType: m.PatchType, expression: expr}
		var checked *cel.Ast
		cm.program, checked, cm.err = mutEnv.Compile(expr, want)
		if cm.err == nil && m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration {
			cm.written, cm.writtenKnown = writtenFields(checked.NativeRep().Expr())
		}
		if cm.err == nil && isConstant(checked.NativeRep().Expr()) {
			cm.constant = &constantPatch{}
		}
		p.mutations = append(p.mutations, cm)
	}
	return nil
}

// compileVariables compiles the policy's variables in an environment of its
// own and returns the environment of its mutations, where they are
// declared.
func (p *Policy) compileVariables(c *Compiler, hasParams bool) (*admissioncel.PolicyEnv, error) {
	vars, reg, err := admissioncel.CompileVariables(c.bases[b2i(hasParams)][0], p.policy.Spec.Variables, c.stored)
	if err != nil {
		return nil, err
	}
	p.variables = vars
	return admissioncel.WithVariables(c.bases[b2i(hasParams)][1], reg, true, c.stored)
}

// Policy is a compiled MutatingAdmissionPolicy. It is immutable and safe for
// concurrent use.
type Policy struct {
	policy *admissionregistrationv1.MutatingAdmissionPolicy
	// envErr is set when the policy's environment could not be built: every
	// evaluation fails with it.
	envErr error

	conditions *matchcond.AdmissionMatcher // nil without match conditions
	variables  *admissioncel.PolicyVariables
	mutations  []compiledMutation
}

// CompileErrors returns the errors of the expressions that did not compile,
// in the order of the policy's variables, match conditions and mutations:
// each fails the requests that evaluate it.
func (p *Policy) CompileErrors() []error {
	var conditionErrs []error
	if p.conditions != nil {
		conditionErrs = p.conditions.CompileErrors()
	}
	errs := p.variables.PolicyCompileErrors(p.envErr, conditionErrs)
	for i, m := range p.mutations {
		if m.err != nil {
			errs = append(errs, fmt.Errorf("mutation %d: %w", i, m.err))
		}
	}
	return errs
}

// ExpressionChecker checks the expressions of one policy as kube-apiserver's
// REST validation compiles them: an expression in the environment of new
// expressions, or, when the caller says it is stored (the object being
// updated already had it), in that of stored expressions; each variable,
// compiled or not, is declared for the expressions after it. It is not safe
// for concurrent use.
type ExpressionChecker struct {
	c         *Compiler
	hasParams bool
	variables *celdecl.RegisteredType
	// envs are the environments with the policy's variables, by
	// [stored][patchTypes], built when first used.
	envs [2][2]*admissioncel.PolicyEnv
}

// NewExpressionChecker returns a checker for a policy with or without a
// paramKind.
func (c *Compiler) NewExpressionChecker(hasParams bool) *ExpressionChecker {
	return &ExpressionChecker{c: c, hasParams: hasParams, variables: celdecl.NewObjectRegistration(admissioncel.VariablesTypeName)}
}

func (x *ExpressionChecker) env(stored, patchTypes bool) (*admissioncel.PolicyEnv, error) {
	e := &x.envs[b2i(stored)][b2i(patchTypes)]
	if *e != nil {
		return *e, nil
	}
	base := x.c.bases[b2i(x.hasParams)][b2i(patchTypes)]
	if !stored {
		var err error
		if base, err = x.c.newBases.get(x.hasParams, patchTypes); err != nil {
			return nil, err
		}
	}
	env, err := admissioncel.WithVariables(base, x.variables, false, x.c.stored)
	if err != nil {
		return nil, err
	}
	*e = env
	return env, nil
}

// Variable compiles a variable's expression, reports its error at path
// (the variable's expression field), and declares the variable for the
// expressions after it.
func (x *ExpressionChecker) Variable(name, expression string, stored bool, path *field.Path) *field.Error {
	env, err := x.env(stored, false)
	if err != nil {
		return field.InternalError(path, err)
	}
	checked, cerr := env.Check(expression)
	var out *types.Type
	if checked != nil && cerr == nil {
		out = checked.OutputType()
	}
	x.variables.SetField(name, admissioncel.VariableFieldType(out))
	if cerr != nil {
		return cerr.FieldError(path, expression)
	}
	return nil
}

// Mutation compiles a mutation's expression as kube-apiserver's validation
// does, trimmed of surrounding spaces, and reports its error at path (the
// expression field of the mutation's body). A mutation without a known
// patch type and its body, or with a blank expression, is left to the
// structural checks.
func (x *ExpressionChecker) Mutation(m admissionregistrationv1.Mutation, stored bool, path *field.Path) *field.Error {
	want, expr, ok := returnTypeOf(m)
	if !ok {
		return nil
	}
	trimmed := strings.TrimSpace(expr)
	if trimmed == "" {
		return nil
	}
	env, err := x.env(stored, true)
	if err != nil {
		return field.InternalError(path, err)
	}
	if _, cerr := env.Check(trimmed, want); cerr != nil {
		return cerr.FieldError(path, trimmed)
	}
	return nil
}

// WrittenFields returns the fields mutation i (an ApplyConfiguration) may
// set, as paths from the object's root (".spec.containers[*].image"; a path
// stands for its whole subtree), computed from the expression: known is
// false when they cannot be known statically (the value is not built of
// Object initializers), and for a JSON Patch or a mutation that does not
// compile.
func (p *Policy) WrittenFields(i int) (paths []string, known bool) {
	if i < 0 || i >= len(p.mutations) || !p.mutations[i].writtenKnown {
		return nil, false
	}
	return slices.Clone(p.mutations[i].written), true
}
