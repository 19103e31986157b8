package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/loader"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/resources"
)

// The differential test of the webhook dispatcher on the inputs the first
// suite (admissionwebhook_test.go) never varied, each of which once hid a
// difference from k8s.io/apiserver v0.37.2's plugins:
//   - a patch that changes the object's apiVersion or kind (kube-apiserver
//     converts the patched object back to the request's version, and fails
//     with the converter's error when it cannot);
//   - match conditions of a webhook matched through an equivalent resource
//     (kube-apiserver evaluates them on the objects converted to the matched
//     version);
//   - a request whose object's kind has no metadata, a CONNECT of
//     pods/exec (no objectSelector but an empty one matches it);
//   - static and API webhooks together (static first; only the static ones
//     see requests on admission configuration resources).
// Both sides call the same loopback TLS webhooks; the test compares the
// error's status (a plain error as kube-apiserver's endpoints turn it into
// one), the final object, warnings, audit annotations and the requests the
// webhooks received.

// shHook is one webhook of a shape.
type shHook struct {
	static bool
	// patch is the webhook's JSON patch ("" allows without one); deny
	// refuses.
	patch string
	deny  bool
	// rules are the webhook's rules (resources, in "group/version/resource"
	// form, every operation); equivalent sets matchPolicy Equivalent
	// (Exact otherwise).
	rules      []string
	equivalent bool
	// selector is its objectSelector; conditions its match conditions.
	selector   *metav1.LabelSelector
	conditions []string
	ignore     bool
}

// shRequest is a shape's request.
type shRequest struct {
	op          admission.Operation
	kind        schema.GroupVersionKind
	resource    schema.GroupVersionResource
	subresource string
	namespace   string
	// object and old are the objects as kube-apiserver holds them: typed
	// for built-in kinds, unstructured for custom resources.
	object, old runtime.Object
}

type shShape struct {
	name     string
	mutating bool
	request  shRequest
	hooks    []shHook
	// reinvoke runs the mutating webhooks a second time when they asked.
	reinvoke bool
}

// The custom resource of the shapes: widgets of example.com, served in v1
// and v2 with conversion strategy None, equivalent resources of each other.
var (
	shWidgetsV1 = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	shWidgetsV2 = schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}
	shWidgetV1  = shWidgetsV1.GroupVersion().WithKind("Widget")
	shWidgetV2  = shWidgetsV2.GroupVersion().WithKind("Widget")
	shPods      = corev1.SchemeGroupVersion.WithResource("pods")
)

func shWidget(version string, labels map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": "w", "namespace": "default"}
	if labels != nil {
		meta["labels"] = labels
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/" + version, "kind": "Widget",
		"metadata": meta, "spec": map[string]any{"size": int64(2)}}}
}

func shPodRequest(op admission.Operation) shRequest {
	r := shRequest{op: op, kind: corev1.SchemeGroupVersion.WithKind("Pod"), resource: shPods, namespace: "default", object: awPod()}
	if op == admission.Update {
		r.old = awPod()
	}
	return r
}

func shWidgetRequest(op admission.Operation) shRequest {
	r := shRequest{op: op, kind: shWidgetV1, resource: shWidgetsV1, namespace: "default", object: shWidget("v1", map[string]any{"app": "web"})}
	if op == admission.Update {
		r.old = shWidget("v1", map[string]any{"app": "old"})
	}
	return r
}

func shExecRequest() shRequest {
	return shRequest{op: admission.Connect, kind: corev1.SchemeGroupVersion.WithKind("PodExecOptions"), resource: shPods, subresource: "exec",
		namespace: "default", object: &corev1.PodExecOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodExecOptions"},
			Stdout: true, Container: "c", Command: []string{"sh"}}}
}

// shConfigRequest is a request on an admission configuration resource.
func shConfigRequest() shRequest {
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Labels: map[string]string{"app": "web"}}}
	return shRequest{op: admission.Create, kind: admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"),
		resource: admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations"), object: cfg}
}

var (
	shAll       = []string{"*/*/*"}
	shDoesNotEx = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	shAppWeb    = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
)

