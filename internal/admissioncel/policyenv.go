package admissioncel

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
)

// interruptCheckFrequency is how often, in comprehension iterations, an
// evaluation checks whether its context is done (kube-apiserver's
// celconfig.CheckFrequency).
const interruptCheckFrequency = 100

// ErrOutOfBudget is kube-apiserver's error of an evaluation over its
// budget.
var ErrOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// EnvOptions choose the variables of an admission policy's environment
// (kube-apiserver's OptionalVariableDeclarations).
type EnvOptions struct {
	// Params declares params (a policy with a paramKind).
	Params bool
	// Authorizer declares authorizer and authorizer.requestResource.
	Authorizer bool
	// Extra are more options (the mutation types of a
	// MutatingAdmissionPolicy).
	Extra []cel.EnvOption
}

// NewPolicyBaseEnv builds kube-apiserver's environment of an admission
// policy's expressions, before its variables: object, oldObject,
// namespaceObject, request, and as o says params, authorizer and
// authorizer.requestResource. newEnv is icel.NewEnv for stored expressions
// or icel.NewExpressionsEnv for new ones.
func NewPolicyBaseEnv(newEnv func(...cel.EnvOption) (*cel.Env, error), o EnvOptions) (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.Variable(ObjectVarName, types.DynType),
		cel.Variable(OldObjectVarName, types.DynType),
		cel.Variable(NamespaceVarName, types.NewObjectType(NamespaceTypeName)),
		cel.Variable(RequestVarName, types.NewObjectType(AdmissionRequestTypeName)),
	}
	if o.Authorizer {
		opts = append(opts,
			cel.Variable(AuthorizerVarName, icel.AuthorizerType),
			cel.Variable(RequestResourceVarName, icel.ResourceCheckType))
	}
	if o.Params {
		opts = append(opts, cel.Variable(ParamsVarName, types.DynType))
	}
	opts = append(opts, celdecl.DeclaredTypes(
		func(types.Adapter) *celdecl.Decl { return NamespaceDecl() },
		func(types.Adapter) *celdecl.Decl { return AdmissionRequestDecl() },
	))
	opts = append(opts, o.Extra...)
	env, err := newEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment of the policy: %w", err)
	}
	return env, nil
}

// PolicyEnv is an environment extended with one policy's variables.
type PolicyEnv struct {
	env     *cel.Env
	planner *icel.Planner // nil when the environment only checks
}

// WithVariables extends base, an environment of flavor f, with `variables`
// of type t; plan says whether its expressions become programs (or are only
// checked).
func WithVariables(base *cel.Env, t *celdecl.RegisteredType, plan bool, f icel.Flavor) (*PolicyEnv, error) {
	env, err := base.Extend(
		cel.Variable(VariablesVarName, t.CELType()),
		celdecl.DeclaredType(VariablesTypeName, t),
	)
	if err != nil {
		return nil, fmt.Errorf("building the policy's CEL environment: %w", err)
	}
	pe := &PolicyEnv{env: env}
	if plan {
		if pe.planner, err = icel.NewPlanner(env, icel.WithFlavor(f)); err != nil {
			return nil, fmt.Errorf("building the policy's CEL environment: %w", err)
		}
	}
	return pe, nil
}

// CompileError is an expression's compilation error with kube-apiserver's
// error type and detail; its text is the detail.
type CompileError struct {
	Type   field.ErrorType
	Detail string
}

func (e *CompileError) Error() string { return e.Detail }

// FieldError is the error as kube-apiserver's REST validation reports it
// at path, for expression.
func (e *CompileError) FieldError(path *field.Path, expression string) *field.Error {
	if e.Type == field.ErrorTypeInternal {
		return field.InternalError(path, e)
	}
	return field.Invalid(path, expression, e.Detail)
}

// Check compiles expr and checks its type against want, as kube-apiserver
// does: the output type must be exactly one of them; no want accepts any
// type.
func (e *PolicyEnv) Check(expr string, want ...*types.Type) (*cel.Ast, *CompileError) {
	checked, iss := e.env.Compile(expr)
	if iss != nil {
		return nil, &CompileError{field.ErrorTypeInvalid, "compilation failed: " + iss.String()}
	}
	if len(want) == 0 {
		return checked, nil
	}
	for _, w := range want {
		if checked.OutputType().IsExactType(w) {
			return checked, nil
		}
	}
	if len(want) == 1 {
		return checked, &CompileError{field.ErrorTypeInvalid, fmt.Sprintf("must evaluate to %v but got %v", want[0], checked.OutputType())}
	}
	return checked, &CompileError{field.ErrorTypeInvalid, fmt.Sprintf("must evaluate to one of %v but got %v", want, checked.OutputType())}
}

// Compile compiles expr into a program (see Check).
func (e *PolicyEnv) Compile(expr string, want ...*types.Type) (*icel.Program, *cel.Ast, *CompileError) {
	checked, err := e.Check(expr, want...)
	if err != nil {
		return nil, checked, err
	}
	prg, perr := e.planner.NewProgram(checked, icel.WithInterruptCheckFrequency(interruptCheckFrequency))
	if perr != nil {
		return nil, checked, &CompileError{field.ErrorTypeInternal, "program instantiation failed: " + perr.Error()}
	}
	return prg, checked, nil
}

// CompiledVariable is one compiled variable of a policy.
type CompiledVariable struct {
	Name       string
	Expression string
	Program    *icel.Program
	Err        *CompileError
	// Checked is the checked expression (nil when it did not compile).
	Checked *cel.Ast
}

