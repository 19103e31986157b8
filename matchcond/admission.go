package matchcond

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// MaxAdmissionMatchConditions is the most match conditions an admission
// webhook or policy may have.
const MaxAdmissionMatchConditions = 64

// AdmissionCompiler compiles the match conditions of admission webhooks and
// policies in kube-apiserver 1.37's admission environment: the base
// environment for stored expressions with the variables object and
// oldObject (dyn), request (kubernetes.AdmissionRequest), namespaceObject
// (kubernetes.Namespace), authorizer and authorizer.requestResource, plus
// params for a policy with a paramKind and variables for a policy. It is safe
// for concurrent use.
type AdmissionCompiler struct {
	parser *authzcond.FastParser
	// bases holds the admission environments of stored expressions, by the
	// libraries beside the standard one (see icel.LibrariesOf): a webhook's
	// or policy's expressions are compiled in the environment of the
	// libraries they call, built when first needed.
	bases *authzcond.Environments[icel.Libraries, *admissionEnv]
	// validation holds the environments of Validate, built when first used.
	validation *authzcond.Environments[validationEnvKey, *admissionEnv]
	// policies holds the environments of policies without variables, by
	// libraries and params, built when first used: such policies share
	// them rather than each extending its own.
	policies *authzcond.Environments[policyEnvKey, *admissionEnv]
	// stored and newExpressions are the flavors of the kube-apiserver
	// compiled for: its environments of stored and of new expressions.
	stored, newExpressions icel.Flavor
}

// policyEnvKey names the environment of policies without variables.
type policyEnvKey struct {
	libs      icel.Libraries
	hasParams bool
}

// validationEnvKey names an environment of Validate.
type validationEnvKey struct {
	newExpressions bool // otherwise the environment of stored expressions
	hasParams      bool
	noAuthorizer   bool // authorizer is not declared (messageExpression)
}

// admissionEnv is one admission environment with its planner.
type admissionEnv struct {
	env     *cel.Env
	flavor  icel.Flavor
	planner *icel.Planner
	// variables is the kubernetes.variables type of a policy's environment,
	// which gains a field as each variable compiles; nil for webhooks.
	variables *celdecl.RegisteredType
}

// NewAdmissionCompiler builds the admission environment of the standard
// library; those of other libraries are built when an expression first
// calls them.
func NewAdmissionCompiler() (*AdmissionCompiler, error) {
	return NewAdmissionCompilerFor(kube.Target{})
}

// NewAdmissionCompilerFor is NewAdmissionCompiler as kube-apiserver t
// compiles: in its environments of stored expressions (match conditions,
// policies) and of new ones (Validate's), with the CEL of its version.
func NewAdmissionCompilerFor(t kube.Target) (*AdmissionCompiler, error) {
	c := &AdmissionCompiler{parser: authzcond.NewStandardFastParser(), stored: icel.FlavorOf(t, true), newExpressions: icel.FlavorOf(t, false)}
	c.bases = authzcond.NewEnvironments(func(libs icel.Libraries) (*admissionEnv, error) {
		env, err := newAdmissionEnv(c.stored, func(opts ...cel.EnvOption) (*cel.Env, error) { return c.stored.NewEnvOf(libs, opts...) })
		if err != nil {
			return nil, fmt.Errorf("building the admission CEL environment: %w", err)
		}
		return env, nil
	})
	c.validation = authzcond.NewEnvironments(c.newValidationEnv)
	c.policies = authzcond.NewEnvironments(func(key policyEnvKey) (*admissionEnv, error) {
		base, err := c.bases.Get(key.libs)
		if err != nil {
			return nil, err
		}
		return policyEnv(base, key.hasParams)
	})
	if _, err := c.bases.Get(0); err != nil {
		return nil, err
	}
	return c, nil
}

// newAdmissionEnv builds the admission environment with newEnv (the
// environment of stored or of new expressions), and opts.
func newAdmissionEnv(f icel.Flavor, newEnv func(...cel.EnvOption) (*cel.Env, error), opts ...cel.EnvOption) (*admissionEnv, error) {
	return newAdmissionEnvOf(f, newEnv, true, opts...)
}

