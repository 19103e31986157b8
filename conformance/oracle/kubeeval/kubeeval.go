// Package kubeeval answers oracle queries with the k8s.io/apiserver it is
// built against. The oracle program (package main above) serves it over
// stdin/stdout for the versions that cannot be linked into the conformance
// tests; the conformance module links it directly for the version it pins,
// so every version answers with the same code.
//
// It must not import gatehouse.
package kubeeval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	basever "k8s.io/component-base/version"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// Evaluator answers queries. It caches environments and is not safe for
// concurrent use.
type Evaluator struct {
	envs          map[string]*celEnv
	authzCompiler authorizationcel.Compiler
}

// New returns an Evaluator.
func New() *Evaluator { return &Evaluator{envs: map[string]*celEnv{}} }

// Answer answers q. It never panics: a panic while answering becomes
// Answer.Error.
func (e *Evaluator) Answer(q protocol.Query) (a protocol.Answer) {
	defer func() {
		if r := recover(); r != nil {
			a = protocol.Answer{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	switch q.Op {
	case protocol.OpInfo:
		return info()
	case protocol.OpCEL:
		return e.cel(q)
	case protocol.OpAuthzConfig:
		return e.authzConfig(q)
	case protocol.OpUnion:
		return e.union(q)
	case protocol.OpVAP:
		v, err := vap(q.VAP)
		if err != nil {
			return protocol.Answer{Error: err.Error()}
		}
		return protocol.Answer{VAP: v}
	case protocol.OpConditional:
		return conditional(q)
	case protocol.OpConditionsEnforcer:
		return conditionsEnforcer(q)
	case protocol.OpConditionalWebhook:
		return conditionalWebhook(q.ConditionalWebhook)
	case protocol.OpPluginConfig:
		var r io.Reader
		if !q.NoData {
			r = bytes.NewReader(q.Data)
		}
		c, err := pluginConfig(q.Plugin, r)
		if err != nil {
			return protocol.Answer{ConfigError: err.Error()}
		}
		return protocol.Answer{PluginConfig: c}
	default:
		return protocol.Answer{Error: fmt.Sprintf("unknown op %q (known: %q, %q, %q, %q, %q, %q, %q, %q, %q)", q.Op, protocol.OpInfo, protocol.OpCEL, protocol.OpAuthzConfig, protocol.OpUnion, protocol.OpVAP, protocol.OpPluginConfig, protocol.OpConditional, protocol.OpConditionalWebhook, protocol.OpConditionsEnforcer)}
	}
}

func info() protocol.Answer {
	a := protocol.Answer{
		Kubernetes:    basever.DefaultKubeBinaryVersion,
		DefaultCompat: environment.DefaultCompatibilityVersion().String(),
		GoVersion:     runtime.Version(),
	}
	a.Apiserver, a.CELGo = "(no build info)", "(no build info)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Version
			}
			switch m.Path {
			case "k8s.io/apiserver":
				a.Apiserver = v
			case "github.com/google/cel-go", "cel.dev/cel-go":
				a.CELGo = m.Path + "@" + v
			}
		}
	}
	return a
}

// celEnv is the admission compiler for one compatibility version and one
// set of declared variables, and the same environment built beside it for
// cost estimates (the compiler does not expose its environment).
type celEnv struct {
	compiler plugincel.Compiler
	opts     plugincel.OptionalVariableDeclarations
	mirror   *environment.EnvSet
}

// admission variables (plugin/cel/compile.go).
var admissionVars = map[string]bool{
	plugincel.ObjectVarName: true, plugincel.OldObjectVarName: true, plugincel.ParamsVarName: true,
	plugincel.RequestVarName: true, plugincel.NamespaceVarName: true,
}

func (e *Evaluator) env(compat *version.Version, vars map[string]string) (*celEnv, error) {
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	var key strings.Builder
	key.WriteString(compat.String())
	var extra []celEnvOption
	opts := plugincel.OptionalVariableDeclarations{}
	for _, n := range names {
		t := vars[n]
		fmt.Fprintf(&key, ";%s:%s", n, t)
		switch n {
		case plugincel.ObjectVarName, plugincel.OldObjectVarName, plugincel.ParamsVarName:
			if t != "dyn" {
				return nil, fmt.Errorf("variable %q is declared by admission as dyn, not %q", n, t)
			}
			if n == plugincel.ParamsVarName {
				opts.HasParams = true
			}
			continue
		case plugincel.RequestVarName, plugincel.NamespaceVarName:
			return nil, fmt.Errorf("variable %q is declared by admission with its own type; do not list it", n)
		case plugincel.AuthorizerVarName, plugincel.VariableVarName:
			return nil, fmt.Errorf("variable %q is not supported yet", n)
		}
		ct, err := ParseType(t)
		if err != nil {
			return nil, fmt.Errorf("variable %q: %w", n, err)
		}
		extra = append(extra, celVariable(n, ct))
	}
	if ce, ok := e.envs[key.String()]; ok {
		return ce, nil
	}
	base := environment.MustBaseEnvSet(compat)
	if len(extra) > 0 {
		var err error
		base, err = base.Extend(environment.VersionedOptions{IntroducedVersion: version.MajorMinor(1, 0), EnvOptions: extra})
		if err != nil {
			return nil, err
		}
	}
	// The compiler declares object, oldObject, namespaceObject, request
	// and, with HasParams, params (plugin/cel/compile.go createEnvForOpts).
	compiler := plugincel.NewCompiler(base)
	// The same declarations, for estimates.
	requestType, namespaceType := plugincel.BuildRequestType(), plugincel.BuildNamespaceType()
	decls := []celEnvOption{
		celVariable(plugincel.ObjectVarName, celDynType),
		celVariable(plugincel.OldObjectVarName, celDynType),
		celVariable(plugincel.NamespaceVarName, namespaceType.CelType()),
		celVariable(plugincel.RequestVarName, requestType.CelType()),
	}
	if opts.HasParams {
		decls = append(decls, celVariable(plugincel.ParamsVarName, celDynType))
	}
	mirror, err := base.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        decls,
		DeclTypes:         []*apiservercel.DeclType{namespaceType, requestType},
	}, environment.StrictCostOpt)
	if err != nil {
		return nil, err
	}
	ce := &celEnv{compiler: compiler, opts: opts, mirror: mirror}
	e.envs[key.String()] = ce
	return ce, nil
}

