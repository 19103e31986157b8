package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/utils/ptr"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// TestValidatingPolicyMatchesKubeAPIServerPerVersion runs the
// ValidatingAdmissionPolicy corpus of TestValidatingPolicyMatchesKubeAPIServer
// (a part of its worlds) and the worlds of the rows that differ between
// versions (vapVersionWorlds) through gatehouse's dispatcher answering as
// each version and through that version's own policy/validating dispatcher
// (k8s.io/apiserver v0.35.10 and v0.36.6 out of process, v0.37.2 in
// process, the oracle's vap op): the same status, warnings and audit
// annotations.
func TestValidatingPolicyMatchesKubeAPIServerPerVersion(t *testing.T) {
	oracles := startOracles(t)
	worlds := vapGenerate(rand.New(rand.NewSource(37)), 60, 24)
	// Every third world of the corpus, and the budget and conversion
	// worlds (5, 6, 13, 23, ...) it might skip.
	var picked []vapWorld
	for i := range worlds {
		if i%3 == 0 || i%20 == 5 || i%20 == 6 || i%10 == 3 {
			picked = append(picked, worlds[i])
		}
	}
	picked = append(picked, vapVersionWorlds()...)
	// The oracles' answers to the version worlds, by version and request.
	answers := map[string]map[string]string{}
	for _, o := range oracles {
		v := kube.MustParseVersion(o.Version())
		t.Run(v.String(), func(t *testing.T) {
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			compiler, err := validatingpolicy.NewCompilerFor(target)
			require.NoError(t, err)
			n, denied, warned, annotated := 0, 0, 0, 0
			for wi := range picked {
				w := &picked[wi]
				t.Run(w.name, func(t *testing.T) {
					ours := newGatehouseVAP(t, w, compiler, target)
					base := vapOracleWorld(t, w)
					for ri := range w.requests {
						r := &w.requests[ri]
						t.Run(r.name, func(t *testing.T) {
							id := vapIdentityOf(r)
							q := *base
							q.Request = vapOracleRequest(t, r, id)
							a, err := o.Eval(protocol.Query{Op: protocol.OpVAP, VAP: &q})
							require.NoError(t, err)
							require.NotNil(t, a.VAP)
							want := vapOutcomeOf(t, a.VAP)
							if strings.HasPrefix(w.name, "v-") {
								if answers[v.String()] == nil {
									answers[v.String()] = map[string]string{}
								}
								answers[v.String()][w.name+"/"+r.name] = string(mustJSON(t, a.VAP))
							}
							res, trace, gerr := ours.Explain(context.Background(), gatehouseVAPRequest(t, r, id))
							// Both statuses as they travel: through JSON.
							if se, ok := gerr.(*apierrors.StatusError); ok {
								gerr = &apierrors.StatusError{ErrStatus: jsonStatus(t, se.ErrStatus)}
							}
							vapCompareOutcome(t, want, res, trace, gerr)
							n++
							if want.err != nil {
								denied++
							}
							if len(want.warnings) > 0 {
								warned++
							}
							if len(want.annotations) > 0 {
								annotated++
							}
						})
					}
				})
			}
			t.Logf("Kubernetes %s: %d requests in %d worlds: %d denied, %d with warnings, %d with audit annotations", v, n, len(picked), denied, warned, annotated)
		})
	}
	// The rows as kube-apiserver has them: the worlds of 1.3 #8 (audit
	// failures) and #1 (includes) are answered differently by 1.37 than by
	// 1.36, which answers them as 1.35; those of 1.3 #9 (conversions per
	// matchKind) and #10 (unknown paramKind) alike by every version.
	for key, a37 := range answers["1.37"] {
		a36, a35 := answers["1.36"][key], answers["1.35"][key]
		require.Equal(t, a35, a36, "%s: 1.35 and 1.36", key)
		differs := strings.HasPrefix(key, "v-audit-failures") || strings.HasPrefix(key, "v-includes")
		if differs {
			require.NotEqual(t, a36, a37, "%s: 1.36 and 1.37 should differ", key)
		} else {
			require.Equal(t, a36, a37, "%s: 1.36 and 1.37", key)
		}
	}
}

// vapOracleWorld is a world as the oracle's query (without the request).
func vapOracleWorld(t testing.TB, w *vapWorld) *protocol.VAPQuery {
	t.Helper()
	q := &protocol.VAPQuery{
		Static:     w.static,
		ParamKinds: []protocol.VAPParamKind{{APIVersion: "v1", Kind: "ConfigMap", Namespaced: true}},
		CustomResources: []protocol.VAPCustomResource{{
			Group: widgetV1.Group, Kind: widgetV1.Kind, Resource: "widgets", Versions: []string{widgetV1.Version, widgetV2.Version},
			Renames: map[string]map[string]string{widgetV2.Version: {"spec.replicas": "spec.size"}},
		}},
	}
	for _, p := range w.policies {
		q.Policies = append(q.Policies, mustJSON(t, p))
	}
	for _, b := range w.bindings {
		q.Bindings = append(q.Bindings, mustJSON(t, b))
	}
	for _, o := range w.objects {
		switch o := o.(type) {
		case *corev1.Namespace:
			q.Namespaces = append(q.Namespaces, mustJSON(t, o))
		case *corev1.ConfigMap:
			cm := o.DeepCopy()
			cm.APIVersion, cm.Kind = "v1", "ConfigMap"
			q.Params = append(q.Params, mustJSON(t, cm))
		default:
			t.Fatalf("world %s: an object of type %T", w.name, o)
		}
	}
	return q
}

