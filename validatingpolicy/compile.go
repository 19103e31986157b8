package validatingpolicy

import (
	"errors"
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// Compiler compiles ValidatingAdmissionPolicies in kube-apiserver 1.37's CEL
// environments. Its environments are built once; it is safe for concurrent
// use.
type Compiler struct {
	conditions *matchcond.AdmissionCompiler
	// bases are the environments of stored expressions, by
	// [hasParams][hasAuthorizer]: validations, audit annotations and
	// variables declare authorizer, messageExpressions do not. A policy's
	// extend them with its variables.
	bases [2][2]*cel.Env
	// noVariables are bases extended with no variables: policies without
	// variables share them.
	noVariables [2][2]*admissioncel.PolicyEnv
	// stored is the flavor of the environments.
	stored icel.Flavor
	// kube is the kube-apiserver the compiler answers as.
	kube kube.Target
}

// NewCompiler builds the environments of ValidatingAdmissionPolicies, as
// the newest release's kube-apiserver (NewCompilerFor).
func NewCompiler() (*Compiler, error) {
	return NewCompilerFor(kube.Target{})
}

// NewCompilerFor builds the environments of ValidatingAdmissionPolicies as
// kube-apiserver t does, with the CEL of its version (includes() from 1.37,
// cel-go 0.26's behaviours before).
func NewCompilerFor(t kube.Target) (*Compiler, error) {
	conditions, err := matchcond.NewAdmissionCompilerFor(t)
	if err != nil {
		return nil, err
	}
	c := &Compiler{conditions: conditions, stored: icel.FlavorOf(t, true), kube: t}
	for _, params := range []bool{false, true} {
		for _, authz := range []bool{false, true} {
			env, err := admissioncel.NewPolicyBaseEnv(c.stored.NewEnv, admissioncel.EnvOptions{Params: params, Authorizer: authz})
			if err != nil {
				return nil, err
			}
			c.bases[b2i(params)][b2i(authz)] = env
			if c.noVariables[b2i(params)][b2i(authz)], err = admissioncel.WithVariables(env, celdecl.NewObjectRegistration(admissioncel.VariablesTypeName), true, c.stored); err != nil {
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

// The return types kube-apiserver requires.
var (
	validationTypes      = []*types.Type{types.BoolType}
	messageTypes         = []*types.Type{types.StringType}
	auditAnnotationTypes = []*types.Type{types.StringType, types.NullType}
)

// expression is one compiled expression of a policy; program is nil when it
// did not compile (err says why) and for an absent messageExpression.
type expression struct {
	text    string
	program *icel.Program
	err     *admissioncel.CompileError
	// native is the expression as a native closure, nil when it is not of
	// the native shapes.
	native *nativeProgram
}

// validation is one compiled validation.
type validation struct {
	expression
	message string
	reason  *string
	// messageExpression is set when the validation has one.
	messageExpression *expression
}

// auditAnnotation is one compiled audit annotation.
type auditAnnotation struct {
	expression
	key string
}

// Policy is a compiled ValidatingAdmissionPolicy. It is immutable and safe
// for concurrent use.
type Policy struct {
	policy *admissionregistrationv1.ValidatingAdmissionPolicy
	// envErr is set when the policy's environment could not be built: every
	// evaluation fails with it.
	envErr error

	conditions       *matchcond.AdmissionMatcher // nil without match conditions
	variables        *admissioncel.PolicyVariables
	nativeVariables  *nativeVariables // nil without variables
	validations      []validation
	auditAnnotations []auditAnnotation
}

// Compile compiles a policy's variables, match conditions, validations,
// messageExpressions and audit annotations as kube-apiserver does when it
// loads the policy. An expression that does not compile is not an error
// here: as in kube-apiserver, it fails the requests that evaluate it
// ("compilation error: compilation failed: ERROR: ..."); CompileErrors lists
// such errors. The policy must not be modified afterwards.
func (c *Compiler) Compile(p *admissionregistrationv1.ValidatingAdmissionPolicy) *Policy {
	out := &Policy{policy: p, variables: admissioncel.NoVariables()}
	if p == nil {
		out.envErr = errors.New("no policy")
		return out
	}
	if err := out.compile(c); err != nil {
		out.envErr = err
	}
	return out
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
	env, messageEnv := c.noVariables[b2i(hasParams)][1], c.noVariables[b2i(hasParams)][0]
	if len(spec.Variables) > 0 {
		vars, reg, err := admissioncel.CompileVariables(c.bases[b2i(hasParams)][1], spec.Variables, c.stored)
		if err != nil {
			return err
		}
		p.variables = vars
		if env, err = admissioncel.WithVariables(c.bases[b2i(hasParams)][1], reg, true, c.stored); err != nil {
			return err
		}
		if messageEnv, err = admissioncel.WithVariables(c.bases[b2i(hasParams)][0], reg, true, c.stored); err != nil {
			return err
		}
	}
	p.nativeVariables = compileNativeVariables(p.variables)
	for _, v := range spec.Validations {
		cv := validation{expression: p.compileExpression(env, v.Expression, validationTypes), message: v.Message, reason: (*string)(v.Reason)}
		if v.MessageExpression != "" {
			me := p.compileExpression(messageEnv, v.MessageExpression, messageTypes)
			cv.messageExpression = &me
		}
		p.validations = append(p.validations, cv)
	}
	for _, a := range spec.AuditAnnotations {
		p.auditAnnotations = append(p.auditAnnotations, auditAnnotation{expression: p.compileExpression(env, a.ValueExpression, auditAnnotationTypes), key: a.Key})
	}
	return nil
}

func (p *Policy) compileExpression(env *admissioncel.PolicyEnv, text string, want []*types.Type) expression {
	prg, checked, err := env.Compile(text, want...)
	e := expression{text: text, program: prg, err: err}
	if err == nil && checked != nil {
		e.native = compileNative(checked.NativeRep().Expr(), p.nativeVariables)
	}
	return e
}

// compileNativeVariables compiles the variables that have a native form;
// nil without variables.
func compileNativeVariables(vars *admissioncel.PolicyVariables) *nativeVariables {
	if vars == nil || len(vars.List) == 0 {
		return nil
	}
	nv := &nativeVariables{vars: vars, progs: make([]nativeExpr, len(vars.List))}
	for i, cv := range vars.List {
		if cv.Err != nil || cv.Checked == nil || cv.Program == nil {
			continue
		}
		if prg := compileNative(cv.Checked.NativeRep().Expr(), nv); prg != nil {
			nv.progs[i] = prg.eval
		}
	}
	return nv
}

// Name is the policy's name.
func (p *Policy) Name() string {
	if p.policy == nil {
		return ""
	}
	return p.policy.Name
}

// CompileErrors returns the errors of the expressions that did not compile,
// in the order of the policy's variables, match conditions, validations (each
// followed by its messageExpression) and audit annotations: each fails the
// requests that evaluate it.
func (p *Policy) CompileErrors() []error {
	var conditionErrs []error
	if p.conditions != nil {
		conditionErrs = p.conditions.CompileErrors()
	}
	errs := p.variables.PolicyCompileErrors(p.envErr, conditionErrs)
	for i, v := range p.validations {
		if v.err != nil {
			errs = append(errs, fmt.Errorf("validation %d: %w", i, v.err))
		}
		if v.messageExpression != nil && v.messageExpression.err != nil {
			errs = append(errs, fmt.Errorf("validation %d messageExpression: %w", i, v.messageExpression.err))
		}
	}
	for i, a := range p.auditAnnotations {
		if a.err != nil {
			errs = append(errs, fmt.Errorf("auditAnnotation %d (%s): %w", i, a.key, a.err))
		}
	}
	return errs
}