// newAdmissionEnvOf is newAdmissionEnv, with or without the authorizer.
func newAdmissionEnvOf(f icel.Flavor, newEnv func(...cel.EnvOption) (*cel.Env, error), authorizer bool, opts ...cel.EnvOption) (*admissionEnv, error) {
	all := []cel.EnvOption{
		cel.Variable(admissioncel.ObjectVarName, types.DynType),
		cel.Variable(admissioncel.OldObjectVarName, types.DynType),
		cel.Variable(admissioncel.NamespaceVarName, types.NewObjectType(admissioncel.NamespaceTypeName)),
		cel.Variable(admissioncel.RequestVarName, types.NewObjectType(admissioncel.AdmissionRequestTypeName)),
	}
	if authorizer {
		all = append(all,
			cel.Variable(admissioncel.AuthorizerVarName, icel.AuthorizerType),
			cel.Variable(admissioncel.RequestResourceVarName, icel.ResourceCheckType))
	}
	all = append(all, celdecl.DeclaredTypes(
		func(types.Adapter) *celdecl.Decl { return admissioncel.NamespaceDecl() },
		func(types.Adapter) *celdecl.Decl { return admissioncel.AdmissionRequestDecl() },
	))
	env, err := newEnv(append(all, opts...)...)
	if err != nil {
		return nil, err
	}
	planner, err := icel.NewPlanner(env, icel.WithFlavor(f))
	if err != nil {
		return nil, err
	}
	return &admissionEnv{env: env, flavor: f, planner: planner}, nil
}

// newValidationEnv builds an environment of Validate: with params, and
// without variables, as kube-apiserver validates match conditions.
func (c *AdmissionCompiler) newValidationEnv(key validationEnvKey) (*admissionEnv, error) {
	if !key.newExpressions && !key.hasParams && !key.noAuthorizer {
		return c.bases.Get(icel.AllLibraries)
	}
	f := c.stored
	if key.newExpressions {
		f = c.newExpressions
	}
	var opts []cel.EnvOption
	if key.hasParams {
		opts = append(opts, cel.Variable(admissioncel.ParamsVarName, types.DynType))
	}
	env, err := newAdmissionEnvOf(f, f.NewEnv, !key.noAuthorizer, opts...)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment of validation: %w", err)
	}
	return env, nil
}

// policyEnv extends a base environment for one policy: variables, and
// params if the policy has a paramKind.
func policyEnv(base *admissionEnv, hasParams bool) (*admissionEnv, error) {
	variables := celdecl.NewObjectRegistration(admissioncel.VariablesTypeName)
	opts := []cel.EnvOption{
		cel.Variable(admissioncel.VariablesVarName, variables.CELType()),
		celdecl.DeclaredType(admissioncel.VariablesTypeName, variables),
	}
	if hasParams {
		opts = append(opts, cel.Variable(admissioncel.ParamsVarName, types.DynType))
	}
	env, err := base.env.Extend(opts...)
	if err != nil {
		return nil, fmt.Errorf("building the policy's CEL environment: %w", err)
	}
	planner, err := icel.NewPlanner(env, icel.WithFlavor(base.flavor))
	if err != nil {
		return nil, fmt.Errorf("building the policy's CEL environment: %w", err)
	}
	return &admissionEnv{env: env, flavor: base.flavor, planner: planner, variables: variables}, nil
}

// parsedExpressions are the expressions of one webhook or policy, parsed
// once to learn the libraries they call.
type parsedExpressions struct {
	asts []*cel.Ast // nil where cel-go's parser must parse
	libs icel.Libraries
}

func (c *AdmissionCompiler) parseAll(exprs []string, isVariable func(string) bool) parsedExpressions {
	p := parsedExpressions{asts: make([]*cel.Ast, len(exprs))}
	for i, expr := range exprs {
		a := c.parseOrNil(expr)
		if a == nil {
			p.libs = icel.AllLibraries
			continue
		}
		libs, ok := icel.LibrariesOf(a.NativeRep().Expr(), isVariable)
		if !ok {
			libs = icel.AllLibraries
		}
		p.libs |= libs
		p.asts[i] = a
	}
	return p
}

// parseOrNil parses expr with the fast parser, or returns nil for cel-go's.
func (c *AdmissionCompiler) parseOrNil(expr string) *cel.Ast {
	if a, ok := c.parser.Parse(expr); ok {
		return a
	}
	return nil
}

// admissionVariables tells the names that the environment of o declares.
func admissionVariables(o AdmissionOptions) func(string) bool {
	return func(name string) bool {
		switch name {
		case admissioncel.ObjectVarName, admissioncel.OldObjectVarName, admissioncel.NamespaceVarName, admissioncel.RequestVarName, admissioncel.AuthorizerVarName:
			return true
		case admissioncel.VariablesVarName:
			return o.Policy
		case admissioncel.ParamsVarName:
			return o.Policy && o.HasParams
		}
		return false
	}
}

