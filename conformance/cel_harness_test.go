package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	gcel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// celCase is one expression of the differential corpus, with the values of
// the variables it reads (see celVariables).
type celCase struct {
	expr string
	vars map[string]any
}

// celOutcome is everything observable about compiling and evaluating one
// expression: both implementations must agree on every field.
type celOutcome struct {
	CompileErr string
	OutputType string
	Estimate   string
	ProgramErr string
	Result     string
	EvalErr    string
	Cost       string
	Authorizer []string
}

// celVariables declares the variables of the corpus. Each side declares them
// with its own Authz types.
func celVariables(authorizerType, resourceCheckType *cel.Type) []cel.EnvOption {
	return []cel.EnvOption{
		cel.Variable("s1", cel.StringType),
		cel.Variable("s2", cel.StringType),
		cel.Variable("s3", cel.StringType),
		cel.Variable("n", cel.IntType),
		cel.Variable("u", cel.UintType),
		cel.Variable("d", cel.DoubleType),
		cel.Variable("by", cel.BytesType),
		cel.Variable("bo", cel.BoolType),
		cel.Variable("li", cel.ListType(cel.IntType)),
		cel.Variable("ls", cel.ListType(cel.StringType)),
		cel.Variable("ld", cel.ListType(cel.DoubleType)),
		cel.Variable("m", cel.MapType(cel.StringType, cel.StringType)),
		cel.Variable("dy", cel.DynType),
		cel.Variable("dy2", cel.DynType),
		cel.Variable("authorizer", authorizerType),
		cel.Variable("requestResource", resourceCheckType),
	}
}

// celEnvs holds both environments, built once per test binary.
type celEnvs struct {
	kube *cel.Env
	ours *cel.Env
}

var (
	celEnvsOnce sync.Once
	celEnvsVal  celEnvs
	celEnvsErr  error
)

func loadCELEnvs(t testing.TB) celEnvs {
	t.Helper()
	celEnvsOnce.Do(func() {
		base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
		kube, err := base.Extend(celVariables(library.AuthorizerType, library.ResourceCheckType)...)
		if err != nil {
			celEnvsErr = err
			return
		}
		ours, err := gcel.NewEnv(celVariables(gcel.AuthorizerType, gcel.ResourceCheckType)...)
		if err != nil {
			celEnvsErr = err
			return
		}
		celEnvsVal = celEnvs{kube: kube, ours: ours}
	})
	if celEnvsErr != nil {
		t.Fatal(celEnvsErr)
	}
	return celEnvsVal
}

// celUser is the user of the corpus's authorizer variables.
var celUser = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "ops"}, Extra: map[string][]string{"scopes": {"a", "b"}}}

// decide is the policy of both fake authorizers: it depends on the verb only.
func decide(verb string) (int, string, error) {
	switch verb {
	case "get":
		return int(authorizer.DecisionAllow), "allowed by test", nil
	case "list":
		return int(authorizer.DecisionDeny), "denied by test", nil
	case "watch":
		return int(authorizer.DecisionNoOpinion), "", errors.New("webhook unreachable")
	default:
		return int(authorizer.DecisionNoOpinion), "no opinion", nil
	}
}

type kubeRecorder struct{ calls []string }

func (r *kubeRecorder) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	fr, ferr := a.GetFieldSelector()
	lr, lerr := a.GetLabelSelector()
	var u *gcel.UserInfo
	if ui := a.GetUser(); ui != nil {
		u = &gcel.UserInfo{Name: ui.GetName(), UID: ui.GetUID(), Groups: ui.GetGroups(), Extra: ui.GetExtra()}
	}
	r.calls = append(r.calls, renderAttributes(&gcel.AuthorizationAttributes{
		User: u, Verb: a.GetVerb(), ResourceRequest: a.IsResourceRequest(), APIGroup: a.GetAPIGroup(),
		APIVersion: a.GetAPIVersion(), Resource: a.GetResource(), Subresource: a.GetSubresource(),
		Namespace: a.GetNamespace(), Name: a.GetName(), Path: a.GetPath(),
		FieldSelectorRequirements: fr, FieldSelectorParsingErr: ferr,
		LabelSelectorRequirements: lr, LabelSelectorParsingErr: lerr,
	}))
	d, reason, err := decide(a.GetVerb())
	return authorizer.Decision(d), reason, err
}

type ourRecorder struct{ calls []string }

func (r *ourRecorder) Authorize(_ context.Context, a *gcel.AuthorizationAttributes) (gcel.Decision, string, error) {
	r.calls = append(r.calls, renderAttributes(a))
	d, reason, err := decide(a.Verb)
	return gcel.Decision(d), reason, err
}

