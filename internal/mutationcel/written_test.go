package mutationcel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrittenFields(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	tests := []struct {
		expr  string
		want  []string
		known bool
	}{
		{`Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0", args: ["proxy", "sidecar"]}]}}`,
			[]string{".spec.initContainers[*].args", ".spec.initContainers[*].image", ".spec.initContainers[*].name"}, true},
		{`Object{metadata: Object.metadata{labels: {"a": "b", "example.com/x": string(object.metadata.name)}}}`,
			[]string{".metadata.labels.a", ".metadata.labels[example.com/x]"}, true},
		{`Object{metadata: Object.metadata{labels: object.metadata.labels}}`, []string{".metadata.labels"}, true},
		{`Object{metadata: Object.metadata{?labels: optional.none()}}`, []string{".metadata.labels"}, true},
		{`has(object.spec.x) ? Object{spec: Object.spec{a: 1}} : Object{status: Object.status{b: 2}}`, []string{".spec.a", ".status.b"}, true},
		{`Object{}`, []string{}, true},
		{`Object{spec: Object.spec{}}`, []string{".spec"}, true},
		{`Object{spec: Object.spec{x: [1, 2]}}`, []string{".spec.x"}, true},
		{`[Object{}][0]`, nil, false},
		{`"x"`, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			p := c.Compile(applyConfigurationPolicy(tc.expr))
			got, known := p.WrittenFields(0)
			assert.Equal(t, tc.known, known)
			if tc.known {
				assert.Equal(t, tc.want, got)
			}
		})
	}
	p := c.Compile(jsonPatchPolicy(`[JSONPatch{op: "add", path: "/x", value: 1}]`))
	_, known := p.WrittenFields(0)
	assert.False(t, known, "JSON patches are not analysed")
	_, known = p.WrittenFields(7)
	assert.False(t, known)
}
