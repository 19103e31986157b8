package authzcond

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxAuthorizationMatchConditions is the most match conditions an
// authorization webhook may have.
const MaxAuthorizationMatchConditions = 64

// AuthorizationCompiler compiles the match conditions of authorization
// webhooks in kube-apiserver 1.37's environment: the base environment for
// stored expressions and the variable `request`, of type
// kubernetes.SubjectAccessReviewSpec (the v1 SubjectAccessReviewSpec, whatever
// the webhook's subjectAccessReviewVersion). It is safe for concurrent use;
// build one and compile every webhook's conditions with it.
type AuthorizationCompiler struct {
	parser      *FastParser
	envs        *Environments[icel.Libraries, *authorizationEnv]
	activations *sync.Pool
}

// authorizationEnv is the environment of some libraries of the base
// environment, with the planners of its programs.
type authorizationEnv struct {
	env     *cel.Env
	planner *planner
	tracked *icel.Planner
}

// NewAuthorizationCompiler builds the CEL environment for authorization match
// conditions: the standard library and `request`, which checks most
// expressions. The environments of the other libraries, each with the ones
// an expression calls, are built by the first Compile that needs them (see
// icel.LibrariesOf): the whole base environment costs several times more to
// build than most servers need.
func NewAuthorizationCompiler() (*AuthorizationCompiler, error) {
	return newAuthorizationCompiler(icel.StoredFlavor, false)
}

// NewAuthorizationCompilerOf is NewAuthorizationCompiler as kube-apiserver t
// compiles an AuthorizationConfiguration's match conditions: in its
// environment of stored expressions, and, where it asks webhooks for
// conditional decisions (kubeversions.AuthorizationMatchOptions), with
// request.authorizationOptions declared (see
// AuthorizationMatcher.ExplainOffering).
func NewAuthorizationCompilerOf(t kube.Target) (*AuthorizationCompiler, error) {
	return newAuthorizationCompiler(icel.FlavorOf(t, true), kubeversions.Has(t, kubeversions.AuthorizationMatchOptions))
}

func newAuthorizationCompiler(f icel.Flavor, withOptions bool) (*AuthorizationCompiler, error) {
	envs := NewEnvironments(func(libs icel.Libraries) (*authorizationEnv, error) { return newAuthorizationEnv(f, withOptions, libs) })
	standard, err := envs.Get(0)
	if err != nil {
		return nil, err
	}
	adapter := standard.env.CELTypeAdapter()
	emptyExtra := map[string]authorizationv1.ExtraValue{}
	return &AuthorizationCompiler{parser: NewStandardFastParser(), envs: envs, activations: &sync.Pool{New: func() any {
		return &authzActivation{request: newSARValue(adapter, emptyExtra)}
	}}}, nil
}

func newAuthorizationEnv(f icel.Flavor, withOptions bool, libs icel.Libraries) (*authorizationEnv, error) {
	decl := func(adapter types.Adapter) *celdecl.Decl { return sarDecl(adapter, withOptions) }
	env, err := f.NewEnvOf(libs,
		cel.Variable(sarVarName, types.NewObjectType("kubernetes.SubjectAccessReviewSpec")),
		celdecl.DeclaredTypes(decl),
	)
	if err != nil {
		return nil, fmt.Errorf("building the authorization CEL environment: %w", err)
	}
	p, err := newPlanner(env, sarVarName)
	if err != nil {
		return nil, fmt.Errorf("building the authorization CEL environment: %w", err)
	}
	tracked, err := icel.NewPlanner(env, icel.WithFlavor(f))
	if err != nil {
		return nil, fmt.Errorf("building the authorization CEL environment: %w", err)
	}
	return &authorizationEnv{env: env, planner: p, tracked: tracked}, nil
}

