package mutationcel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// A constant mutation gives, on every request, what cel-go gives it on
// that request: the same patch (a copy, which the caller may change) or the
// same error; a mutation that reads the request or iterates is evaluated
// each time.
func TestConstantMutations(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		policy   *admissionregistrationv1.MutatingAdmissionPolicy
		constant bool
	}{
		{name: "an Object of constant fields", constant: true, policy: applyConfigurationPolicy(
			`Object{metadata: Object.metadata{labels: {"a": "b"}}, spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", args: ["proxy", "sidecar"]}]}}`)},
		{name: "a constant error", constant: true, policy: applyConfigurationPolicy(
			`Object{spec: Object.spec{activeDeadlineSeconds: 1 / 0}}`)},
		{name: "a wrong type name", constant: true, policy: applyConfigurationPolicy(
			`Object{spec: Object.metadata{}}`)},
		{name: "a constant JSON patch", constant: true, policy: jsonPatchPolicy(
			`[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]`)},
		{name: "reads the object", policy: applyConfigurationPolicy(
			`Object{metadata: Object.metadata{labels: {"name": object.metadata.name}}}`)},
		{name: "iterates", policy: applyConfigurationPolicy(
			`Object{metadata: Object.metadata{labels: {"n": string([1, 2].filter(x, x > 1).size())}}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := c.Compile(tc.policy)
			require.Empty(t, p.CompileErrors())
			m := &p.mutations[0]
			assert.Equal(t, tc.constant, m.constant != nil)
			ctx := context.Background()
			want, wantErr := p.evaluate(ctx, m, testInput())
			for range 2 {
				got, err := p.EvaluateMutation(ctx, 0, testInput())
				if wantErr != nil {
					require.EqualError(t, err, wantErr.Error())
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, want, got)
				// The caller may change its copy.
				if got.ApplyConfiguration != nil {
					got.ApplyConfiguration["metadata"] = "changed"
				}
			}
		})
	}
}

// FuzzConstantMutations compares, for any expression, the patch or error
// EvaluateMutation gives (the constant path when the expression is
// constant) with cel-go's evaluation of the expression on the request, twice.
func FuzzConstantMutations(f *testing.F) {
	for _, e := range []string{
		`Object{metadata: Object.metadata{labels: {"a": "b"}}}`,
		`Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", ports: [Object.spec.containers.ports{containerPort: 80}]}]}}`,
		`Object{spec: Object.spec{activeDeadlineSeconds: 9223372036854775807 + 1}}`,
		`Object{metadata: Object.metadata{annotations: {"x": string(b"\xff")}}}`,
		`Object{metadata: Object.metadata{labels: {"name": object.metadata.name}}}`,
		`Object{spec: Object.spec{priority: int(2.5)}}`,
		`Object{metadata: Object.metadata{labels: {"a": "b"}.map(k, k)[0]}}`,
		`[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]`,
	} {
		f.Add(e, e[0] == '[')
	}
	c, err := NewCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string, jsonPatch bool) {
		if len(expr) > 2000 {
			return
		}
		pol := applyConfigurationPolicy(expr)
		if jsonPatch {
			pol = jsonPatchPolicy(expr)
		}
		p := c.Compile(pol)
		if len(p.CompileErrors()) > 0 || len(p.mutations) == 0 {
			return
		}
		ctx := context.Background()
		want, wantErr := p.evaluate(ctx, &p.mutations[0], testInput())
		for range 2 {
			got, err := p.EvaluateMutation(ctx, 0, testInput())
			if wantErr != nil {
				require.EqualError(t, err, wantErr.Error())
				continue
			}
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
	})
}
