package quad

import (
	"testing"
	"time"

	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

func TestQuad(t *testing.T) {
	env := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
	for _, e := range []string{"lists.range(10000).exists(i, i < 0)", "lists.range(30000).exists(i, i < 0)", "lists.range(30000).size() > 0", "lists.range(30000).map(i, i).size()>0"} {
		ast, iss := env.Compile(e)
		if iss.Err() != nil {
			t.Fatal(iss.Err())
		}
		c, _ := env.EstimateCost(ast, &library.CostEstimator{})
		_ = c
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		st := time.Now()
		out, det, err := prg.Eval(map[string]any{})
		t.Log(e, c, out, err, *det.ActualCost(), time.Since(st))
	}
}