func shShapes() []shShape {
	var out []shShape
	for _, mutating := range []bool{false, true} {
		common := []shShape{
			// 2. match conditions after an Equivalent match.
			{name: "condition on the matched version", request: shWidgetRequest(admission.Create), hooks: []shHook{
				{rules: []string{"example.com/v2/widgets"}, equivalent: true, conditions: []string{"object.apiVersion == 'example.com/v2'"}}}},
			{name: "condition on the matched version of an update", request: shWidgetRequest(admission.Update), hooks: []shHook{
				{rules: []string{"example.com/v2/widgets"}, equivalent: true, conditions: []string{"oldObject.apiVersion == 'example.com/v2' && object.metadata.labels.app == 'web'"}}}},
			{name: "condition false on the matched version", request: shWidgetRequest(admission.Create), hooks: []shHook{
				{rules: []string{"example.com/v2/widgets"}, equivalent: true, conditions: []string{"object.apiVersion == 'example.com/v1'"}},
				{rules: []string{"example.com/v1/widgets"}, conditions: []string{"object.apiVersion == 'example.com/v1'"}}}},
			// 3. a kind without metadata.
			{name: "exec: DoesNotExist matches nothing", request: shExecRequest(), hooks: []shHook{{rules: []string{"/v1/pods/exec"}, selector: shDoesNotEx}}},
			{name: "exec: matchLabels matches nothing", request: shExecRequest(), hooks: []shHook{{rules: []string{"/v1/pods/exec"}, selector: shAppWeb}}},
			{name: "exec: the empty selector matches", request: shExecRequest(), hooks: []shHook{{rules: []string{"/v1/pods/exec"}, selector: &metav1.LabelSelector{}}}},
			{name: "exec: without selector", request: shExecRequest(), hooks: []shHook{{rules: []string{"/v1/pods/exec"}}, {rules: shAll, selector: shDoesNotEx}}},
			// 4. static and API webhooks together.
			{name: "static then API on a pod", request: shPodRequest(admission.Create), hooks: []shHook{
				{rules: shAll}, {static: true, rules: shAll}, {rules: shAll, selector: shAppWeb}, {static: true, rules: shAll, deny: true, ignore: true}}},
			{name: "only static on a webhook configuration", request: shConfigRequest(), hooks: []shHook{
				{rules: shAll}, {static: true, rules: shAll}, {rules: []string{"admissionregistration.k8s.io/v1/*"}}, {static: true, rules: shAll, selector: shAppWeb}}},
			{name: "an API refusal does not reach a webhook configuration", request: shConfigRequest(), hooks: []shHook{
				{rules: shAll, deny: true}, {static: true, rules: shAll}}},
			{name: "a static refusal of a webhook configuration", request: shConfigRequest(), hooks: []shHook{
				{rules: shAll}, {static: true, rules: shAll, deny: true}}},
		}
		if mutating {
			common = append(common,
				// 1. patches that change the kind or version.
				shShape{name: "a pod patched into a ConfigMap", request: shPodRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/kind","value":"ConfigMap"}]`}}},
				shShape{name: "a pod patched into a ConfigMap, then another webhook", request: shPodRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/kind","value":"ConfigMap"},{"op":"add","path":"/data","value":{"a":"b"}}]`},
					{rules: shAll, patch: `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`}}},
				shShape{name: "a pod patched without kind", request: shPodRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"remove","path":"/kind"}]`}}},
				shShape{name: "a pod patched into a ConfigMap and back", request: shPodRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/kind","value":"ConfigMap"}]`},
					{rules: shAll, patch: `[{"op":"replace","path":"/kind","value":"Pod"}]`}}},
				shShape{name: "a widget patched into v2", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":"example.com/v2"}]`}}},
				shShape{name: "a widget patched into v2, reinvoked", request: shWidgetRequest(admission.Create), reinvoke: true, hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":"example.com/v2"},{"op":"add","path":"/metadata/labels/x","value":"y"}]`},
					{rules: shAll, conditions: []string{"object.apiVersion == 'example.com/v1'"}}}},
				shShape{name: "a widget patched to an empty apiVersion", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":""}]`}}},
				shShape{name: "a widget patched without apiVersion", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"remove","path":"/apiVersion"}]`}}},
				shShape{name: "a pod patched without apiVersion and kind", request: shPodRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"remove","path":"/apiVersion"},{"op":"remove","path":"/kind"}]`},
					{rules: shAll, patch: `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`}}},
				shShape{name: "a widget patched into another kind of its group (found by the fuzz target)", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/kind","value":"Pod"}]`}}},
				shShape{name: "a widget patched into another kind, then matched in v2", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/kind","value":"Gadget"}]`},
					{rules: []string{"example.com/v2/widgets"}, equivalent: true}}},
				shShape{name: "a widget patched into another group", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":"other.example.com/v1"}]`}}},
				shShape{name: "a widget patched into v3, then matched in v2", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":"example.com/v3"}]`},
					{rules: []string{"example.com/v2/widgets"}, equivalent: true}}},
				shShape{name: "a widget matched in v2 and patched there", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: []string{"example.com/v2/widgets"}, equivalent: true, patch: `[{"op":"add","path":"/metadata/labels/v2","value":"yes"}]`},
					{rules: []string{"example.com/v1/widgets"}, conditions: []string{"object.metadata.labels.v2 == 'yes'"}},
					{rules: []string{"example.com/v2/widgets"}, equivalent: true, conditions: []string{"object.apiVersion == 'example.com/v2' && object.metadata.labels.v2 == 'yes'"}}}},
				shShape{name: "a widget patched, then a condition in v2", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":"example.com/v2"}]`},
					{rules: []string{"example.com/v2/widgets"}, equivalent: true, conditions: []string{"object.apiVersion == 'example.com/v2'"}}}},
				shShape{name: "a widget patched into another group, then a condition in v2", request: shWidgetRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"replace","path":"/apiVersion","value":"other.example.com/v1"}]`},
					{rules: []string{"example.com/v2/widgets"}, equivalent: true, conditions: []string{"true"}}}},
				shShape{name: "static patches first", request: shPodRequest(admission.Create), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"add","path":"/metadata/labels/api","value":"1"}]`},
					{static: true, rules: shAll, patch: `[{"op":"add","path":"/metadata/labels/static","value":"1"}]`},
					{rules: shAll, conditions: []string{"'static' in object.metadata.labels"}}}},
				shShape{name: "a static patch of a webhook configuration", request: shConfigRequest(), hooks: []shHook{
					{rules: shAll, patch: `[{"op":"add","path":"/metadata/labels/api","value":"1"}]`},
					{static: true, rules: shAll, patch: `[{"op":"add","path":"/metadata/labels/static","value":"1"}]`}}},
			)
		}
		for _, s := range common {
			s.mutating = mutating
			out = append(out, s)
		}
	}
	return out
}

