package matchcond

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
)

// PolicyExpression is the kind of a CEL expression of an admission policy,
// which decides its result type and whether `authorizer` is declared.
type PolicyExpression int

const (
	// PolicyValidation is a validation's expression: a bool.
	PolicyValidation PolicyExpression = iota + 1
	// PolicyMessage is a validation's messageExpression: a string; as in
	// kube-apiserver, `authorizer` is not declared.
	PolicyMessage
	// PolicyAuditAnnotation is an audit annotation's valueExpression: a
	// string or null.
	PolicyAuditAnnotation
)

// PolicyValidateOptions describe the policy whose expressions a
// PolicyValidator checks.
type PolicyValidateOptions struct {
	// HasParams declares params (a policy with a paramKind).
	HasParams bool
	// Composition declares `variables`, each variable compiled by
	// PolicyValidator.Variable becoming a field of it, as kube-apiserver does
	// for a policy that has spec.variables (and only then: otherwise
	// `variables` is undeclared).
	Composition bool
}

// PolicyValidator checks the CEL expressions of one admission policy
// (variables, validations, message expressions, audit annotations) as
// kube-apiserver's API validation compiles them: in the environment of new
// expressions, or of stored expressions for one the policy already had
// before an update; in order, each variable becoming known, with its type,
// to the expressions compiled after it. It is not safe for concurrent use;
// make one per policy validated.
type PolicyValidator struct {
	c         *AdmissionCompiler
	o         PolicyValidateOptions
	variables *celdecl.RegisteredType
	envs      map[validationEnvKey]*admissionEnv
}

// NewPolicyValidator starts the validation of one policy's expressions.
func (c *AdmissionCompiler) NewPolicyValidator(o PolicyValidateOptions) *PolicyValidator {
	v := &PolicyValidator{c: c, o: o, envs: map[validationEnvKey]*admissionEnv{}}
	if o.Composition {
		v.variables = celdecl.NewObjectRegistration(admissioncel.VariablesTypeName)
	}
	return v
}

// env is the environment of an expression: new or stored, with or without
// the authorizer, with the policy's params and variables.
func (v *PolicyValidator) env(stored, authorizer bool) (*admissionEnv, error) {
	key := validationEnvKey{newExpressions: !stored, hasParams: v.o.HasParams, noAuthorizer: !authorizer}
	if e, ok := v.envs[key]; ok {
		return e, nil
	}
	base, err := v.c.validation.Get(key)
	if err != nil {
		return nil, err
	}
	e := base
	if v.o.Composition {
		env, err := base.env.Extend(
			cel.Variable(admissioncel.VariablesVarName, v.variables.CELType()),
			celdecl.DeclaredType(admissioncel.VariablesTypeName, v.variables),
		)
		if err != nil {
			return nil, fmt.Errorf("building the policy's CEL environment: %w", err)
		}
		planner, err := icel.NewPlanner(env, icel.WithFlavor(base.flavor))
		if err != nil {
			return nil, fmt.Errorf("building the policy's CEL environment: %w", err)
		}
		e = &admissionEnv{env: env, flavor: base.flavor, planner: planner, variables: v.variables}
	}
	v.envs[key] = e
	return e, nil
}

// Variable compiles a variable's expression (as written), at path, and
// declares variables.<name> with its type (dyn if it does not compile) for
// the expressions after it; a later variable of the same name replaces it.
// It returns kube-apiserver's error: Invalid with the expression and
// cel-go's text, or an internal error.
func (v *PolicyValidator) Variable(name, expression string, stored bool, path *field.Path) *field.Error {
	if !v.o.Composition {
		return field.InternalError(path, errors.New("variable composition is not allowed"))
	}
	e, err := v.env(stored, true)
	if err != nil {
		return field.InternalError(path, err)
	}
	out, cerr := e.check(expression, v.c.parseOrNil(expression), nil)
	v.variables.SetField(name, admissioncel.VariableFieldType(out))
	if cerr != nil {
		return cerr.fieldError(path, expression)
	}
	return nil
}

// Expression compiles an expression of the given kind (as given: callers
// trim as kube-apiserver does), at path, and returns kube-apiserver's error:
// Invalid with the expression and cel-go's text, or "must evaluate to ...",
// or an internal error.
func (v *PolicyValidator) Expression(kind PolicyExpression, expression string, stored bool, path *field.Path) *field.Error {
	var want []*types.Type
	authorizer := true
	switch kind {
	case PolicyValidation:
		want = []*types.Type{types.BoolType}
	case PolicyMessage:
		want = []*types.Type{types.StringType}
		authorizer = false
	case PolicyAuditAnnotation:
		want = []*types.Type{types.StringType, types.NullType}
	default:
		return field.InternalError(path, fmt.Errorf("unknown kind of policy expression %d", kind))
	}
	e, err := v.env(stored, authorizer)
	if err != nil {
		return field.InternalError(path, err)
	}
	if _, cerr := e.check(expression, v.c.parseOrNil(expression), want); cerr != nil {
		return cerr.fieldError(path, expression)
	}
	return nil
}

// check compiles expr as kube-apiserver's admission compiler does, and
// checks that its type is one of want (any type if want is empty), with
// kube-apiserver's messages. It returns the output type when the expression
// type-checks.
func (e *admissionEnv) check(expr string, parsed *cel.Ast, want []*types.Type) (*types.Type, *exprError) {
	var checked *cel.Ast
	var iss *cel.Issues
	if parsed != nil {
		checked, iss = e.env.Check(parsed)
	} else {
		checked, iss = e.env.Compile(expr)
	}
	if iss != nil {
		return nil, &exprError{field.ErrorTypeInvalid, "compilation failed: " + iss.String()}
	}
	out := checked.OutputType()
	if len(want) > 0 {
		found := false
		for _, t := range want {
			if out.IsExactType(t) {
				found = true
				break
			}
		}
		if !found {
			if len(want) == 1 {
				return nil, &exprError{field.ErrorTypeInvalid, fmt.Sprintf("must evaluate to %v but got %v", want[0], out)}
			}
			names := make([]string, len(want))
			for i, t := range want {
				names[i] = t.String()
			}
			return nil, &exprError{field.ErrorTypeInvalid, fmt.Sprintf("must evaluate to one of [%s] but got %v", strings.Join(names, " "), out)}
		}
	}
	if _, err := cel.AstToCheckedExpr(checked); err != nil {
		return nil, &exprError{field.ErrorTypeInternal, "unexpected compilation error: " + err.Error()}
	}
	if _, err := e.planner.NewProgram(checked, icel.WithInterruptCheckFrequency(authzcond.InterruptCheckFrequency)); err != nil {
		return nil, &exprError{field.ErrorTypeInternal, "program instantiation failed: " + err.Error()}
	}
	return out, nil
}
