package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/kubeeval"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// TestCELMatchesKubeAPIServerPerVersion runs the CEL queries of the oracle
// corpus (the reference's rows and the agreeing corpus of
// TestCELOracleVersionsDiffer) through gatehouse's CEL answering as each
// version (internal/cel's flavor of that version's environments) and
// through that version's own kube-apiserver (k8s.io/apiserver v0.35.10 and
// v0.36.6 out of process, v0.37.2 in process): compile errors, output
// types, estimated costs, results, evaluation errors and actual costs must
// be the same. Queries of new expressions at a compatibility version other
// than the version's own (one minor back) are left out: gatehouse answers
// as a kube-apiserver of the version, not as one emulating another.
func TestCELMatchesKubeAPIServerPerVersion(t *testing.T) {
	oracles := startOracles(t)
	var queries []protocol.Query
	for _, rc := range rowCases() {
		queries = append(queries, rc.q)
	}
	queries = append(queries, corpusQueries()...)
	for _, o := range oracles {
		v := kube.MustParseVersion(o.Version())
		t.Run(v.String(), func(t *testing.T) {
			g := newGatehouseCEL(v)
			diffs := map[string][]string{}
			n := 0
			for _, q := range queries {
				if q.Env == protocol.EnvNew && q.Compat != "" && q.Compat != fmt.Sprintf("1.%d", v.Minor()-1) {
					continue
				}
				n++
				want, err := o.Eval(q)
				require.NoError(t, err)
				require.Empty(t, want.Error, "the oracle refused %+v", q)
				got := g.answer(q)
				require.Empty(t, got.Error, "gatehouse refused %+v", q)
				if fields := diffFields(want, got); len(fields) > 0 {
					key := strings.Join(fields, ",")
					diffs[key] = append(diffs[key], fmt.Sprintf("%s\n    kube-apiserver: %s\n    gatehouse:      %s", q.Expression, shortAnswer(want, fields), shortAnswer(got, fields)))
				}
			}
			keys := make([]string, 0, len(diffs))
			for k := range diffs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				ex := diffs[k]
				t.Errorf("%d queries differ in %s, for example:\n  %s", len(ex), k, strings.Join(ex[:min(3, len(ex))], "\n  "))
			}
			t.Logf("%d queries compared", n)
		})
	}
}

// gatehouseCEL answers oracle queries with gatehouse's CEL as a version.
type gatehouseCEL struct {
	target kube.Target
}

func newGatehouseCEL(v kube.Version) *gatehouseCEL {
	t, err := kube.TargetFor(v)
	if err != nil {
		panic(err)
	}
	return &gatehouseCEL{target: t}
}

// answer answers q as kubeeval answers it, with gatehouse's environment of
// an admission policy (admissioncel.NewPolicyBaseEnv) in the flavor of the
// version.
func (g *gatehouseCEL) answer(q protocol.Query) protocol.Answer {
	flavor := icel.FlavorOf(g.target, q.Env == protocol.EnvStored)
	var extra []cel.EnvOption
	params := false
	for n, typ := range q.Vars {
		switch n {
		case admissioncel.ObjectVarName, admissioncel.OldObjectVarName:
			continue
		case admissioncel.ParamsVarName:
			params = true
			continue
		}
		ct, err := kubeeval.ParseType(typ)
		if err != nil {
			return protocol.Answer{Error: err.Error()}
		}
		extra = append(extra, cel.Variable(n, ct))
	}
	env, err := admissioncel.NewPolicyBaseEnv(flavor.NewEnv, admissioncel.EnvOptions{Params: params, Extra: extra})
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	var a protocol.Answer
	ast, iss := env.Compile(q.Expression)
	if iss.Err() != nil {
		a.CompileError = "compilation failed: " + iss.String()
		return a
	}
	planner, err := icel.NewPlanner(env, icel.WithFlavor(flavor))
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	prg, err := planner.NewProgram(ast)
	if err != nil {
		a.CompileError = "program instantiation failed: " + err.Error()
		return a
	}
	a.OutputType = ast.OutputType().String()
	if est, err := env.EstimateCost(ast, flavor.CostEstimator()); err != nil {
		a.EstimateError = err.Error()
	} else {
		a.EstimatedMin, a.EstimatedMax = &est.Min, &est.Max
	}
	activation := map[string]any{}
	for _, n := range []string{admissioncel.ObjectVarName, admissioncel.OldObjectVarName, admissioncel.RequestVarName, admissioncel.NamespaceVarName} {
		activation[n] = nil
	}
	if params {
		activation[admissioncel.ParamsVarName] = nil
	}
	for n, raw := range q.Activation {
		v, err := kubeeval.DecodeValue(raw)
		if err != nil {
			return protocol.Answer{Error: err.Error()}
		}
		activation[n] = v
	}
	out, cost, evalErr := prg.Eval(context.Background(), activation)
	budget := q.CostLimit
	if budget == 0 {
		budget = icel.RuntimeCELCostBudget
	}
	a.Cost = &cost
	if cost > uint64(budget) {
		a.EvalError = "validation failed due to running out of cost budget, no further validation rules will be run"
		return a
	}
	if evalErr != nil {
		a.EvalError = evalErr.Error()
		return a
	}
	a.Result, a.ResultType, err = kubeeval.EncodeResult(out)
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	return a
}