func renderAttributes(a *gcel.AuthorizationAttributes) string {
	var b strings.Builder
	if a.User == nil {
		b.WriteString("user=<nil>")
	} else {
		keys := make([]string, 0, len(a.User.Extra))
		for k := range a.User.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		extra := make([]string, 0, len(keys))
		for _, k := range keys {
			extra = append(extra, fmt.Sprintf("%s=%q", k, a.User.Extra[k]))
		}
		fmt.Fprintf(&b, "user=%q uid=%q groups=%q extra=%v", a.User.Name, a.User.UID, a.User.Groups, extra)
	}
	fmt.Fprintf(&b, " verb=%q resource=%v group=%q version=%q res=%q sub=%q ns=%q name=%q path=%q",
		a.Verb, a.ResourceRequest, a.APIGroup, a.APIVersion, a.Resource, a.Subresource, a.Namespace, a.Name, a.Path)
	fmt.Fprintf(&b, " fields=%s", renderFieldRequirements(a.FieldSelectorRequirements))
	if a.FieldSelectorParsingErr != nil {
		fmt.Fprintf(&b, " fieldErr=%q", a.FieldSelectorParsingErr.Error())
	}
	fmt.Fprintf(&b, " labels=%s", renderLabelRequirements(a.LabelSelectorRequirements))
	if a.LabelSelectorParsingErr != nil {
		fmt.Fprintf(&b, " labelErr=%q", a.LabelSelectorParsingErr.Error())
	}
	return b.String()
}

