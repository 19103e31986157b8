package kubernetes

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// mvKubeDecodeList decodes a JSON document as kube-apiserver does: a v1
// List item by item, a typed list as a whole; every object defaulted for
// its version and converted to the internal type.
func mvKubeDecodeList(t *testing.T, doc []byte) []runtime.Object {
	t.Helper()
	decoder := legacyscheme.Codecs.UniversalDecoder()
	var tm metav1.TypeMeta
	require.NoError(t, json.Unmarshal(doc, &tm))
	if tm.APIVersion != "v1" || tm.Kind != "List" {
		obj, _, err := decoder.Decode(doc, nil, nil)
		require.NoError(t, err)
		switch l := obj.(type) {
		case *admissionregistration.MutatingAdmissionPolicyList:
			var out []runtime.Object
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			return out
		case *admissionregistration.MutatingAdmissionPolicyBindingList:
			var out []runtime.Object
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			return out
		}
		return []runtime.Object{obj}
	}
	var list metav1.List
	require.NoError(t, json.Unmarshal(doc, &list))
	var out []runtime.Object
	for _, item := range list.Items {
		obj, _, err := decoder.Decode(item.Raw, nil, nil)
		require.NoError(t, err)
		out = append(out, obj)
	}
	return out
}

// TestMutationDecodeMatchesKube compares Decode with kube-apiserver's codec
// on Lists and typed lists of every version: the same objects (defaults of
// each version, v1alpha1's parameterNotFoundAction among them) once
// converted to the internal type.
func TestMutationDecodeMatchesKube(t *testing.T) {
	const policy = `{"apiVersion": "admissionregistration.k8s.io/%s", "kind": "MutatingAdmissionPolicy", "metadata": {"name": "p"}, "spec": {"matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}], "excludeResourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "Namespaced"}]}, "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}], "reinvocationPolicy": "Never"}}`
	const binding = `{"apiVersion": "admissionregistration.k8s.io/%s", "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": "b"}, "spec": {"policyName": "p", "paramRef": {"name": "x"}, "matchResources": {"objectSelector": {"matchLabels": {"a": "b"}}}}}`
	for _, doc := range []string{
		`{"apiVersion": "v1", "kind": "List", "items": [` + fmt.Sprintf(policy, "v1alpha1") + `, ` + fmt.Sprintf(binding, "v1alpha1") + `, ` + fmt.Sprintf(binding, "v1beta1") + `, ` + fmt.Sprintf(policy, "v1") + `]}`,
		`{"apiVersion": "admissionregistration.k8s.io/v1alpha1", "kind": "MutatingAdmissionPolicyBindingList", "items": [{"metadata": {"name": "b1"}, "spec": {"paramRef": {"selector": {}}}}, {"metadata": {"name": "b2"}, "spec": {"paramRef": {"name": "y", "parameterNotFoundAction": "Allow"}}}]}`,
		`{"apiVersion": "admissionregistration.k8s.io/v1beta1", "kind": "MutatingAdmissionPolicyList", "items": [{"metadata": {"name": "p1"}, "spec": {"matchConstraints": {}}}, {"metadata": {"name": "p2"}, "spec": {"failurePolicy": "Ignore"}}]}`,
		fmt.Sprintf(binding, "v1"),
	} {
		want := mvKubeDecodeList(t, []byte(doc))
		objs, err := mutation.Decode([]byte(doc))
		require.NoError(t, err)
		var got []runtime.Object
		for _, p := range objs.Policies {
			in := &admissionregistration.MutatingAdmissionPolicy{}
			require.NoError(t, legacyscheme.Scheme.Convert(p, in, nil))
			got = append(got, in)
		}
		for _, b := range objs.Bindings {
			in := &admissionregistration.MutatingAdmissionPolicyBinding{}
			require.NoError(t, legacyscheme.Scheme.Convert(b, in, nil))
			got = append(got, in)
		}
		var wantPolicies, wantBindings []runtime.Object
		for _, o := range want {
			if _, ok := o.(*admissionregistration.MutatingAdmissionPolicy); ok {
				wantPolicies = append(wantPolicies, o)
			} else {
				wantBindings = append(wantBindings, o)
			}
		}
		assert.Equal(t, append(wantPolicies, wantBindings...), got, doc)
	}
}
