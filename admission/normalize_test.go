package admission

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// What kube-apiserver's typed Pod has and the caller's unstructured one
// lacks: a container's resources ({}, not omitempty) and status.
const typedViewPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typed-view}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "has(object.spec.containers[0].resources) && has(object.status)"
    message: "not as kube-apiserver holds it"
  - expression: "oldObject == null || has(oldObject.status)"
    message: "old object not as kube-apiserver holds it"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: typed-view}
spec: {policyName: typed-view, validationActions: [Deny]}
`

// The chain takes the objects of a built-in kind through their Go type
// once, for every plugin, without changing the caller's objects, and
// returns the caller's object when nothing changed it.
func TestChainNormalizesOnce(t *testing.T) {
	v, err := validatingpolicy.Decode([]byte(typedViewPolicy))
	require.NoError(t, err)
	c, err := New(Config{ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings}, Options{})
	require.NoError(t, err)
	pod := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "p", "namespace": "ns", "unknownField": "dropped"},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}
	}
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		req := podRequest(op, nil)
		req.Object = pod()
		if op == admissionv1.Update {
			req.OldObject = pod()
		}
		before := fmt.Sprintf("%#v %#v", req.Object.Object, req.OldObject)
		for name, run := range map[string]func() (Result, error){
			"Admit":    func() (Result, error) { return c.Admit(context.Background(), req) },
			"Validate": func() (Result, error) { return c.Validate(context.Background(), req) },
		} {
			res, err := run()
			require.NoError(t, err, "%s %s", op, name)
			assert.Same(t, req.Object, res.Object, "%s %s: the caller's object when unchanged", op, name)
			assert.False(t, res.Changed)
		}
		assert.Equal(t, before, fmt.Sprintf("%#v %#v", req.Object.Object, req.OldObject), "the caller's objects are not modified")
	}
}

func TestNormalized(t *testing.T) {
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	normal := func() *unstructured.Unstructured {
		r := podRequest(admissionv1.Create, nil)
		n := normalized(r)
		require.True(t, n.Normalized)
		return n.Object
	}()
	for _, tc := range []struct {
		name           string
		req            *Request
		wantNormalized bool
		same           bool // the request itself is returned
	}{
		{"already normalized", &Request{Kind: pod, Object: podRequest(admissionv1.Create, nil).Object, Normalized: true}, true, true},
		{"normal content: the objects are kept", &Request{Kind: pod, Object: normal}, true, false},
		{"a custom kind", &Request{Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Object: &unstructured.Unstructured{Object: map[string]any{"a": int64(1)}}}, false, true},
		{"without metadata", &Request{Kind: pod, Object: normal, WithoutMetadata: true}, false, true},
		{"no objects", &Request{Kind: pod}, false, true},
		{"an object of another kind", &Request{Kind: pod, Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}}, false, true},
		{"a field of the wrong type", &Request{Kind: pod, Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": "no"}}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := normalized(tc.req)
			assert.Equal(t, tc.wantNormalized, got.Normalized)
			if tc.same {
				assert.Same(t, tc.req, got)
				return
			}
			assert.Same(t, tc.req.Object, got.Object, "normal content is shared, not copied")
		})
	}
}

// The mutating plugins change copies: the objects the chain normalized share
// their unchanged maps with the caller's, which stay as they were.
func TestChainMutatesCopies(t *testing.T) {
	c := chainOf(t, nil)
	req := podRequest(admissionv1.Create, map[string]string{"app": "web"})
	spec := req.Object.Object["spec"].(map[string]any)
	spec["containers"].([]any)[0].(map[string]any)["resources"] = map[string]any{}
	before := fmt.Sprintf("%#v", req.Object.Object)
	res, err := c.Admit(context.Background(), req)
	require.NoError(t, err)
	require.True(t, res.Changed)
	assert.Equal(t, map[string]string{"app": "web", "team": "unknown"}, res.Object.GetLabels())
	assert.Equal(t, before, fmt.Sprintf("%#v", req.Object.Object), "the caller's object is not modified")
}

// A Defaulter changes a copy of the mutated object, never the caller's
// maps that the mutated object shares.
func TestChainDefaultsCopies(t *testing.T) {
	m, err := mutation.Decode([]byte(labelPolicies))
	require.NoError(t, err)
	defaulter := func(u *unstructured.Unstructured) {
		for _, c := range u.Object["spec"].(map[string]any)["containers"].([]any) {
			c.(map[string]any)["imagePullPolicy"] = "Always"
		}
	}
	c, err := New(Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings}, Options{Defaulter: defaulter})
	require.NoError(t, err)
	req := podRequest(admissionv1.Create, map[string]string{"app": "web"})
	spec := req.Object.Object["spec"].(map[string]any)
	spec["containers"].([]any)[0].(map[string]any)["resources"] = map[string]any{}
	before := fmt.Sprintf("%#v", req.Object.Object)
	res, err := c.Admit(context.Background(), req)
	require.NoError(t, err)
	got, _, _ := unstructured.NestedSlice(res.Object.Object, "spec", "containers")
	assert.Equal(t, "Always", got[0].(map[string]any)["imagePullPolicy"], "defaulted")
	assert.Equal(t, before, fmt.Sprintf("%#v", req.Object.Object), "the caller's object is not modified")
}