// vapOracleRequest is r as the oracle's request.
func vapOracleRequest(t testing.TB, r *vapRequest, id vapIdentity) protocol.VAPRequest {
	t.Helper()
	req := protocol.VAPRequest{
		Operation:   string(r.operation),
		Kind:        protocol.GroupVersionKind{Group: id.kind.Group, Version: id.kind.Version, Kind: id.kind.Kind},
		Resource:    protocol.GroupVersionResource{Group: id.resource.Group, Version: id.resource.Version, Resource: id.resource.Resource},
		SubResource: r.subresource,
		Name:        id.name,
		Namespace:   id.namespace,
		UserInfo:    protocol.UserInfo{Username: r.user.Name, UID: r.user.UID, Groups: r.user.Groups, Extra: r.user.Extra},
		DryRun:      r.dryRun,
	}
	if r.object != nil {
		req.Object = mustJSON(t, r.object)
	}
	if r.old != nil {
		req.OldObject = mustJSON(t, r.old)
	}
	if r.options != nil {
		req.Options = mustJSON(t, r.options)
	}
	return req
}

// vapOutcomeOf is the oracle's answer as the in-process harness's outcome:
// an error that is not a status becomes an internal error, as the harness
// (and the admission chain) makes it.
func vapOutcomeOf(t testing.TB, a *protocol.VAPAnswer) kubeVAPOutcome {
	t.Helper()
	out := kubeVAPOutcome{warnings: a.Warnings, annotations: a.AuditAnnotations}
	switch {
	case len(a.Status) > 0:
		var st metav1.Status
		require.NoError(t, json.Unmarshal(a.Status, &st))
		out.err = &apierrors.StatusError{ErrStatus: st}
	case a.Error != "":
		se := apierrors.NewInternalError(errors.New(a.Error))
		out.err = &apierrors.StatusError{ErrStatus: jsonStatus(t, se.ErrStatus)}
	}
	return out
}