// PolicyVariables are a policy's compiled variables, ready to be evaluated
// lazily.
type PolicyVariables struct {
	List  []*CompiledVariable
	names []string
	index map[string]int
	typ   *types.Type
}

// NoVariables are the variables of a policy that declares none.
func NoVariables() *PolicyVariables {
	return &PolicyVariables{index: map[string]int{}, typ: types.NewObjectType(VariablesTypeName, VariablesTraits)}
}

// CompileVariables compiles a policy's variables in order in base (of
// flavor f), each
// declared for the later ones (typed by its output, dyn when it does not
// compile), as kube-apiserver's composited compiler does, and returns them
// with the registration of `variables` that the policy's other expressions
// extend their environments with.
func CompileVariables(base *cel.Env, variables []admissionregistrationv1.Variable, f icel.Flavor) (*PolicyVariables, *celdecl.RegisteredType, error) {
	vars := celdecl.NewObjectRegistration(VariablesTypeName)
	varEnv, err := WithVariables(base, vars, true, f)
	if err != nil {
		return nil, nil, err
	}
	out := NoVariables()
	for _, v := range variables {
		prg, checked, cerr := varEnv.Compile(v.Expression)
		var typ *types.Type
		if cerr == nil {
			typ = checked.OutputType()
		}
		vars.SetField(v.Name, VariableFieldType(typ))
		cv := &CompiledVariable{Name: v.Name, Expression: v.Expression, Program: prg, Err: cerr, Checked: checked}
		// A later variable of the same name replaces an earlier one, as in
		// kube-apiserver.
		if i, dup := out.index[v.Name]; dup {
			out.List[i] = cv
			continue
		}
		out.index[v.Name] = len(out.List)
		out.List = append(out.List, cv)
		out.names = append(out.names, v.Name)
	}
	return out, vars, nil
}

// Index is the index in List of the variable `variables.<field>` reads,
// as the lazy variables find it (field names unescaped).
func (v *PolicyVariables) Index(field string) (int, bool) {
	if v == nil {
		return 0, false
	}
	name, ok := UnescapeFieldName(field)
	if !ok {
		return 0, false
	}
	i, ok := v.index[name]
	return i, ok
}

// list is the variables; none for a nil PolicyVariables (a policy that
// could not be compiled at all).
func (v *PolicyVariables) list() []*CompiledVariable {
	if v == nil {
		return nil
	}
	return v.List
}

// Bind sets a's `variables` to a fresh lazy value of these variables,
// evaluated in a and charged to a.VariablesCost.
func (v *PolicyVariables) Bind(a *Activation) {
	a.Variables = NewVariables(v.typ, v.names, v.index, func(i int) ref.Val {
		cv := v.List[i]
		var compileErr error
		if cv.Err != nil {
			compileErr = cv.Err
		}
		return EvalVariable(a.Ctx, cv.Name, cv.Program, compileErr, a, &a.VariablesCost)
	})
}

// Evaluate evaluates one expression with what is left of a budget, as
// kube-apiserver's activation does: the cost of the variables it computed
// first, then its own; either over the budget is ErrOutOfBudget. It returns
// the value, or kube-apiserver's "expression '...' resulted in error", and
// what is left of the budget.
func (a *Activation) Evaluate(prg *icel.Program, expression string, budget int64) (ref.Val, int64, error) {
	val, cost, err := prg.Eval(a.Ctx, a)
	variablesCost := a.VariablesCost
	a.VariablesCost = 0
	if variablesCost > budget {
		return nil, -1, ErrOutOfBudget
	}
	budget -= variablesCost
	if cost > math.MaxInt64 || int64(cost) > budget {
		return nil, -1, ErrOutOfBudget
	}
	budget -= int64(cost)
	if err != nil {
		return nil, budget, fmt.Errorf("expression '%v' resulted in error: %v", expression, err)
	}
	return val, budget, nil
}

// AdmittedVal is the CEL value of an admitted object's unstructured
// content: null for nil; with typedView, kube-apiserver's schemaless typed
// view of a built-in kind's Go object (its expressions see built-in
// objects that way once match conditions ran, and always in
// ValidatingAdmissionPolicy validations), else cel-go's view of
// unstructured content.
func AdmittedVal(o map[string]any, typedView bool) ref.Val {
	if o == nil {
		return types.NullValue
	}
	if typedView {
		return TypedToVal(o)
	}
	return types.DefaultTypeAdapter.NativeToValue(o)
}

// PolicyCompileErrors are the compile errors a policy's expressions share:
// the environment's (envErr), the variables' ("variable <name>: ...") and
// the match conditions' (conditionErrs, from matchcond's
// AdmissionMatcher.CompileErrors, which reports the variables too: they
// are left out), in that order. An engine appends those of its own
// expressions.
func (v *PolicyVariables) PolicyCompileErrors(envErr error, conditionErrs []error) []error {
	var errs []error
	if envErr != nil {
		errs = append(errs, envErr)
	}
	for _, cv := range v.list() {
		if cv.Err != nil {
			errs = append(errs, fmt.Errorf("variable %q: %w", cv.Name, cv.Err))
		}
	}
	for _, err := range conditionErrs {
		if !strings.HasPrefix(err.Error(), "variable ") {
			errs = append(errs, err)
		}
	}
	return errs
}
