package mutation

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDecodeVersionsAndDefaults(t *testing.T) {
	for _, version := range []string{"v1", "v1beta1", "v1alpha1"} {
		t.Run(version, func(t *testing.T) {
			in := "apiVersion: admissionregistration.k8s.io/" + version + `
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{}"}
---
apiVersion: admissionregistration.k8s.io/` + version + `
kind: MutatingAdmissionPolicyBinding
metadata: {name: b}
spec:
  policyName: p
  paramRef: {name: x}
  matchResources: {}
`
			objs, err := Decode([]byte(in))
			require.NoError(t, err)
			require.Len(t, objs.Policies, 1)
			require.Len(t, objs.Bindings, 1)
			p, b := objs.Policies[0], objs.Bindings[0]
			assert.Equal(t, metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"}, p.TypeMeta)
			assert.Equal(t, metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicyBinding"}, b.TypeMeta)
			assert.Equal(t, admissionregistrationv1.Fail, *p.Spec.FailurePolicy)
			assert.Equal(t, admissionregistrationv1.Equivalent, *p.Spec.MatchConstraints.MatchPolicy)
			assert.Equal(t, &metav1.LabelSelector{}, p.Spec.MatchConstraints.NamespaceSelector)
			assert.Equal(t, &metav1.LabelSelector{}, p.Spec.MatchConstraints.ObjectSelector)
			assert.Equal(t, admissionregistrationv1.AllScopes, *p.Spec.MatchConstraints.ResourceRules[0].Scope)
			assert.Equal(t, admissionregistrationv1.Equivalent, *b.Spec.MatchResources.MatchPolicy)
			if version == "v1alpha1" {
				require.NotNil(t, b.Spec.ParamRef.ParameterNotFoundAction)
				assert.Equal(t, admissionregistrationv1.DenyAction, *b.Spec.ParamRef.ParameterNotFoundAction)
			} else {
				assert.Nil(t, b.Spec.ParamRef.ParameterNotFoundAction)
			}
		})
	}
}

func TestDecodeLists(t *testing.T) {
	in := `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "b1"}, "spec": {"policyName": "p"}},
  {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}},
  {"apiVersion": "admissionregistration.k8s.io/v1beta1", "kind": "MutatingAdmissionPolicy", "metadata": {"name": "p1"}, "spec": {}}
]}
{"apiVersion": "admissionregistration.k8s.io/v1alpha1", "kind": "MutatingAdmissionPolicyBindingList", "items": [
  {"metadata": {"name": "b2"}, "spec": {"paramRef": {"selector": {}}}},
  {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "b3"}}
]}
`
	objs, err := Decode([]byte(in))
	require.Len(t, objs.Policies, 1)
	require.Len(t, objs.Bindings, 2)
	assert.Equal(t, "p1", objs.Policies[0].Name)
	assert.Equal(t, "b1", objs.Bindings[0].Name)
	assert.Equal(t, "b2", objs.Bindings[1].Name)
	assert.Equal(t, admissionregistrationv1.DenyAction, *objs.Bindings[1].Spec.ParamRef.ParameterNotFoundAction)
	require.Error(t, err)
	assert.Equal(t, `document 1 (line 1), items[1]: unsupported kind Deployment "apps/v1": expected MutatingAdmissionPolicy or MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1, v1beta1 or v1alpha1) or a List of them
document 2 (line 6), items[1]: a MutatingAdmissionPolicyBinding "admissionregistration.k8s.io/v1" in a MutatingAdmissionPolicyBindingList "admissionregistration.k8s.io/v1alpha1"`, err.Error())
	var ke *KindError
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, "Deployment", ke.Kind)
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
	}{
		{"unknown field", "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec: {mutation: [], failurepolicy: Fail}\n",
			`document 1 (line 1): MutatingAdmissionPolicy: strict decoding error: unknown field "spec.failurepolicy", unknown field "spec.mutation"`},
		{"duplicate field", `{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "b"}, "spec": {"policyName": "a", "policyName": "b"}}`,
			`document 1 (line 1): MutatingAdmissionPolicyBinding: strict decoding error: duplicate field "spec.policyName"`},
		{"wrong type", "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec: {mutations: {}}\n",
			`document 1 (line 1): MutatingAdmissionPolicy: json: cannot unmarshal object into Go struct field MutatingAdmissionPolicySpec.spec.mutations of type []v1.Mutation`},
		{"no kind", "apiVersion: admissionregistration.k8s.io/v1\nmetadata: {name: p}\n", `document 1 (line 1): apiVersion and kind are required`},
		{"other version", "apiVersion: admissionregistration.k8s.io/v2\nkind: MutatingAdmissionPolicy\n",
			`document 1 (line 1): unsupported kind MutatingAdmissionPolicy "admissionregistration.k8s.io/v2": expected MutatingAdmissionPolicy or MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1, v1beta1 or v1alpha1) or a List of them`},
		{"not an object", "- a\n- b\n", `document 1 (line 1): not an object: json: cannot unmarshal array into Go value of type manifest.typeMeta`},
		{"second document", "---\nnull\n---\napiVersion: v1\nkind: List\nitems: 3\n", `document 1 (line 4): json: cannot unmarshal number into Go struct field list.items of type []json.RawMessage`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Decode([]byte(tc.in))
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
			assert.Empty(t, objs.Policies)
			assert.Empty(t, objs.Bindings)
			var de *DecodeError
			assert.True(t, errors.As(err, &de))
		})
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, in := range []string{"", "# nothing\n", "---\n---\n", "null\n"} {
		objs, err := Decode([]byte(in))
		require.NoError(t, err)
		assert.Empty(t, objs.Policies)
		assert.Empty(t, objs.Bindings)
	}
}
