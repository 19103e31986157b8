package rbac

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		counts  [4]int // Roles, RoleBindings, ClusterRoles, ClusterRoleBindings
		wantErr string
	}{
		{name: "the fixture", input: fixture, counts: [4]int{1, 4, 2, 6}},
		{name: "empty documents and nulls are skipped", input: "---\n# nothing\n---\nnull\n---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}}`, counts: [4]int{0, 0, 1, 0}},
		{name: "a JSON stream", input: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"a"}}
{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"a","namespace":"x"}}`, counts: [4]int{1, 0, 1, 0}},
		{name: "a List", input: `apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}}
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: a}, roleRef: {kind: ClusterRole, name: a, apiGroup: rbac.authorization.k8s.io}}
`, counts: [4]int{0, 0, 1, 1}},
		{name: "a typed list whose items have no kind", input: `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBindingList
items:
- {metadata: {name: a, namespace: x}, roleRef: {kind: Role, name: a, apiGroup: rbac.authorization.k8s.io}}
`, counts: [4]int{0, 1, 0, 0}},
		{name: "the namespace of a cluster-scoped object is dropped", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a, namespace: x}}`, counts: [4]int{0, 0, 1, 0}},
		{name: "an unknown field", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}, rule: []}`,
			wantErr: `document 1 (line 2): unknown field "rule"`},
		{name: "a field in the wrong case", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}, Rules: []}`,
			wantErr: `document 1 (line 2): unknown field "Rules"`},
		{name: "a duplicate field", input: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: a}\nmetadata: {name: b}\n",
			wantErr: `document 1 (line 1): invalid YAML: yaml: unmarshal errors:
  line 4: key "metadata" already set in map`},
		{name: "a duplicate field in JSON", input: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"a"},"metadata":{"name":"b"}}`,
			wantErr: `document 1 (line 1): duplicate field "metadata"`},
		{name: "a value of the wrong type", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}, rules: [{verbs: get}]}`,
			wantErr: `document 1 (line 2): json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string`},
		{name: "v1beta1", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1beta1, kind: ClusterRole, metadata: {name: a}}`,
			wantErr: `document 1 (line 2): unsupported apiVersion "rbac.authorization.k8s.io/v1beta1": RBAC objects are read as rbac.authorization.k8s.io/v1 (v1beta1 and v1alpha1 are no longer served)`},
		{name: "another kind", input: "---\n" + `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}`,
			wantErr: `document 1 (line 2): unsupported kind ConfigMap "v1": expected RBAC objects (rbac.authorization.k8s.io/v1)`},
		{name: "another kind of the group", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: Policy, metadata: {name: a}}`,
			wantErr: `document 1 (line 2): unsupported kind Policy "rbac.authorization.k8s.io/v1": expected Role, ClusterRole, RoleBinding, ClusterRoleBinding or a List of them`},
		{name: "no kind", input: "---\n" + `{metadata: {name: a}}`, wantErr: `document 1 (line 2): apiVersion and kind are required`},
		{name: "no name", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole}`, wantErr: `document 1 (line 2): ClusterRole: metadata.name is required`},
		{name: "no namespace", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: a}}`, wantErr: `document 1 (line 2): Role "a": metadata.namespace is required`},
		{name: "not an object", input: `[1, 2]`, wantErr: `document 1 (line 1): not an object: json: cannot unmarshal array into Go value of type rbac.typeMeta`},
		{name: "a bad item in a List, the others kept", input: `apiVersion: v1
kind: List
items:
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}}
- {apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {name: b}}
`, counts: [4]int{0, 0, 1, 0}, wantErr: `document 1 (line 1), items[1]: Role "b": metadata.namespace is required`},
		{name: "a kind that does not belong in a typed list", input: `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleList
items:
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}}
`, wantErr: `document 1 (line 1), items[0]: a ClusterRole in a RoleList`},
		{name: "the second document is bad", input: "---\n" + `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: a}}
---
kind: [
`, counts: [4]int{0, 0, 1, 0}, wantErr: `document 2 (line 4): invalid YAML: yaml: line 4: did not find expected node content`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Decode([]byte(tt.input))
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.NotNil(t, objs)
			assert.Equal(t, tt.counts, [4]int{len(objs.Roles), len(objs.RoleBindings), len(objs.ClusterRoles), len(objs.ClusterRoleBindings)})
			for _, cr := range objs.ClusterRoles {
				assert.Empty(t, cr.Namespace)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte(fixture), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"first"}}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not read"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "c.yaml"), []byte("not read either: ["), 0o600))
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n"), 0o600))

	objs, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, objs.ClusterRoles, 3)
	assert.Equal(t, "first", objs.ClusterRoles[0].Name)

	objs, err = Load(dir, bad)
	assert.EqualError(t, err, bad+`: document 1 (line 1): unsupported kind Secret "v1": expected RBAC objects (rbac.authorization.k8s.io/v1)`)
	assert.Equal(t, 14, objs.Len())

	var kindErr *KindError
	require.ErrorAs(t, err, &kindErr)
	assert.Equal(t, KindError{APIVersion: "v1", Kind: "Secret"}, *kindErr)

	_, err = Load(filepath.Join(dir, "absent"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