func TestAdmissionWebhookShapesMatchKubeAPIServer(t *testing.T) {
	h := newShHarness(t)
	for _, s := range shShapes() {
		kind := "validating"
		if s.mutating {
			kind = "mutating"
		}
		t.Run(kind+"/"+s.name, func(t *testing.T) {
			kube, ours := h.run(t, s)
			t.Logf("kube-apiserver: %s %v", kube.err, kube.received)
			awCompare(t, kube, ours)
		})
	}
}

// FuzzAdmissionWebhookShapesMatchKubeAPIServer builds a request and up to
// three webhooks from the input, drawing each input the first suite never
// varied: the request (a pod, a widget, a CONNECT of pods/exec, a webhook
// configuration, and an update of each object kind), each webhook's source
// (static or API), rules (exact or equivalent, in v1 or v2), selector,
// match condition, patch (changing the kind, the version or the group) and
// failure policy.
func FuzzAdmissionWebhookShapesMatchKubeAPIServer(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 0, 0, 0, 1, 0},
		{1, 1, 2, 1, 1, 2, 3},
		{2, 0, 3, 2, 2, 0, 0},
		{3, 1, 1, 3, 0, 4, 1},
		{4, 1, 0, 1, 3, 5, 2, 7, 1, 2, 3},
		{5, 0, 4, 0, 1, 0, 2, 9, 9, 9, 9, 9, 9},
		{1, 1, 1, 1, 4, 6, 0, 1, 1, 1, 0, 3},
		{0, 1, 0, 0, 0, 7, 0, 0, 0, 0, 0, 1, 1},
	} {
		f.Add(seed)
	}
	h := newShHarness(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok := shFromBytes(data)
		if !ok {
			return
		}
		kube, ours := h.run(t, s)
		awCompare(t, kube, ours)
	})
}