// Compile checks and compiles the expressions of one webhook's
// matchConditions with kube-apiserver's rules:
//   - more than 64 expressions: Too many at fldPath, and nothing is compiled;
//   - an expression empty after trimming spaces: Required;
//   - an exact duplicate of an earlier expression: Duplicate (only the first
//     is compiled);
//   - a parse or type error: Invalid, "compilation failed: " and cel-go's
//     text;
//   - a type other than bool: Invalid, "must evaluate to bool but got <type>".
//
// Each error is at fldPath.Index(i).Child("expression"). fldPath is the path
// of the matchConditions list itself: kube-apiserver's configuration
// validation passes authorizers[i].matchConditions, its webhook constructor
// matchConditions.
//
// The matcher is nil when there are errors. An empty list gives a matcher
// that always matches and records nothing.
func (c *AuthorizationCompiler) Compile(expressions []string, fldPath *field.Path) (*AuthorizationMatcher, field.ErrorList) {
	if len(expressions) > MaxAuthorizationMatchConditions {
		return nil, field.ErrorList{field.TooMany(fldPath, len(expressions), MaxAuthorizationMatchConditions)}
	}
	var errs field.ErrorList
	m := &AuthorizationMatcher{conditions: make([]*compiledCondition, 0, len(expressions))}
	seen := make(map[string]struct{}, len(expressions))
	allNative := true
	for i, expr := range expressions {
		path := fldPath.Index(i).Child("expression")
		if strings.TrimSpace(expr) == "" {
			errs = append(errs, field.Required(path, ""))
			continue
		}
		if _, dup := seen[expr]; dup {
			errs = append(errs, field.Duplicate(path, expr))
			continue
		}
		seen[expr] = struct{}{}
		cond, err := c.compile(expr, path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cond.index = i
		m.conditions = append(m.conditions, cond)
		m.uses.field = m.uses.field || cond.uses.field
		m.uses.label = m.uses.label || cond.uses.label
		m.anyFast = m.anyFast || cond.fast != nil
		allNative = allNative && cond.native != nil
	}
	if len(errs) > 0 {
		return nil, errs
	}
	m.activations = c.activations
	m.allNative = allNative && len(m.conditions) > 0
	return m, nil
}

func (c *AuthorizationCompiler) compile(expr string, path *field.Path) (*compiledCondition, *field.Error) {
	e, checked, iss, err := c.check(expr)
	if err != nil {
		return nil, field.InternalError(path, err)
	}
	// kube-apiserver tests the issues for nil, not for errors.
	if iss != nil {
		return nil, field.Invalid(path, expr, "compilation failed: "+iss.String())
	}
	// kube-apiserver compares the type pointer, not the type.
	if checked.OutputType() != cel.BoolType {
		return nil, field.Invalid(path, expr, fmt.Sprintf("must evaluate to %v but got %v", cel.BoolType, checked.OutputType()))
	}
	tracked, err := e.tracked.NewProgram(checked, icel.WithInterruptCheckFrequency(InterruptCheckFrequency))
	if err != nil {
		return nil, field.InternalError(path, errors.New("program instantiation failed: "+err.Error()))
	}
	cond := &compiledCondition{
		expression: expr,
		uses:       scanSelectors(checked.NativeRep().Expr()),
		loops:      hasComprehension(checked.NativeRep().Expr()),
		fast:       e.planner.plan(checked),
		tracked:    tracked,
	}
	if cond.fast != nil {
		cond.native = compileNative(checked.NativeRep().Expr())
	}
	return cond, nil
}

// check parses and checks expr in the smallest environment that checks it
// as the base environment does.
func (c *AuthorizationCompiler) check(expr string) (*authorizationEnv, *cel.Ast, *cel.Issues, error) {
	parsed, ok := c.parser.Parse(expr)
	if !ok {
		whole, err := c.envs.Get(icel.AllLibraries)
		if err != nil {
			return nil, nil, nil, err
		}
		checked, iss := whole.env.Compile(expr)
		return whole, checked, iss, nil
	}
	libs, ok := icel.LibrariesOf(parsed.NativeRep().Expr(), isAuthorizationVariable)
	if !ok {
		libs = icel.AllLibraries
	}
	e, err := c.envs.Get(libs)
	if err != nil {
		return nil, nil, nil, err
	}
	checked, iss := e.env.Check(parsed)
	return e, checked, iss, nil
}

func isAuthorizationVariable(name string) bool { return name == sarVarName }
