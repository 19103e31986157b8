package cel

import (
	"context"
	"testing"
)

func BenchmarkRangeExists(b *testing.B) {
	env, err := NewEnv()
	if err != nil {
		b.Fatal(err)
	}
	planner, err := NewPlanner(env)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []string{"10000", "100000"} {
		ast, iss := env.Compile("lists.range(" + n + ").exists(i, i < 0)")
		if iss.Err() != nil {
			b.Fatal(iss.Err())
		}
		prg, err := planner.NewProgram(ast)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(n, func(b *testing.B) {
			for b.Loop() {
				out, cost, err := prg.Eval(context.Background(), map[string]any{})
				if err != nil || out.Value() != false {
					b.Fatal(out, cost, err)
				}
			}
		})
	}
}
