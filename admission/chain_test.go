package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/metrics"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

const labelPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: add-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  matchConditions:
  - name: no-team
    expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'unknown'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-team}
spec: {policyName: add-team}
`

const requirePolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "DELETE"], resources: ["pods"]}
  validations:
  - expression: "request.operation == 'DELETE' || object.metadata.labels.team != 'forbidden'"
    message: "team forbidden"
  - expression: "request.operation == 'DELETE' || object.metadata.labels.team != 'unknown'"
    message: "team unknown"
  auditAnnotations:
  - key: team
    valueExpression: "string(request.operation == 'DELETE' ? oldObject.metadata.labels.team : object.metadata.labels.team)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: require-team}
spec:
  policyName: require-team
  validationActions: [Warn]
`

func chainOf(t *testing.T, sink metrics.Sink) *Chain {
	t.Helper()
	m, err := mutation.Decode([]byte(labelPolicies))
	require.NoError(t, err)
	v, err := validatingpolicy.Decode([]byte(requirePolicies))
	require.NoError(t, err)
	c, err := New(Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings, ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings}, Options{Metrics: sink})
	require.NoError(t, err)
	return c
}

func podRequest(op admissionv1.Operation, labels map[string]string) *Request {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "ns"},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}
	obj.SetLabels(labels)
	r := &Request{Operation: op, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name: "p", Namespace: "ns"}
	if op == admissionv1.Delete {
		r.OldObject = obj
	} else {
		r.Object = obj
	}
	return r
}

func TestChain(t *testing.T) {
	for _, tc := range []struct {
		name        string
		req         *Request
		team        string // the admitted object's team label
		changed     bool
		warnings    []string
		annotations map[string]string
	}{{
		name: "the validating policy sees the mutated object", req: podRequest(admissionv1.Create, nil), team: "unknown", changed: true,
		warnings:    []string{"Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'require-team': team unknown"},
		annotations: map[string]string{"require-team/team": "unknown"},
	}, {
		name: "nothing to mutate", req: podRequest(admissionv1.Create, map[string]string{"team": "forbidden"}), team: "forbidden",
		warnings:    []string{"Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'require-team': team forbidden"},
		annotations: map[string]string{"require-team/team": "forbidden"},
	}, {
		name: "DELETE: validation only, on the old object", req: podRequest(admissionv1.Delete, map[string]string{"team": "a"}),
		annotations: map[string]string{"require-team/team": "a"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := chainOf(t, nil)
			res, trace, err := c.Explain(context.Background(), tc.req)
			require.NoError(t, err)
			if tc.team != "" {
				assert.Equal(t, tc.team, res.Object.GetLabels()["team"])
			}
			assert.Equal(t, tc.changed, res.Changed)
			assert.Equal(t, tc.warnings, res.Warnings)
			assert.Equal(t, tc.annotations, res.AuditAnnotations)
			assert.NotNil(t, trace.ValidatingPolicies)
			assert.Equal(t, "", trace.DeniedBy)
		})
	}
}

func TestChainReinvokes(t *testing.T) {
	c := chainOf(t, nil)
	_, trace, err := c.Explain(context.Background(), podRequest(admissionv1.Create, nil))
	require.NoError(t, err)
	// The IfNeeded policy changed the object: a second pass ran, in which
	// its own change does not invoke it again.
	assert.True(t, trace.Reinvoked)
	require.Len(t, trace.MutatingPolicies, 2)
	assert.True(t, trace.MutatingPolicies[1].Reinvocation)
}

func TestChainDenial(t *testing.T) {
	v, err := validatingpolicy.Decode([]byte(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny-all}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - {expression: "false", message: "no"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny-all}
spec: {policyName: deny-all, validationActions: [Deny]}
`))
	require.NoError(t, err)
	m, err := mutation.Decode([]byte(labelPolicies))
	require.NoError(t, err)
	sink := metrics.NewMemory()
	c, err := New(Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings, ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings}, Options{Metrics: sink})
	require.NoError(t, err)
	_, trace, err := c.Explain(context.Background(), podRequest(admissionv1.Create, nil))
	var status *apierrors.StatusError
	require.ErrorAs(t, err, &status)
	assert.Equal(t, `pods "p" is forbidden: ValidatingAdmissionPolicy 'deny-all' with binding 'deny-all' denied request: no`, status.ErrStatus.Message)
	assert.Equal(t, PluginValidatingAdmissionPolicy, trace.DeniedBy)
	// Two mutating calls (the reinvocation), one validating, two steps.
	assert.Equal(t, uint64(2), sink.HistogramOf(metrics.AdmissionControllerDuration, PluginMutatingAdmissionPolicy, "admit", "CREATE", "false").Count)
	assert.Equal(t, uint64(1), sink.HistogramOf(metrics.AdmissionControllerDuration, PluginValidatingAdmissionPolicy, "validate", "CREATE", "true").Count)
	assert.Equal(t, uint64(1), sink.HistogramOf(metrics.AdmissionStepDuration, "admit", "CREATE", "false").Count)
	assert.Equal(t, uint64(1), sink.HistogramOf(metrics.AdmissionStepDuration, "validate", "CREATE", "true").Count)
}

// TestChainPhases drives the phases as an embedding admission chain does:
// a pass, a second pass when asked, then validation; the outcome is
// Admit's.
func TestChainPhases(t *testing.T) {
	c := chainOf(t, nil)
	ctx := context.Background()
	req := podRequest(admissionv1.Create, nil)
	want, err := c.Admit(ctx, req)
	require.NoError(t, err)

	r := &Reinvocation{}
	first, err := c.Mutate(ctx, req, r)
	require.NoError(t, err)
	require.True(t, first.Changed)
	require.True(t, r.ShouldReinvoke(), "the IfNeeded policy changed the object")
	r.SetIsReinvoke()
	second := *req
	second.Object = first.Object
	again, err := c.Mutate(ctx, &second, r)
	require.NoError(t, err)
	assert.False(t, again.Changed, "its own change does not invoke it again")
	second.Object = again.Object
	got, err := c.Validate(ctx, &second)
	require.NoError(t, err)
	assert.Equal(t, want.Object.Object, again.Object.Object)
	assert.Equal(t, want.Warnings, got.Warnings)
	assert.Equal(t, want.AuditAnnotations, got.AuditAnnotations)
}