// accessor is the compiled expression: any output type is accepted (as for
// a policy variable).
type accessor string

func (a accessor) GetExpression() string   { return string(a) }
func (a accessor) ReturnTypes() []*celType { return []*celType{celAnyType} }

func (e *Evaluator) cel(q protocol.Query) protocol.Answer {
	var mode environment.Type
	switch q.Env {
	case protocol.EnvStored:
		mode = environment.StoredExpressions
	case protocol.EnvNew:
		mode = environment.NewExpressions
	default:
		return protocol.Answer{Error: fmt.Sprintf("env must be %q or %q, not %q", protocol.EnvStored, protocol.EnvNew, q.Env)}
	}
	compat := environment.DefaultCompatibilityVersion()
	if q.Compat != "" {
		v, err := version.ParseMajorMinor(q.Compat)
		if err != nil {
			return protocol.Answer{Error: fmt.Sprintf("compat: %v", err)}
		}
		compat = version.MajorMinor(v.Major(), v.Minor())
	}
	if q.CostLimit < 0 {
		return protocol.Answer{Error: "costLimit must not be negative"}
	}
	ce, err := e.env(compat, q.Vars)
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	activation := map[string]any{}
	for _, n := range []string{plugincel.ObjectVarName, plugincel.OldObjectVarName, plugincel.RequestVarName, plugincel.NamespaceVarName} {
		activation[n] = nil
	}
	if ce.opts.HasParams {
		activation[plugincel.ParamsVarName] = nil
	}
	for n, raw := range q.Activation {
		if _, declared := q.Vars[n]; !declared && !admissionVars[n] {
			return protocol.Answer{Error: fmt.Sprintf("activation of undeclared variable %q", n)}
		}
		v, err := DecodeValue(raw)
		if err != nil {
			return protocol.Answer{Error: fmt.Sprintf("activation of %q: %v", n, err)}
		}
		activation[n] = v
	}

	var a protocol.Answer
	res := ce.compiler.CompileCELExpression(accessor(q.Expression), ce.opts, mode)
	menv, err := ce.mirror.Env(mode)
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	if res.Error != nil {
		// A type-check error, an output type refused, or a program that
		// cannot be planned (an invalid regular expression literal).
		a.CompileError = res.Error.Error()
		return a
	}
	ast, iss := menv.Compile(q.Expression)
	if iss.Err() != nil {
		return protocol.Answer{Error: fmt.Sprintf("internal: the admission compiler accepts the expression, the estimating environment says %v", iss.Err())}
	}
	a.OutputType = res.OutputType.String()
	if est, err := menv.EstimateCost(ast, &library.CostEstimator{}); err != nil {
		a.EstimateError = err.Error()
	} else {
		a.EstimatedMin, a.EstimatedMax = &est.Min, &est.Max
	}

	// Evaluate as admission does (plugin/cel/activation.go Evaluate).
	out, det, evalErr := res.Program.ContextEval(context.Background(), activation)
	budget := q.CostLimit
	if budget == 0 {
		budget = celconfig.RuntimeCELCostBudget
	}
	if det == nil || det.ActualCost() == nil {
		a.EvalError = fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", q.Expression)
		return a
	}
	cost := *det.ActualCost()
	a.Cost = &cost
	if cost > uint64(budget) {
		a.EvalError = "validation failed due to running out of cost budget, no further validation rules will be run"
		return a
	}
	if evalErr != nil {
		a.EvalError = evalErr.Error()
		return a
	}
	a.Result, a.ResultType, err = EncodeResult(out)
	if err != nil {
		return protocol.Answer{Error: fmt.Sprintf("encoding the result: %v", err)}
	}
	return a
}

// ParseType parses the declared type of a variable.
func ParseType(s string) (*celType, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "dyn":
		return celDynType, nil
	case "string":
		return celStringType, nil
	case "int":
		return celIntType, nil
	case "uint":
		return celUintType, nil
	case "double":
		return celDoubleType, nil
	case "bool":
		return celBoolType, nil
	case "bytes":
		return celBytesType, nil
	case "duration":
		return celDurationType, nil
	case "timestamp":
		return celTimestampType, nil
	}
	if inner, ok := strings.CutPrefix(s, "list("); ok && strings.HasSuffix(inner, ")") {
		elem, err := ParseType(strings.TrimSuffix(inner, ")"))
		if err != nil {
			return nil, err
		}
		return celListType(elem), nil
	}
	if inner, ok := strings.CutPrefix(s, "map("); ok && strings.HasSuffix(inner, ")") {
		inner = strings.TrimSuffix(inner, ")")
		// the key is a simple type: split at the first comma.
		k, v, found := strings.Cut(inner, ",")
		if !found {
			return nil, fmt.Errorf("map type %q needs a key and a value type", s)
		}
		kt, err := ParseType(k)
		if err != nil {
			return nil, err
		}
		vt, err := ParseType(v)
		if err != nil {
			return nil, err
		}
		return celMapType(kt, vt), nil
	}
	return nil, fmt.Errorf("unknown type %q (known: dyn, string, int, uint, double, bool, bytes, duration, timestamp, list(T), map(K,V))", s)
}