// shFromBytes draws a shape from data.
func shFromBytes(data []byte) (shShape, bool) {
	if len(data) < 7 {
		return shShape{}, false
	}
	at := 0
	next := func() int {
		if at >= len(data) {
			return 0
		}
		at++
		return int(data[at-1])
	}
	var s shShape
	switch next() % 6 {
	case 0:
		s.request = shPodRequest(admission.Create)
	case 1:
		s.request = shWidgetRequest(admission.Create)
	case 2:
		s.request = shExecRequest()
	case 3:
		s.request = shConfigRequest()
	case 4:
		s.request = shWidgetRequest(admission.Update)
	default:
		s.request = shPodRequest(admission.Update)
	}
	s.mutating = next()%2 == 1
	s.reinvoke = s.mutating && next()%2 == 1
	rules := [][]string{shAll, {"example.com/v2/widgets"}, {"example.com/v1/widgets"}, {"/v1/pods", "/v1/pods/exec"}, {"admissionregistration.k8s.io/v1/*"}}
	selectors := []*metav1.LabelSelector{nil, shDoesNotEx, shAppWeb, {}}
	conditions := [][]string{nil, {"object.apiVersion == 'example.com/v2'"}, {"object.apiVersion == 'example.com/v1'"},
		{"oldObject == null || oldObject.apiVersion == 'example.com/v2'"}, {"has(object.metadata) && has(object.metadata.labels) && 'x' in object.metadata.labels"},
		{"object.kind == 'ConfigMap'"}}
	patches := []string{"", `[{"op":"replace","path":"/kind","value":"ConfigMap"}]`, `[{"op":"replace","path":"/apiVersion","value":"example.com/v2"}]`,
		`[{"op":"replace","path":"/apiVersion","value":"other.example.com/v1"}]`, `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`,
		`[{"op":"remove","path":"/kind"}]`, `[{"op":"replace","path":"/kind","value":"Pod"}]`, `[{"op":"replace","path":"/apiVersion","value":"example.com/v1"}]`,
		`[{"op":"replace","path":"/apiVersion","value":""}]`, `[{"op":"remove","path":"/apiVersion"}]`}
	for n := 1 + next()%3; n > 0; n-- {
		b := next()
		hk := shHook{static: b&1 == 1, equivalent: b&2 == 2, ignore: b&4 == 4, deny: b&8 == 8 && b&16 == 16}
		hk.rules = rules[next()%len(rules)]
		hk.selector = selectors[next()%len(selectors)]
		hk.conditions = conditions[next()%len(conditions)]
		if s.mutating {
			hk.patch = patches[next()%len(patches)]
		}
		s.hooks = append(s.hooks, hk)
	}
	s.name = fmt.Sprintf("%x", data)
	return s, true
}

// shHarness is what both sides share: the fake webhooks' server, the custom
// resource's converter, kube-apiserver's equivalent resources.
type shHarness struct {
	srv *admissionwebhooktest.Server
	// crSafe is apiextensions-apiserver's converter of widgets (strategy
	// None), as kube-apiserver's custom resource handler holds it.
	crSafe runtime.ObjectConvertor
	scheme *runtime.Scheme
	equiv  runtime.EquivalentResourceRegistry
	dir    string
	n      atomic.Int64
	// crd is the widgets' CRD, for gatehouse's NoneConverter.
	crd []byte
}

func newShHarness(t testing.TB) *shHarness {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	h := &shHarness{srv: srv, scheme: runtime.NewScheme(), equiv: runtime.NewEquivalentResourceRegistry(), dir: t.TempDir()}
	require.NoError(t, corev1.AddToScheme(h.scheme))
	require.NoError(t, admissionregistrationv1.AddToScheme(h.scheme))
	factory, err := crconversion.NewCRConverterFactory(nil, nil)
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names:      apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions:   []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}, {Name: "v2", Served: true}},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}}}
	h.crSafe, _, err = factory.NewConverter(crd)
	require.NoError(t, err)
	crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	h.crd, err = json.Marshal(crd)
	require.NoError(t, err)
	h.equiv.RegisterKindFor(shWidgetsV1, "", shWidgetV1)
	h.equiv.RegisterKindFor(shWidgetsV2, "", shWidgetV2)
	h.equiv.RegisterKindFor(shPods, "", corev1.SchemeGroupVersion.WithKind("Pod"))
	h.equiv.RegisterKindFor(shPods, "exec", corev1.SchemeGroupVersion.WithKind("PodExecOptions"))
	return h
}

// shCRInterfaces are the admission ObjectInterfaces of kube-apiserver's
// custom resource handler: objects are unstructured, converted by the
// CRD's converter.
type shCRInterfaces struct{ h *shHarness }