// exprError is a compilation error of an admission expression, with
// kube-apiserver's type and detail.
type exprError struct {
	typ    field.ErrorType
	detail string
}

func (e *exprError) Error() string { return e.detail }

// compile compiles one expression as kube-apiserver's admission compiler
// does. bool: the expression must evaluate to bool; otherwise any type.
// parsed is the expression parsed, or nil for cel-go's parser.
func (e *admissionEnv) compile(expr string, parsed *cel.Ast, wantBool bool) (*icel.Program, *types.Type, *exprError) {
	var checked *cel.Ast
	var iss *cel.Issues
	if parsed != nil {
		checked, iss = e.env.Check(parsed)
	} else {
		checked, iss = e.env.Compile(expr)
	}
	if iss != nil {
		return nil, nil, &exprError{field.ErrorTypeInvalid, "compilation failed: " + iss.String()}
	}
	if wantBool && !checked.OutputType().IsExactType(types.BoolType) {
		return nil, nil, &exprError{field.ErrorTypeInvalid, fmt.Sprintf("must evaluate to %v but got %v", types.BoolType, checked.OutputType())}
	}
	prg, err := e.planner.NewProgram(checked, icel.WithInterruptCheckFrequency(authzcond.InterruptCheckFrequency))
	if err != nil {
		return nil, nil, &exprError{field.ErrorTypeInternal, "program instantiation failed: " + err.Error()}
	}
	return prg, checked.OutputType(), nil
}

// AdmissionOptions describe the webhook or policy whose match conditions are
// compiled: its declarations, variables, failure policy and metrics.
type AdmissionOptions struct {
	// Policy compiles the conditions of an admission policy: the variable
	// `variables` is declared, with Variables; and the metrics are labelled
	// kind="policy". Otherwise they are a webhook's: kind="webhook".
	Policy bool
	// HasParams declares params (a policy with a paramKind).
	HasParams bool
	// Variables are the policy's spec.variables, in order: each may use the
	// earlier ones.
	Variables []admissionregistrationv1.Variable
	// FailurePolicy decides what errors do: Fail (nil) or Ignore.
	FailurePolicy *admissionregistrationv1.FailurePolicyType

	// Name is the name label of the metrics: the webhook's or the policy's
	// name.
	Name string
	// Type is the type label of the metrics: "validate" or "admit"
	// (kube-apiserver labels a MutatingAdmissionPolicy's "validate").
	Type string
	// Metrics receives apiserver_admission_match_condition_*. Nil records
	// nothing.
	Metrics metrics.Sink
	// Clock times the evaluations; nil is the real clock.
	Clock clock.PassiveClock
}

// compiledVariable is one compiled variable of a policy.
type compiledVariable struct {
	name       string
	expression string
	program    *icel.Program
	err        *exprError
}

// admissionCondition is one compiled admission match condition.
type admissionCondition struct {
	name       string
	expression string
	program    *icel.Program
	err        *exprError
}

// Compile compiles the match conditions of one webhook or policy, and the
// policy's variables, as kube-apiserver does when it loads them: an
// expression that does not compile is not an error here, it fails at
// evaluation ("compilation error: ..."), as in kube-apiserver; Validate
// reports such errors with their field paths. The error is for an
// environment that cannot be built.
func (c *AdmissionCompiler) Compile(conditions []admissionregistrationv1.MatchCondition, o AdmissionOptions) (*AdmissionMatcher, error) {
	var exprs []string
	if o.Policy {
		for _, v := range o.Variables {
			exprs = append(exprs, v.Expression)
		}
	}
	for _, cond := range conditions {
		exprs = append(exprs, cond.Expression)
	}
	parsed := c.parseAll(exprs, admissionVariables(o))
	env, err := c.bases.Get(parsed.libs)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Policy && len(o.Variables) == 0:
		if env, err = c.policies.Get(policyEnvKey{libs: parsed.libs, hasParams: o.HasParams}); err != nil {
			return nil, err
		}
	case o.Policy:
		if env, err = policyEnv(env, o.HasParams); err != nil {
			return nil, err
		}
	}
	next := 0 // the next expression of parsed
	m := &AdmissionMatcher{policy: o.Policy, failurePolicy: admissionregistrationv1.Fail}
	if o.FailurePolicy != nil {
		m.failurePolicy = *o.FailurePolicy
	}
	if o.Policy {
		byName := map[string]int{}
		for _, v := range o.Variables {
			prg, out, err := env.compile(v.Expression, parsed.asts[next], false)
			next++
			env.variables.SetField(v.Name, admissioncel.VariableFieldType(out))
			cv := &compiledVariable{name: v.Name, expression: v.Expression, program: prg, err: err}
			// A later variable of the same name replaces an earlier one, as
			// in kube-apiserver.
			if i, dup := byName[v.Name]; dup {
				m.variables[i] = cv
				continue
			}
			byName[v.Name] = len(m.variables)
			m.variables = append(m.variables, cv)
		}
		m.variablesType = types.NewObjectType(admissioncel.VariablesTypeName, admissioncel.VariablesTraits)
		m.variableIndex = byName
		for _, v := range m.variables {
			m.variableNames = append(m.variableNames, v.name)
		}
	}
	for _, cond := range conditions {
		prg, _, err := env.compile(cond.Expression, parsed.asts[next], true)
		next++
		m.conditions = append(m.conditions, admissionCondition{name: cond.Name, expression: cond.Expression, program: prg, err: err})
	}
	m.instrument(o)
	return m, nil
}

