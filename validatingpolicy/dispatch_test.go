package validatingpolicy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

type policies = []*admissionregistrationv1.ValidatingAdmissionPolicy
type bindings = []*admissionregistrationv1.ValidatingAdmissionPolicyBinding

func TestValidate(t *testing.T) {
	configMaps := NewParamObjects(nil,
		configMap("dev", "limits", map[string]any{"max": "5", "msg": "from params"}, map[string]string{"role": "limits"}),
		configMap("dev", "more", map[string]any{"max": "1"}, map[string]string{"role": "limits"}),
	)
	// Only ConfigMaps are served.
	params := ParamSourceFunc(func(kind schema.GroupVersionKind) (Params, error) {
		if kind != (schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) {
			return nil, ErrParamKindNotKnown
		}
		return configMaps.Params(kind)
	})
	for _, tc := range []struct {
		name     string
		policies policies
		bindings bindings
		req      *Request
		// err is the denial's message ("" admits), code and reason its
		// status'.
		err         string
		code        int32
		reason      metav1.StatusReason
		warnings    []string
		annotations map[string]string
	}{{
		name:     "passing validation admits",
		policies: policies{policy("p", validations(expr(`object.metadata.name == "a"`)))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "a", nil)),
	}, {
		name:     "failing validation denies with Invalid, 422, the expression",
		policies: policies{policy("p", validations(expr(`  object.metadata.name == "a"  `)))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.metadata.name == "a"`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name: "reason and trimmed message",
		policies: policies{policy("p", validations(admissionregistrationv1.Validation{Expression: "false", Message: "  no  ",
			Reason: ptr.To(metav1.StatusReasonForbidden)}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no`,
		code:     403, reason: metav1.StatusReasonForbidden,
	}, {
		name:     "reasons map to codes: Unauthorized 401, RequestEntityTooLarge 413, others 422",
		policies: policies{policy("p", validations(admissionregistrationv1.Validation{Expression: "false", Reason: ptr.To(metav1.StatusReasonRequestEntityTooLarge)}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: false`,
		code:     413, reason: metav1.StatusReasonRequestEntityTooLarge,
	}, {
		name: "messageExpression wins over message",
		policies: policies{policy("p", validations(admissionregistrationv1.Validation{Expression: "false", Message: "static",
			MessageExpression: `" name " + object.metadata.name + " "`}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: name x`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name: "a multi-line messageExpression falls back to the message",
		policies: policies{policy("p", validations(admissionregistrationv1.Validation{Expression: "false", Message: "static",
			MessageExpression: `"a\nb"`}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: static`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name: "a failing messageExpression falls back to the expression",
		policies: policies{policy("p", validations(admissionregistrationv1.Validation{Expression: "false",
			MessageExpression: `string(object.nosuch)`}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: false`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "runtime error under Fail denies",
		policies: policies{policy("p", validations(expr(`object.nosuch == 1`)))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.nosuch == 1' resulted in error: no such key: nosuch`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "runtime error under Ignore admits",
		policies: policies{policy("p", validations(expr(`object.nosuch == 1`)), failurePolicy(admissionregistrationv1.Ignore))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
	}, {
		name:     "compile error",
		policies: policies{policy("p", validations(expr(`"str"`)))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: compilation error: must evaluate to bool but got string`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:        "Warn warns, Audit annotates, neither denies",
		policies:    policies{policy("p", validations(admissionregistrationv1.Validation{Expression: "false", Message: "m"}))},
		bindings:    bindings{binding("b", "p", warn, audit)},
		req:         create(pod("dev", "x", nil)),
		warnings:    []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': m"},
		annotations: map[string]string{ValidationFailureAnnotation: `[{"message":"m","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}]`},
	}, {
		name:     "audit annotations of bindings joined, published when denied",
		policies: policies{policy("p", validations(expr("false")), annotations(admissionregistrationv1.AuditAnnotation{Key: "k", ValueExpression: `" v " + request.userInfo.username`}, admissionregistrationv1.AuditAnnotation{Key: "n", ValueExpression: `null`}))},
		bindings: bindings{binding("b1", "p", deny), binding("b2", "p", warn)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b1' denied request: failed expression: false`,
		code:     422, reason: metav1.StatusReasonInvalid,
		warnings:    []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b2': failed expression: false"},
		annotations: map[string]string{"p/k": "v alice"},
	}, {
		name:     "an audit annotation's error denies, whatever the actions",
		policies: policies{policy("p", annotations(admissionregistrationv1.AuditAnnotation{Key: "k", ValueExpression: `string(object.nosuch)`}))},
		bindings: bindings{binding("b", "p", audit)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'string(object.nosuch)' resulted in error: no such key: nosuch`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "params by selector: one invocation each",
		policies: policies{policy("p", paramKind("v1", "ConfigMap"), validations(admissionregistrationv1.Validation{Expression: `object.metadata.name.size() <= int(params.data.max)`, MessageExpression: `"max " + params.data.max`}))},
		bindings: bindings{withParamRef(binding("b", "p", warn), admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "limits"}}, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)})},
		req:      create(pod("dev", "abc", nil)),
		warnings: []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': max 1"},
	}, {
		name:     "param not found, Deny",
		policies: policies{policy("p", paramKind("v1", "ConfigMap"), validations(expr("true")))},
		bindings: bindings{withParamRef(binding("b", "p", deny), admissionregistrationv1.ParamRef{Name: "absent", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)})},
		req:      create(pod("dev", "x", nil)),
		err:      "pods \"x\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "unknown paramKind is the policy's configuration error",
		policies: policies{policy("p", paramKind("example.com/v1", "Limits"), validations(expr("true")))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "unrecognised failure policy on a configuration error",
		policies: policies{policy("p", paramKind("example.com/v1", "Limits"), failurePolicy("Maybe"))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' denied request: unrecognized failure policy: 'Maybe'`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "a missing namespace fails the request with its 404",
		policies: policies{policy("p", validations(expr("true")))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("gone", "x", nil)),
		err:      `namespaces "gone" not found`,
		code:     404, reason: metav1.StatusReasonNotFound,
	}, {
		name:     "a false match condition skips",
		policies: policies{policy("p", validations(expr("false")), conditions(admissionregistrationv1.MatchCondition{Name: "labelled", Expression: `has(object.metadata.labels)`}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
	}, {
		name:     "variables and namespaceObject",
		policies: policies{policy("p", variables(admissionregistrationv1.Variable{Name: "env", Expression: `namespaceObject.metadata.labels.env`}), validations(admissionregistrationv1.Validation{Expression: `variables.env != "dev"`, MessageExpression: `"env " + variables.env`}))},
		bindings: bindings{binding("b", "p", deny)},
		req:      create(pod("dev", "x", nil)),
		err:      `pods "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: env dev`,
		code:     422, reason: metav1.StatusReasonInvalid,
	}, {
		name:     "a binding of a missing policy and a policy without binding do nothing",
		policies: policies{policy("unbound", validations(expr("false")))},
		bindings: bindings{binding("b", "missing", deny)},
		req:      create(pod("dev", "x", nil)),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDispatcher(tc.policies, tc.bindings, Options{Params: params, Namespaces: namespaces})
			require.NoError(t, err)
			res, err := d.Validate(context.Background(), tc.req)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				var status *apierrors.StatusError
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tc.err, status.ErrStatus.Message)
				assert.Equal(t, tc.code, status.ErrStatus.Code)
				assert.Equal(t, tc.reason, status.ErrStatus.Reason)
			}
			assert.Equal(t, tc.warnings, res.Warnings)
			assert.Equal(t, tc.annotations, res.AuditAnnotations)
		})
	}
}

func TestExplainTraces(t *testing.T) {
	d, err := NewDispatcher(policies{
		policy("p", validations(expr("true"), admissionregistrationv1.Validation{Expression: "false", Message: "no"}),
			annotations(admissionregistrationv1.AuditAnnotation{Key: "k", ValueExpression: `"v"`})),
		policy("q", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].Resources = []string{"deployments"}
		}),
	}, bindings{binding("b", "p", warn), binding("c", "q", deny)}, Options{Namespaces: namespaces})
	require.NoError(t, err)
	_, trace, err := d.Explain(context.Background(), create(pod("dev", "x", nil)))
	require.NoError(t, err)
	require.Len(t, trace.Policies, 2)
	p := trace.Policies[0]
	assert.True(t, p.Matched)
	require.Len(t, p.Bindings, 1)
	require.Len(t, p.Bindings[0].Invocations, 1)
	inv := p.Bindings[0].Invocations[0]
	assert.Equal(t, []ValidationTrace{{Index: 0, Passed: true}, {Index: 1, Denied: true, Message: "no", Reason: metav1.StatusReasonInvalid}}, inv.Validations)
	assert.Equal(t, []AuditAnnotationTrace{{Key: "k", Value: "v"}}, inv.AuditAnnotations)
	assert.Equal(t, PolicyTrace{Policy: "q", Reason: "rules"}, trace.Policies[1])
	assert.Contains(t, trace.String(), "validation 1: failed (Invalid): no")
	assert.Contains(t, trace.String(), "policy q: not matched (rules)")
}

func TestMetrics(t *testing.T) {
	sink := metrics.NewMemory()
	d, err := NewDispatcher(policies{
		policy("p", validations(expr("false"), expr("1 +"))),
		policy("i", validations(expr("object.nosuch")), failurePolicy(admissionregistrationv1.Ignore)),
	}, bindings{binding("b", "p", deny, warn, audit), binding("c", "i", deny)}, Options{Namespaces: namespaces, Metrics: sink})
	require.NoError(t, err)
	_, err = d.Validate(context.Background(), create(pod("dev", "x", nil)))
	require.Error(t, err)
	for _, want := range []struct {
		labels []string
	}{
		{[]string{"p", "b", "invalid_error", "deny"}},
		{[]string{"p", "b", "invalid_error", "warn"}},
		{[]string{"p", "b", "invalid_error", "audit"}},
		{[]string{"p", "b", "compile_error", "deny"}},
		{[]string{"p", "b", "compile_error", "warn"}},
		{[]string{"p", "b", "compile_error", "audit"}},
		{[]string{"i", "c", "compile_error", "allow"}},
	} {
		assert.Equal(t, 1.0, sink.Value(metrics.ValidatingAdmissionPolicyChecks, want.labels...), "%v", want.labels)
	}
	assert.Len(t, sink.Series(metrics.ValidatingAdmissionPolicyChecks), 7)
	assert.Empty(t, sink.Errors())
}

func TestParamContentGetsParamKind(t *testing.T) {
	pk := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	got := paramContent(map[string]any{"data": map[string]any{}}, pk)
	assert.Equal(t, "v1", got["apiVersion"])
	assert.Equal(t, "ConfigMap", got["kind"])
	kept := map[string]any{"apiVersion": "example.com/v1", "kind": "Limits"}
	assert.Equal(t, kept, paramContent(kept, pk))
}