func (o shCRInterfaces) GetObjectCreater() runtime.ObjectCreater { return o }
func (o shCRInterfaces) GetObjectTyper() runtime.ObjectTyper     { return o.h.scheme }
func (o shCRInterfaces) GetObjectDefaulter() runtime.ObjectDefaulter {
	return o.h.scheme
}
func (o shCRInterfaces) GetObjectConvertor() runtime.ObjectConvertor { return o.h.crSafe }
func (o shCRInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.h.equiv
}
func (o shCRInterfaces) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// shBuiltinInterfaces are those of a built-in resource's handler: the
// scheme's, with the equivalent resources.
type shBuiltinInterfaces struct {
	admission.ObjectInterfaces
	h *shHarness
}

func (o shBuiltinInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.h.equiv
}

// converter is gatehouse's Converter: its NoneConverter for widgets (the
// same conversions as apiextensions' on kube-apiserver's side), the
// scheme's conversions for built-in kinds.
func (h *shHarness) converter(t testing.TB) admissionwebhook.Converter {
	none, err := resources.NewNoneConverter(h.crd)
	require.NoError(t, err)
	return none.Or(admissionwebhook.ConverterFunc(func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
		out, err := h.scheme.New(to)
		if err != nil {
			return nil, err
		}
		if err := h.scheme.Convert(obj.DeepCopy(), out, nil); err != nil {
			return nil, err
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetGroupVersionKind(to)
		return u, nil
	}))
}

// webhooks are the shape's webhooks as configurations: the static ones
// and the API ones, each webhook its own configuration named after its
// index, as both sides order configurations by name.
func (h *shHarness) webhooks(s shShape, run int64) (static, api []runtime.Object) {
	for i, hk := range s.hooks {
		path := fmt.Sprintf("/shapes/%d/%d", run, i)
		answer := admissionwebhooktest.Allow()
		switch {
		case hk.deny:
			answer = admissionwebhooktest.Deny(403, fmt.Sprintf("webhook %d says no", i))
		case hk.patch != "":
			answer = admissionwebhooktest.Patch(hk.patch)
		}
		h.srv.Handle(path, answer)
		var rules []admissionregistrationv1.RuleWithOperations
		for _, r := range hk.rules {
			gvr := strings.SplitN(r, "/", 3)
			rules = append(rules, admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{gvr[0]}, APIVersions: []string{gvr[1]}, Resources: []string{gvr[2]}},
			})
		}
		var conditions []admissionregistrationv1.MatchCondition
		for j, c := range hk.conditions {
			conditions = append(conditions, admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", j), Expression: c})
		}
		name := fmt.Sprintf("hook-%d.example.com", i)
		config := fmt.Sprintf("config-%d", i)
		if hk.static {
			name = fmt.Sprintf("hook-%d.static.k8s.io", i)
			config += ".static.k8s.io"
		}
		policy := admissionregistrationv1.Exact
		if hk.equivalent {
			policy = admissionregistrationv1.Equivalent
		}
		failure := admissionregistrationv1.Fail
		if hk.ignore {
			failure = admissionregistrationv1.Ignore
		}
		none := admissionregistrationv1.SideEffectClassNone
		var obj runtime.Object
		if s.mutating {
			c := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: config}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: name, ClientConfig: h.srv.ClientConfig(path), Rules: rules, MatchPolicy: &policy, FailurePolicy: &failure,
				ObjectSelector: hk.selector, MatchConditions: conditions, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
				ReinvocationPolicy: ptrTo(admissionregistrationv1.IfNeededReinvocationPolicy)}}}
			admissionmanifest.SetDefaultsMutatingWebhookConfiguration(c)
			obj = c
		} else {
			c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: config}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: name, ClientConfig: h.srv.ClientConfig(path), Rules: rules, MatchPolicy: &policy, FailurePolicy: &failure,
				ObjectSelector: hk.selector, MatchConditions: conditions, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}
			admissionmanifest.SetDefaultsValidatingWebhookConfiguration(c)
			obj = c
		}
		if hk.static {
			static = append(static, obj)
		} else {
			api = append(api, obj)
		}
	}
	return static, api
}

// shStatic is kube-apiserver's static webhook source, already loaded.
type shStatic struct{ hooks []webhook.WebhookAccessor }