// CompileErrors returns the errors of the variables and conditions that did
// not compile, in order, as they will fail at evaluation.
func (m *AdmissionMatcher) CompileErrors() []error {
	var errs []error
	for _, v := range m.variables {
		if v.err != nil {
			errs = append(errs, fmt.Errorf("variable %q: %w", v.name, v.err))
		}
	}
	for _, c := range m.conditions {
		if c.err != nil {
			errs = append(errs, fmt.Errorf("match condition %q: %w", c.name, c.err))
		}
	}
	return errs
}

// AdmissionValidateOptions describe the object whose match conditions
// Validate checks.
type AdmissionValidateOptions struct {
	// HasParams declares params (a policy with a paramKind).
	HasParams bool
	// Preexisting are the match condition expressions of the object before
	// the update being validated (of every webhook of a webhook
	// configuration), as they were written; none on create.
	Preexisting []string
}

// Validate checks the matchConditions of a webhook or policy as
// kube-apiserver's API validation does (fldPath is the path of the list):
// at most 64 (Too many, the others still checked); each expression Required
// when blank, otherwise compiled after trimming spaces, without variables,
// with params if o.HasParams: Invalid with kube-apiserver's detail, or an
// internal error; each name Required, a qualified name, and unique
// (Duplicate).
//
// An expression is compiled in the environment of new expressions
// (kube-apiserver's compatibility version, 1.36: no includes() yet), unless
// it is one of o.Preexisting, which kube-apiserver compiles in the
// environment of stored expressions so that an update does not fail on what
// is already stored. As in kube-apiserver, the trimmed expression is looked
// up among the expressions as written.
func (c *AdmissionCompiler) Validate(conditions []admissionregistrationv1.MatchCondition, o AdmissionValidateOptions, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conditions) > MaxAdmissionMatchConditions {
		errs = append(errs, field.TooMany(fldPath, len(conditions), MaxAdmissionMatchConditions))
	}
	preexisting := make(map[string]bool, len(o.Preexisting))
	for _, e := range o.Preexisting {
		preexisting[e] = true
	}
	names := map[string]bool{}
	for i, cond := range conditions {
		path := fldPath.Index(i)
		if expr := strings.TrimSpace(cond.Expression); expr == "" {
			errs = append(errs, field.Required(path.Child("expression"), ""))
		} else if env, err := c.validation.Get(validationEnvKey{newExpressions: !preexisting[expr], hasParams: o.HasParams}); err != nil {
			errs = append(errs, field.InternalError(path.Child("expression"), err))
		} else if _, _, err := env.compile(expr, c.parseOrNil(expr), true); err != nil {
			errs = append(errs, err.fieldError(path.Child("expression"), expr))
		}
		if cond.Name == "" {
			errs = append(errs, field.Required(path.Child("name"), ""))
		} else {
			for _, msg := range content.IsLabelKey(cond.Name) {
				errs = append(errs, field.Invalid(path.Child("name"), cond.Name, msg))
			}
		}
		if cond.Name != "" {
			if names[cond.Name] {
				errs = append(errs, field.Duplicate(path.Child("name"), cond.Name))
			}
			names[cond.Name] = true
		}
	}
	return errs
}

// fieldError is kube-apiserver's validation error for a compilation error.
func (e *exprError) fieldError(path *field.Path, expr string) *field.Error {
	switch e.typ {
	case field.ErrorTypeRequired:
		return field.Required(path, e.detail)
	case field.ErrorTypeInvalid:
		return field.Invalid(path, expr, e.detail)
	}
	return field.InternalError(path, errors.New(e.detail))
}