func jsonStatus(t testing.TB, st metav1.Status) metav1.Status {
	t.Helper()
	var out metav1.Status
	require.NoError(t, json.Unmarshal(mustJSON(t, st), &out))
	return out
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// vapVersionWorlds are the worlds of the rows of
// ../shared/reference/kubernetes-versions.md where ValidatingAdmissionPolicy
// dispatch differs between 1.35, 1.36 and 1.37.
func vapVersionWorlds() []vapWorld {
	objects := []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "dev"}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "dev"}, Data: map[string]string{"max": "5"}},
	}
	all := func() *admissionregistrationv1.MatchResources {
		return &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{vapRule("*", "*", "*")}}
	}
	policy := func(name string, validations ...admissionregistrationv1.Validation) *admissionregistrationv1.ValidatingAdmissionPolicy {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
		p.Spec.MatchConstraints = all()
		p.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		p.Spec.Validations = validations
		return p
	}
	binding := func(name, policy string, actions ...admissionregistrationv1.ValidationAction) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: actions}}
	}
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: "dev"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	podRequests := []vapRequest{
		{name: "create-pod", operation: admission.Create, object: pod, resource: "pods", user: vapAlice},
		{name: "update-pod", operation: admission.Update, object: pod, old: pod, resource: "pods", user: vapMallory},
	}
	audit, warn, deny := admissionregistrationv1.Audit, admissionregistrationv1.Warn, admissionregistrationv1.Deny
	var out []vapWorld

	// 1.3 #8: several Audit failures, in one binding, in two bindings and
	// in two policies; 1.37 aggregates them, 1.35 and 1.36 keep the first.
	fails := []admissionregistrationv1.Validation{
		{Expression: `false`, Message: "first"},
		{Expression: `object.metadata.name == "nobody"`, MessageExpression: `"second: " + object.metadata.name`},
		{Expression: `1 == 2`, Reason: ptr.To(metav1.StatusReasonForbidden)},
	}
	out = append(out, vapWorld{name: "v-audit-failures", objects: objects,
		policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{policy("audit-a", fails...), policy("audit-b", fails[1])},
		bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			binding("audit-a-1", "audit-a", audit), binding("audit-a-2", "audit-a", warn, audit), binding("audit-b", "audit-b", audit)},
		requests: podRequests})
	// 51 failures: 1.37 truncates at 50.
	var many []admissionregistrationv1.Validation
	for i := range 51 {
		many = append(many, admissionregistrationv1.Validation{Expression: fmt.Sprintf("%d < 0", i)})
	}
	out = append(out, vapWorld{name: "v-audit-failures-51", objects: objects,
		policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{policy("many", many...)},
		bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{binding("many", "many", audit)},
		requests: podRequests[:1]})

	// 1.3 #9: bindings of one policy matching a v2 Widget through
	// matchPolicy Equivalent as v1 and exactly as v2; 1.36 converts once,
	// for the first binding, and gives every binding that object.
	widgetPolicy := policy("widgets", admissionregistrationv1.Validation{
		Expression:        `false`,
		MessageExpression: `"as " + request.kind.version + " from " + request.requestKind.version + ": " + (has(object.spec.size) ? "size " : "replicas ") + string(object.spec.?size.orValue(object.spec.?replicas.orValue(0)))`,
	})
	widgetPolicy.Spec.MatchConstraints.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("example.com", "*", "widgets")}
	onVersion := func(name, version string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		b := binding(name, "widgets", warn)
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{vapRule("example.com", version, "widgets")}}
		return b
	}
	widgets := func() []vapRequest {
		var rs []vapRequest
		for i, gvk := range []bool{false, true} {
			u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": "dev"},
				"spec": map[string]any{"replicas": int64(3)}}}
			u.SetGroupVersionKind(widgetV1)
			if gvk {
				u, _ = convertWidget(u, widgetV2)
			}
			rs = append(rs, vapRequest{name: fmt.Sprintf("widget-%s", u.GroupVersionKind().Version), operation: admission.Create, object: u, resource: "widgets", user: vapAlice})
		}
		return rs
	}
	out = append(out,
		vapWorld{name: "v-match-kinds-v1-first", objects: objects,
			policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{widgetPolicy},
			bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{onVersion("on-v1", "v1"), onVersion("on-v2", "v2")},
			requests: widgets()},
		vapWorld{name: "v-match-kinds-v2-first", objects: objects,
			policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{widgetPolicy},
			bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{onVersion("on-v2", "v2"), onVersion("on-v1", "v1")},
			requests: widgets()})

	// 1.3 #1: includes() in a validation, a messageExpression, a variable
	// and a match condition: compile errors before 1.37.
	inc := policy("includes",
		admissionregistrationv1.Validation{Expression: `["alpha", "beta"].includes(object.metadata.name)`, Message: "not listed"},
		admissionregistrationv1.Validation{Expression: `false`, MessageExpression: `[1].includes(1) ? "yes" : "no"`},
		admissionregistrationv1.Validation{Expression: `variables.listed`})
	inc.Spec.Variables = []admissionregistrationv1.Variable{{Name: "listed", Expression: `[object.metadata.name].includes("alpha")`}}
	incIgnore := policy("includes-ignore", admissionregistrationv1.Validation{Expression: `[1, 2].includes(3)`})
	incIgnore.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
	incCond := policy("includes-condition", admissionregistrationv1.Validation{Expression: `false`, Message: "matched"})
	incCond.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "listed", Expression: `["alpha"].includes(object.metadata.name)`}}
	out = append(out, vapWorld{name: "v-includes", objects: objects,
		policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{inc, incIgnore, incCond},
		bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			binding("includes", "includes", warn, audit), binding("includes-ignore", "includes-ignore", deny), binding("includes-condition", "includes-condition", warn)},
		requests: podRequests})

	// 1.3 #10, offline: a paramKind the REST mapper does not know, and a
	// known one whose param is missing, with either parameterNotFoundAction.
	unknown := policy("unknown-kind", admissionregistrationv1.Validation{Expression: `params == null`, Message: "params"})
	unknown.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Limits"}
	known := policy("known-kind", admissionregistrationv1.Validation{Expression: `params == null`, Message: "params"})
	known.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	withRef := func(name, policy, param string, action admissionregistrationv1.ParameterNotFoundActionType) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		b := binding(name, policy, warn)
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: param, ParameterNotFoundAction: ptr.To(action)}
		return b
	}
	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		u, k := unknown.DeepCopy(), known.DeepCopy()
		u.Spec.FailurePolicy, k.Spec.FailurePolicy = ptr.To(fp), ptr.To(fp)
		out = append(out, vapWorld{name: "v-params-" + string(fp), objects: objects,
			policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{u, k},
			bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{
				withRef("unknown-deny", "unknown-kind", "limits", admissionregistrationv1.DenyAction),
				withRef("unknown-allow", "unknown-kind", "absent", admissionregistrationv1.AllowAction),
				withRef("known-absent-allow", "known-kind", "absent", admissionregistrationv1.AllowAction),
				withRef("known-absent-deny", "known-kind", "absent", admissionregistrationv1.DenyAction),
				withRef("known-present", "known-kind", "limits", admissionregistrationv1.DenyAction),
			},
			requests: podRequests})
	}
	return out
}