func (s shStatic) Webhooks() []webhook.WebhookAccessor { return s.hooks }
func (s shStatic) HasSynced() bool                     { return true }
func (s shStatic) RunReloadLoop(ctx context.Context)   { <-ctx.Done() }

func (h *shHarness) run(t *testing.T, s shShape) (kube, ours awOutcome) {
	run := h.n.Add(1)
	static, api := h.webhooks(s, run)
	collect := func(call func() awOutcome) awOutcome {
		h.srv.ResetRequests()
		out := call()
		for _, r := range h.srv.Requests() {
			body := string(r.Body)
			if r.Request != nil {
				body = strings.ReplaceAll(body, string(r.Request.UID), "<uid>")
			}
			out.received = append(out.received, fmt.Sprintf("%s %s\n%s", r.Method, r.Path, body))
		}
		if !s.mutating {
			sort.Strings(out.received)
			sort.Strings(out.warnings)
		}
		return out
	}
	kube = collect(func() awOutcome { return h.kube(t, s, static, api) })
	ours = collect(func() awOutcome { return h.gatehouse(t, s, static, api) })
	return kube, ours
}

// shStatus is the status a client receives for err: a plain error is
// turned into a status by kube-apiserver's endpoints, the uids and scheme
// names (which name the program's source lines) replaced.
func shStatus(err error) string {
	if err == nil {
		return ""
	}
	status := responsewriters.ErrorToAPIStatus(err)
	if se, ok := err.(*apierrors.StatusError); ok {
		status = &se.ErrStatus
	}
	data, _ := json.Marshal(status)
	return shSchemeNames.ReplaceAllString(uuids.ReplaceAllString(string(data), "<uid>"), `in scheme <scheme>`)
}

var shSchemeNames = regexp.MustCompile(`in scheme \\"[^\\]*\\"`)