func renderFieldRequirements(r fields.Requirements) string {
	if r == nil {
		return "<nil>"
	}
	parts := make([]string, len(r))
	for i, q := range r {
		parts[i] = fmt.Sprintf("%q %s %q", q.Field, q.Operator, q.Value)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func renderLabelRequirements(r labels.Requirements) string {
	if r == nil {
		return "<nil>"
	}
	parts := make([]string, len(r))
	for i, q := range r {
		parts[i] = fmt.Sprintf("%q %s %q", q.Key(), q.Operator(), q.ValuesUnsorted())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// renderValue renders a CEL value in a form independent of the
// implementation: the type name and a canonical text of the value.
func renderValue(v ref.Val) string {
	if v == nil {
		return "<nil>"
	}
	switch x := v.(type) {
	case *types.Err:
		return "error(" + x.Error() + ")"
	case *types.Optional:
		if !x.HasValue() {
			return "optional.none()"
		}
		return "optional.of(" + renderValue(x.GetValue()) + ")"
	case *types.Type:
		return "type(" + x.TypeName() + ")"
	case types.Bool, types.Int, types.Uint, types.Double, types.Null:
		return fmt.Sprintf("%s(%v)", v.Type().TypeName(), v.Value())
	case types.String:
		return fmt.Sprintf("string(%q)", string(x))
	case types.Bytes:
		return fmt.Sprintf("bytes(%q)", []byte(x))
	case types.Duration:
		return "duration(" + x.Duration.String() + ")"
	case types.Timestamp:
		return "timestamp(" + x.Time.UTC().String() + ")"
	case traits.Lister:
		var parts []string
		for it := x.Iterator(); it.HasNext() == types.True; {
			parts = append(parts, renderValue(it.Next()))
		}
		return v.Type().TypeName() + "[" + strings.Join(parts, ", ") + "]"
	case traits.Mapper:
		var parts []string
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			parts = append(parts, renderValue(k)+": "+renderValue(x.Get(k)))
		}
		sort.Strings(parts)
		return v.Type().TypeName() + "{" + strings.Join(parts, ", ") + "}"
	}
	text := "?"
	if s, err := v.ConvertToNative(reflect.TypeOf("")); err == nil {
		text = fmt.Sprint(s)
	} else {
		text = "!" + err.Error()
	}
	return fmt.Sprintf("%s<%s>", v.Type().TypeName(), text)
}

// celSide is one implementation under comparison.
type celSide struct {
	env            *cel.Env
	programOptions []cel.ProgramOption
	estimator      checker.CostEstimator
	// authorizerVars returns fresh authorizer variables and a function
	// returning the checks they received.
	authorizerVars func() (map[string]any, func() []string)
	// compile, if set, replaces env.Compile and gives the environment in
	// which the expression is then estimated and planned.
	compile func(expr string) (*cel.Env, *cel.Ast, *cel.Issues)
	// program, if set, replaces env.Program(ast, programOptions...) +
	// Eval.
	eval func(env *cel.Env, ast *cel.Ast, vars map[string]any) (out ref.Val, cost *uint64, programErr, evalErr error)
}

func kubeSide(t testing.TB) celSide {
	return celSide{
		env:       loadCELEnvs(t).kube,
		estimator: &library.CostEstimator{},
		authorizerVars: func() (map[string]any, func() []string) {
			r := &kubeRecorder{}
			return map[string]any{
				"authorizer":      library.NewAuthorizerVal(celUser, r),
				"requestResource": library.NewResourceAuthorizerVal(celUser, r, celRequestResource{}),
			}, func() []string { return r.calls }
		},
	}
}

func oursSide(t testing.TB) celSide {
	ourUser := &gcel.UserInfo{Name: celUser.Name, UID: celUser.UID, Groups: celUser.Groups, Extra: celUser.Extra}
	return celSide{
		env:            loadCELEnvs(t).ours,
		programOptions: gcel.ProgramOptions(),
		estimator:      &gcel.CostEstimator{},
		authorizerVars: func() (map[string]any, func() []string) {
			r := &ourRecorder{}
			rr := celRequestResource{}
			return map[string]any{
				"authorizer": gcel.NewAuthorizerValue(context.Background(), ourUser, r),
				"requestResource": gcel.NewResourceCheckValue(context.Background(), ourUser, r,
					rr.GetResource().Group, rr.GetResource().Resource, rr.GetSubresource(), rr.GetNamespace(), rr.GetName()),
			}, func() []string { return r.calls }
		},
	}
}

// boundedSide evaluates with gatehouse's Program (bounded evaluation time)
// instead of cel-go's program.
func boundedSide(t testing.TB) celSide {
	side := oursSide(t)
	planner, err := gcel.NewPlanner(side.env)
	if err != nil {
		t.Fatal(err)
	}
	side.eval = boundedEval(planner)
	return side
}

// boundedEval plans and evaluates with planner.
func boundedEval(planner *gcel.Planner) func(*cel.Env, *cel.Ast, map[string]any) (ref.Val, *uint64, error, error) {
	return func(_ *cel.Env, ast *cel.Ast, vars map[string]any) (ref.Val, *uint64, error, error) {
		prg, err := planner.NewProgram(ast)
		if err != nil {
			return nil, nil, err, nil
		}
		out, cost, err := prg.Eval(context.Background(), vars)
		return out, &cost, nil, err
	}
}

// celRequestResource is the request of authorizer.requestResource.
type celRequestResource struct{}

func (celRequestResource) GetName() string      { return "web-0" }
func (celRequestResource) GetNamespace() string { return "prod" }
func (celRequestResource) GetResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
}
func (celRequestResource) GetSubresource() string { return "scale" }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// typeVar is a type variable of the checker. Its number depends on the
// order in which the checker tries overloads, which follows Go map order:
// kube-apiserver's own messages vary from one environment to the next.
var typeVar = regexp.MustCompile(`_var\d+`)

func normalizeTypeVars(s string) string { return typeVar.ReplaceAllString(s, "_var") }

// run compiles, estimates and evaluates c on one side.
func (s celSide) run(c celCase) celOutcome {
	var o celOutcome
	env := s.env
	var ast *cel.Ast
	var iss *cel.Issues
	if s.compile != nil {
		env, ast, iss = s.compile(c.expr)
	} else {
		ast, iss = env.Compile(c.expr)
	}
	if iss.Err() != nil {
		o.CompileErr = normalizeTypeVars(iss.Err().Error())
		return o
	}
	o.OutputType = normalizeTypeVars(ast.OutputType().String())
	if est, err := env.EstimateCost(ast, s.estimator); err != nil {
		o.Estimate = "error: " + err.Error()
	} else {
		o.Estimate = fmt.Sprintf("[%d, %d]", est.Min, est.Max)
	}
	vars, calls := s.authorizerVars()
	for k, v := range c.vars {
		vars[k] = v
	}
	var out ref.Val
	var cost *uint64
	var programErr, evalErr error
	if s.eval != nil {
		out, cost, programErr, evalErr = s.eval(env, ast, vars)
	} else {
		prg, err := env.Program(ast, s.programOptions...)
		if err != nil {
			programErr = err
		} else {
			var det *cel.EvalDetails
			out, det, evalErr = prg.Eval(vars)
			cost = det.ActualCost()
		}
	}
	if programErr != nil {
		o.ProgramErr = programErr.Error()
		return o
	}
	o.EvalErr = errText(evalErr)
	if evalErr == nil {
		o.Result = renderValue(out)
	}
	if cost != nil {
		o.Cost = fmt.Sprint(*cost)
	} else {
		o.Cost = "<nil>"
	}
	o.Authorizer = calls()
	return o
}

// compareCEL runs every case on kube-apiserver's side and on each of ours
// and reports every difference.
func compareCEL(t *testing.T, cases []celCase, ours ...celSide) {
	t.Helper()
	compareCELSides(t, kubeSide(t), cases, ours...)
}

// compareCELSides runs every case on kube and on each of ours and reports
// every difference.
func compareCELSides(t *testing.T, kube celSide, cases []celCase, ours ...celSide) {
	t.Helper()
	var differences, compileErrs, programErrs, evalErrs, results, authzCalls int
	for _, c := range cases {
		want := kube.run(c)
		switch {
		case want.CompileErr != "":
			compileErrs++
		case want.ProgramErr != "":
			programErrs++
		case want.EvalErr != "":
			evalErrs++
		default:
			results++
		}
		authzCalls += len(want.Authorizer)
		for i, side := range ours {
			got := side.run(c)
			if !reflect.DeepEqual(want, got) {
				differences++
				if differences <= 50 {
					t.Errorf("side %d: %s (vars %v)\nkube: %+v\nours: %+v", i, c.expr, c.vars, want, got)
				}
			}
		}
	}
	t.Logf("%d cases: %d compile errors, %d program errors, %d evaluation errors, %d results, %d authorization checks; %d differences",
		len(cases), compileErrs, programErrs, evalErrs, results, authzCalls, differences)
	if differences > 0 {
		t.Errorf("%d differences in %d cases", differences, len(cases))
	}
}
