package mutationcel

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func applyConfigurationPolicy(exprs ...string) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for _, e := range exprs {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: e},
		})
	}
	return p
}

func jsonPatchPolicy(exprs ...string) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for _, e := range exprs {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType: admissionregistrationv1.PatchTypeJSONPatch,
			JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e},
		})
	}
	return p
}

func testPod() map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "namespace": "default", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}},
	}
}

func testInput() *Input {
	return &Input{
		Request: &admissionv1.AdmissionRequest{
			Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Name:      "web",
			Namespace: "default",
			Operation: admissionv1.Create,
		},
		Object: testPod(),
	}
}

func TestEvaluateApplyConfiguration(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	tests := []struct {
		name, expr string
		variables  []admissionregistrationv1.Variable
		want       string // JSON of the patch's map
		wantErr    string
	}{
		{
			name: "sidecar",
			expr: `Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0", args: ["proxy", "sidecar"], restartPolicy: "Always"}]}}`,
			want: `{"spec":{"initContainers":[{"args":["proxy","sidecar"],"image":"mesh/proxy:v1.0.0","name":"mesh-proxy","restartPolicy":"Always"}]}}`,
		},
		{
			name: "label from the object",
			expr: `Object{metadata: Object.metadata{labels: {"copied": object.metadata.labels.app}}}`,
			want: `{"metadata":{"labels":{"copied":"web"}}}`,
		},
		{
			name:      "variables",
			variables: []admissionregistrationv1.Variable{{Name: "n", Expression: `object.metadata.name + "-x"`}},
			expr:      `Object{metadata: Object.metadata{annotations: {"n": variables.n}}}`,
			want:      `{"metadata":{"annotations":{"n":"web-x"}}}`,
		},
		{
			name: "escapeKey",
			expr: `Object{metadata: Object.metadata{annotations: {"k": jsonpatch.escapeKey("k8s.io/x~y")}}}`,
			want: `{"metadata":{"annotations":{"k":"k8s.io~1x~0y"}}}`,
		},
		{
			name:    "wrong nested type name",
			expr:    `Object{spec: Object.spec{containers: [Object.spec.containers.item{name: "x"}]}}`,
			wantErr: `type mismatch: unexpected type name "Object.spec.containers.item", expected "Object.spec.containers", which matches field name path from root Object type`,
		},
		{
			name:    "string result",
			expr:    `"x"`,
			wantErr: `must evaluate to Object but got string`,
		},
		{
			name:    "nested object result",
			expr:    `Object.spec.metadata{}`,
			wantErr: `must evaluate to Object but got Object.spec.metadata`,
		},
		{
			name:    "runtime error",
			expr:    `Object{metadata: Object.metadata{labels: {"a": object.metadata.missing}}}`,
			wantErr: `expression 'Object{metadata: Object.metadata{labels: {"a": object.metadata.missing}}}' resulted in error: no such key: missing`,
		},
		{
			name:    "compile error",
			expr:    `Object{`,
			wantErr: "compilation failed: ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n | Object{\n | .......^",
		},
		{
			name:      "variable that does not compile",
			variables: []admissionregistrationv1.Variable{{Name: "o", Expression: `Object{}`}},
			expr:      `variables.o`,
			wantErr:   `must evaluate to Object but got dyn`,
		},
		{
			name:      "variable that fails",
			variables: []admissionregistrationv1.Variable{{Name: "bad", Expression: `object.nope`}},
			expr:      `Object{metadata: Object.metadata{labels: {"a": variables.bad}}}`,
			wantErr:   `expression 'Object{metadata: Object.metadata{labels: {"a": variables.bad}}}' resulted in error: composited variable "bad" fails to evaluate: no such key: nope`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol := applyConfigurationPolicy(tc.expr)
			pol.Spec.Variables = tc.variables
			p := c.Compile(pol)
			require.Equal(t, 1, p.MutationCount())
			got, err := p.EvaluateMutation(context.Background(), 0, testInput())
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			b, err := json.Marshal(got.ApplyConfiguration)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			assert.Nil(t, got.JSONPatch)
		})
	}
}

func TestEvaluateJSONPatch(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	tests := []struct {
		name, expr string
		want       string
		wantErr    string
	}{
		{
			name: "add a label",
			expr: `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/x"), value: "y"}]`,
			want: `[{"op":"add","path":"/metadata/labels/example.com~1x","value":"y"}]`,
		},
		{
			name: "from, object value and an unset value",
			expr: `[JSONPatch{op: "copy", from: "/a", path: "/b"}, JSONPatch{op: "add", path: "/spec/x", value: Object.spec.x{a: [dyn(1), dyn(2.5), dyn("s")], b: {"c": true}}}]`,
			want: `[{"from":"/a","op":"copy","path":"/b"},{"op":"add","path":"/spec/x","value":{"a":[1,2.5,"s"],"b":{"c":true}}}]`,
		},
		{
			name: "filtered to nothing",
			expr: `[JSONPatch{op: "add", path: "/x", value: 1}].filter(x, false)`,
			want: `[]`,
		},
		{
			name:    "empty list literal",
			expr:    `[]`,
			wantErr: `must evaluate to list(JSONPatch) but got list(dyn)`,
		},
		{
			name:    "one element",
			expr:    `[JSONPatch{op: "add", path: "/x"}][0]`,
			wantErr: `must evaluate to list(JSONPatch) but got JSONPatch`,
		},
		{
			name:    "op of the wrong type",
			expr:    `[JSONPatch{op: 1, path: "/x"}]`,
			wantErr: "compilation failed: ERROR: <input>:1:14: expected type of field 'op' is 'string' but provided type is 'int'\n | [JSONPatch{op: 1, path: \"/x\"}]\n | .............^",
		},
		{
			name:    "unknown field",
			expr:    `[JSONPatch{op: "add", foo: 1}]`,
			wantErr: "compilation failed: ERROR: <input>:1:26: expected type of field 'foo' is '' but provided type is 'int'\n | [JSONPatch{op: \"add\", foo: 1}]\n | .........................^",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := c.Compile(jsonPatchPolicy(tc.expr))
			got, err := p.EvaluateMutation(context.Background(), 0, testInput())
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got.JSONPatch))
			assert.Nil(t, got.ApplyConfiguration)
		})
	}
}

// Policies without variables share their environments: a policy with
// variables declared later must not make them visible to them.
func TestPoliciesWithoutVariablesShareNoVariables(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	uses := applyConfigurationPolicy(`Object{metadata: Object.metadata{name: variables.x}}`)
	declares := applyConfigurationPolicy(`Object{metadata: Object.metadata{name: variables.x}}`)
	declares.Spec.Variables = []admissionregistrationv1.Variable{{Name: "x", Expression: `"y"`}}
	require.Len(t, c.Compile(uses).CompileErrors(), 1)
	require.Empty(t, c.Compile(declares).CompileErrors())
	errs := c.Compile(uses).CompileErrors()
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "undefined field 'x'")

	// And compile concurrently (run with -race).
	done := make(chan []error, 8)
	for i := range 8 {
		go func() {
			if i%2 == 0 {
				done <- c.Compile(uses).CompileErrors()
			} else {
				done <- c.Compile(declares).CompileErrors()
			}
		}()
	}
	for range 8 {
		errs := <-done
		assert.LessOrEqual(t, len(errs), 1)
	}
}