// shObject is an admitted object as the test compares it: typed objects
// without their apiVersion and kind (kube-apiserver's are internal types,
// which have none), custom resources whole.
func shObject(t testing.TB, obj runtime.Object) map[string]any {
	if obj == nil {
		return nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy().Object
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	return awObject(content)
}

func (h *shHarness) kube(t *testing.T, s shShape, static, api []runtime.Object) (out awOutcome) {
	objs := append([]runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}, api...)
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	stop := make(chan struct{})
	defer close(stop)
	var config *strings.Reader
	var source generic.ReloadableSource
	if len(static) > 0 {
		dir := filepath.Join(h.dir, "static")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		config = strings.NewReader("apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nstaticManifestsDir: " + dir + "\n")
		var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
		var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
		for _, o := range static {
			switch c := o.(type) {
			case *admissionregistrationv1.MutatingWebhookConfiguration:
				mutating = append(mutating, c)
			case *admissionregistrationv1.ValidatingWebhookConfiguration:
				validating = append(validating, c)
			}
		}
		if s.mutating {
			source = shStatic{loader.BuildMutatingAccessors(mutating)}
		} else {
			source = shStatic{loader.BuildValidatingAccessors(validating)}
		}
	}
	var kobj, kold runtime.Object
	if s.request.object != nil {
		kobj = s.request.object.DeepCopyObject()
	}
	if s.request.old != nil {
		kold = s.request.old.DeepCopyObject()
	}
	r := s.request
	attr := &awAttributes{Attributes: admission.NewAttributesRecord(kobj, kold, r.kind, r.namespace, "w", r.resource, r.subresource, r.op, nil, false, &awUser)}
	var o admission.ObjectInterfaces = shBuiltinInterfaces{admission.NewObjectInterfacesFromScheme(h.scheme), h}
	if r.kind.Group == "example.com" {
		o = shCRInterfaces{h}
	}
	warnings := &awWarnings{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	var err error
	setup := func(wh *generic.Webhook) {
		wh.SetExternalKubeClientSet(client)
		wh.SetExternalKubeInformerFactory(factory)
		wh.SetDrainedNotification(stop)
		if source != nil {
			wh.SetStaticSourceFactory(func(string) (generic.ReloadableSource, error) { return source, nil })
		}
		require.NoError(t, wh.ValidateInitialization())
		factory.Start(stop)
		factory.WaitForCacheSync(stop)
	}
	if s.mutating {
		var wh *webhookmutating.Plugin
		if config != nil {
			wh, err = webhookmutating.NewMutatingWebhook(config)
		} else {
			wh, err = webhookmutating.NewMutatingWebhook(nil)
		}
		require.NoError(t, err)
		setup(wh.Webhook)
		err = wh.Admit(ctx, attr, o)
		if rc := attr.GetReinvocationContext(); err == nil && s.reinvoke && rc.ShouldReinvoke() {
			rc.SetIsReinvoke()
			err = wh.Admit(ctx, attr, o)
		}
	} else {
		var wh *webhookvalidating.Plugin
		if config != nil {
			wh, err = webhookvalidating.NewValidatingAdmissionWebhook(config)
		} else {
			wh, err = webhookvalidating.NewValidatingAdmissionWebhook(nil)
		}
		require.NoError(t, err)
		setup(wh.Webhook)
		err = wh.Validate(ctx, attr, o)
	}
	out = awOutcome{err: shStatus(err), warnings: warnings.warnings, annotations: attr.annotations}
	if err == nil && s.mutating {
		out.object = shObject(t, attr.GetObject())
	}
	return out
}

func (h *shHarness) gatehouse(t *testing.T, s shShape, static, api []runtime.Object) awOutcome {
	var webhooks []admissionmanifest.Webhook
	for _, set := range []struct {
		objs   []runtime.Object
		static bool
	}{{static, true}, {api, false}} {
		var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
		var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
		for _, o := range set.objs {
			switch c := o.(type) {
			case *admissionregistrationv1.MutatingWebhookConfiguration:
				mutating = append(mutating, c)
			case *admissionregistrationv1.ValidatingWebhookConfiguration:
				validating = append(validating, c)
			}
		}
		hooks := admissionmanifest.WebhooksOf(validating, mutating)
		for i := range hooks {
			hooks[i].Static = set.static
		}
		webhooks = append(webhooks, hooks...)
	}
	d, err := admissionwebhook.NewDispatcher(webhooks, admissionwebhook.Options{
		Match:     admissionmanifest.MatchOptions{API: true, Equivalents: h.equiv},
		Converter: h.converter(t),
	})
	require.NoError(t, err)
	r := s.request
	req := &admissionwebhook.Request{
		Operation: admissionv1.Operation(r.op), Kind: r.kind, Resource: r.resource, SubResource: r.subresource,
		Name: "w", Namespace: r.namespace,
		UserInfo: authenticationv1.UserInfo{Username: awUser.Name, UID: awUser.UID, Groups: awUser.Groups, Extra: map[string]authenticationv1.ExtraValue{}},
	}
	for k, v := range awUser.Extra {
		req.UserInfo.Extra[k] = v
	}
	toU := func(o runtime.Object) *unstructured.Unstructured {
		if o == nil {
			return nil
		}
		if u, ok := o.(*unstructured.Unstructured); ok {
			return u.DeepCopy()
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		require.NoError(t, err)
		return &unstructured.Unstructured{Object: content}
	}
	req.Object, req.OldObject = toU(r.object), toU(r.old)
	var res admissionwebhook.Result
	if s.mutating {
		flags := &mutation.ReinvocationContext{}
		req.Reinvocation = &admissionwebhook.Reinvocation{Flags: flags}
		res, err = d.Admit(context.Background(), req)
		if err == nil && s.reinvoke && flags.ShouldReinvoke() {
			first := res
			req.Object = res.Object
			flags.SetIsReinvoke()
			res, err = d.Admit(context.Background(), req)
			res.Warnings = append(first.Warnings, res.Warnings...)
			for _, m := range []map[string]string{first.AuditAnnotations, first.PatchAnnotations} {
				for k, v := range m {
					if res.AuditAnnotations == nil {
						res.AuditAnnotations = map[string]string{}
					}
					res.AuditAnnotations[k] = v
				}
			}
		}
	} else {
		res, err = d.Validate(context.Background(), req)
	}
	out := awOutcome{err: shStatus(err), warnings: res.Warnings}
	for _, m := range []map[string]string{res.AuditAnnotations, res.PatchAnnotations} {
		for k, v := range m {
			if out.annotations == nil {
				out.annotations = map[string]string{}
			}
			out.annotations[k] = v
		}
	}
	if err == nil && res.Object != nil {
		if r.kind.Group == "example.com" {
			out.object = res.Object.DeepCopy().Object
		} else {
			out.object = awObject(res.Object.DeepCopy().Object)
		}
	}
	return out
}
