package mutationcel

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// FuzzCompileEvaluate compiles arbitrary variables and mutations and
// evaluates them on an arbitrary object: no panic, and an evaluation that
// ends (the cost limits bound it).
func FuzzCompileEvaluate(f *testing.F) {
	f.Add(`object.metadata.name + "-x"`, `Object{metadata: Object.metadata{labels: {"a": variables.v}}}`, false, `{"metadata":{"name":"web"}}`)
	f.Add(`[1, 2]`, `[JSONPatch{op: "add", path: "/x", value: variables.v.map(i, Object.x{n: i})}]`, true, `{"x":[1,{"a":null}]}`)
	f.Add(`Object{}`, `Object{spec: Object.spec{x: [{"a": {"b": 1}}], y: {1: 2}}}`, false, `[]`)
	f.Add(`"a/b~c"`, `[JSONPatch{op: "copy", from: jsonpatch.escapeKey(variables.v), path: "\u2028"}]`, true, `{"a":1.5e300}`)
	f.Add(`[1,2,3].map(a, [1,2,3].map(b, [1,2,3].map(c, a*b*c)))`, `Object{spec: Object.spec{x: variables.v}}`, false, `null`)
	c, err := NewCompiler()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, variable, expression string, jsonPatch bool, object string) {
		m := admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: expression}}
		if jsonPatch {
			m = admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: expression}}
		}
		pol := &admissionregistrationv1.MutatingAdmissionPolicy{}
		pol.Spec.Variables = []admissionregistrationv1.Variable{{Name: "v", Expression: variable}}
		pol.Spec.Mutations = []admissionregistrationv1.Mutation{m}
		p := c.Compile(pol)
		_ = p.CompileErrors()
		var obj map[string]any
		_ = json.Unmarshal([]byte(object), &obj)
		in := testInput()
		in.Object = obj
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := p.EvaluateMutation(ctx, 0, in)
		if err == nil && (out.ApplyConfiguration == nil) == (out.JSONPatch == nil) {
			t.Fatalf("a patch must have exactly one form: %+v", out)
		}
		// strconv.Quote, kube-apiserver's quoting of op, path and from, is
		// JSON for printable ASCII (CEL escapes such as \x01 are not).
		if err == nil && out.JSONPatch != nil && !json.Valid(out.JSONPatch) && isPlainASCII(expression) && isPlainASCII(variable) {
			t.Fatalf("invalid JSON Patch document %q", out.JSONPatch)
		}
		x := c.NewExpressionChecker(false)
		_ = x.Variable("v", variable, false, nil)
		_ = x.Mutation(m, true, nil)
	})
}

// isPlainASCII tells the printable ASCII strings without escapes.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f || s[i] == '\\' {
			return false
		}
	}
	return true
}
