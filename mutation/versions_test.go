package mutation_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// labelPolicy labels every pod created.
func labelPolicy(t testing.TB) ([]*admissionregistrationv1.MutatingAdmissionPolicy, []*admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	require.NoError(t, yaml.UnmarshalStrict([]byte(`
metadata: {name: label}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}'
`), &policy))
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	binding.Name, binding.Spec.PolicyName = "label", "label"
	return []*admissionregistrationv1.MutatingAdmissionPolicy{&policy}, []*admissionregistrationv1.MutatingAdmissionPolicyBinding{binding}
}

func podCreate() *mutation.Request {
	return &mutation.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: "web", Namespace: "default",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}}}}}
}

// The plugin runs where its gate is on: from 1.36 by default, on 1.35 only
// with --feature-gates=MutatingAdmissionPolicy=true.
func TestDispatcherPerVersion(t *testing.T) {
	policies, bindings := labelPolicy(t)
	for _, tt := range []struct {
		version, gates string
		mutates        bool
	}{
		{"1.35", "", false},
		{"1.35", "MutatingAdmissionPolicy=true", true},
		{"1.36", "", true},
		{"1.36", "MutatingAdmissionPolicy=false", false},
		{"1.37", "", true},
		{"1.38", "", true},
	} {
		target, err := kube.ParseTarget(tt.version)
		require.NoError(t, err)
		if target, err = target.WithFeatureGates(tt.gates); !assert.NoError(t, err) {
			continue
		}
		d, err := mutation.NewDispatcher(policies, bindings, mutation.Options{Kube: target})
		require.NoError(t, err)
		res, trace, err := d.Explain(context.Background(), podCreate())
		require.NoError(t, err)
		assert.Equal(t, tt.mutates, res.Changed, "%s %s", tt.version, tt.gates)
		if !tt.mutates {
			assert.Equal(t, fmt.Sprintf("the MutatingAdmissionPolicy plugin does not run in Kubernetes %s: its feature gate MutatingAdmissionPolicy is off", target), trace.Disabled)
			assert.Empty(t, trace.Policies)
		} else {
			assert.Empty(t, trace.Disabled)
		}
	}
}

// On a default 1.35 cluster MutatingAdmissionPolicies do nothing.
func ExampleOptions_kube() {
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	_ = yaml.Unmarshal([]byte(`
metadata: {name: label}
spec:
  failurePolicy: Fail
  matchConstraints:
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}'
`), &policy)
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	binding.Name, binding.Spec.PolicyName = "label", "label"
	for _, version := range []string{"1.35", "1.36"} {
		target, _ := kube.ParseTarget(version)
		d, err := mutation.NewDispatcher([]*admissionregistrationv1.MutatingAdmissionPolicy{&policy},
			[]*admissionregistrationv1.MutatingAdmissionPolicyBinding{binding}, mutation.Options{Kube: target})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, trace, err := d.Explain(context.Background(), podCreate())
		fmt.Println(version, res.Changed, err)
		fmt.Print(trace)
	}
	// Output:
	// 1.35 false <nil>
	// the MutatingAdmissionPolicy plugin does not run in Kubernetes 1.35: its feature gate MutatingAdmissionPolicy is off
	// 1.36 true <nil>
	// policy label: matched /v1, Resource=pods
	//   binding label: matched
	//     mutation 0: changed .metadata.labels
}
