package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/metrics"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The differential test of package admissionwebhook against k8s.io/apiserver
// v0.37.2's ValidatingAdmissionWebhook and MutatingAdmissionWebhook plugins:
// both call the same fake webhooks (admissionwebhooktest, over loopback
// TLS), scripted per scenario, for the same request; the test compares the
// decision (the whole status of an error), the final object, the warnings,
// the audit annotations and what each webhook received (the AdmissionReview
// bytes, uid aside, the path, query and headers).

// awHook is one webhook of a scenario: its script, its fault and its
// configuration.
type awHook struct {
	answer admissionwebhooktest.HandleFunc
	fault  *admissionwebhooktest.Fault
	// mod changes the webhook (after its API defaults).
	mod func(*admissionregistrationv1.ValidatingWebhook)
	// ifNeeded gives a mutating webhook reinvocationPolicy IfNeeded.
	ifNeeded bool
	// once injects the fault into the first call only.
	once bool
}

type awScenario struct {
	name     string
	mutating bool
	hooks    []awHook
	// request changes the request (a CREATE of a pod by default).
	dryRun bool
	delete bool
	// reinvoke runs the mutating webhooks a second time if they asked for
	// it, or if between is set: another plugin then set the label
	// "between" to its value and asked for it.
	reinvoke bool
	between  string
	// custom sends a custom resource (example.com/v1 widgets) instead of a
	// pod.
	custom bool
}

// awService makes a webhook call a service, which the scenario's resolver
// sends to the fake server: its certificate is not for the service's name.
func awService(w *admissionregistrationv1.ValidatingWebhook) {
	w.ClientConfig.URL = nil
	w.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "hooks", Name: "checker", Port: ptrTo(int32(8443)), Path: ptrTo("/svc/")}
}

func answer(a admissionwebhooktest.Answer) admissionwebhooktest.HandleFunc {
	return func(*admissionv1.AdmissionRequest) admissionwebhooktest.Answer { return a }
}

func awPatch(p string) admissionwebhooktest.HandleFunc { return admissionwebhooktest.Patch(p) }

func awScenarios() []awScenario {
	allow := admissionwebhooktest.Allow()
	ignore := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.FailurePolicy = ptrTo(admissionregistrationv1.Ignore)
	}
	v1beta1 := func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v1beta1"} }
	reviewWithPatch := func(version, patch string, patchType bool) []byte {
		pt := ""
		if patchType {
			pt = `"patchType":"JSONPatch",`
		}
		return fmt.Appendf(nil, `{"apiVersion":"admission.k8s.io/%s","kind":"AdmissionReview","response":{"uid":"any","allowed":true,%s"patch":%q}}`, version, pt, patch)
	}
	var scenarios []awScenario
	for _, mutating := range []bool{false, true} {
		common := []awScenario{
			{name: "allow", hooks: []awHook{{answer: allow}}},
			{name: "allow in v1beta1", hooks: []awHook{{answer: allow, mod: v1beta1}}},
			{name: "v1beta1 answers are not checked for uid", hooks: []awHook{{answer: allow, mod: v1beta1, fault: &admissionwebhooktest.Fault{UID: "other"}}}},
			{name: "deny with status, warnings, annotations", hooks: []awHook{{answer: answer(admissionwebhooktest.Answer{
				Status:           &metav1.Status{Code: 403, Message: "no pods", Reason: metav1.StatusReasonForbidden, Details: &metav1.StatusDetails{Name: "p"}},
				Warnings:         []string{"first", "second"},
				AuditAnnotations: map[string]string{"key": "v", "bad key": "dropped", "a/b": "dropped too"}})}}},
			{name: "deny with a low code and a reason", hooks: []awHook{{answer: answer(admissionwebhooktest.Answer{
				Status: &metav1.Status{Code: 201, Status: metav1.StatusSuccess, Reason: "NotGood"}})}}},
			{name: "deny without explanation", hooks: []awHook{{answer: answer(admissionwebhooktest.Answer{})}}},
			{name: "a server error fails closed", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Status: 500, Body: []byte("boom\n"), ContentType: "text/plain"}}}},
			{name: "a server error fails open", hooks: []awHook{{answer: allow, mod: ignore, fault: &admissionwebhooktest.Fault{Status: 503}}}},
			{name: "a status body", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Status: 429,
				Body: []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":"TooManyRequests","code":429}`)}}}},
			{name: "retried 10 times after Retry-After", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Status: 429, RetryAfter: "0"}}}},
			{name: "retried once after Retry-After", hooks: []awHook{{answer: allow, once: true, fault: &admissionwebhooktest.Fault{Status: 503, RetryAfter: "1"}}}},
			{name: "a 5xx with a bad Retry-After", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Status: 503, RetryAfter: "soon"}}}},
			{name: "a 4xx with Retry-After", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Status: 409, RetryAfter: "0"}}}},
			{name: "a malformed answer", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: []byte(`{"apiVersion":`)}}}},
			{name: "an empty answer", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: []byte{}}}}},
			{name: "an answer of another kind", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: []byte(`{"apiVersion":"v1","kind":"Status","status":"Success"}`)}}}},
			{name: "an answer without response", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`)}}}},
			{name: "an answer without kind", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: []byte(`{"response":{"allowed":true}}`)}}}},
			{name: "a wrong uid", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{UID: "other"}}}},
			{name: "a v1beta1 answer to a v1 review", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{APIVersion: "admission.k8s.io/v1beta1"}}}},
			{name: "a wrong uid fails open", hooks: []awHook{{answer: allow, mod: ignore, fault: &admissionwebhooktest.Fault{UID: "other"}}}},
			{name: "no known review version", hooks: []awHook{{answer: allow, mod: func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v2"} }}}},
			{name: "dry run with side effects", dryRun: true, hooks: []awHook{{answer: allow, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
				w.SideEffects = ptrTo(admissionregistrationv1.SideEffectClassSome)
				w.FailurePolicy = ptrTo(admissionregistrationv1.Ignore)
			}}}},
			{name: "dry run without side effects", dryRun: true, hooks: []awHook{{answer: allow, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
				w.SideEffects = ptrTo(admissionregistrationv1.SideEffectClassNoneOnDryRun)
			}}}},
			{name: "a hang past timeoutSeconds", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Hang: true}, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
				w.TimeoutSeconds = ptrTo(int32(1))
			}}}},
			{name: "a connection reset fails open", hooks: []awHook{{answer: allow, mod: ignore, fault: &admissionwebhooktest.Fault{Reset: true}}}},
			{name: "an unknown CA", hooks: []awHook{{answer: allow, mod: func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.CABundle = nil }}}},
			{name: "a delete", delete: true, hooks: []awHook{{answer: allow}}},
			{name: "a service", hooks: []awHook{{answer: allow, mod: awService}}},
			{name: "a service fails open", hooks: []awHook{{answer: allow, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
				awService(w)
				ignore(w)
			}}}},
			{name: "three webhooks", hooks: []awHook{
				{answer: answer(admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"one"}, AuditAnnotations: map[string]string{"k": "1"}})},
				{answer: allow, mod: ignore, fault: &admissionwebhooktest.Fault{Status: 502}},
				{answer: answer(admissionwebhooktest.Answer{Allowed: true, AuditAnnotations: map[string]string{"k": "3"}})},
			}},
		}
		if !mutating {
			common = append(common,
				awScenario{name: "a validating webhook may not patch", hooks: []awHook{{answer: awPatch(`[]`)}}},
				awScenario{name: "two refusals", hooks: []awHook{
					{answer: allow},
					{answer: admissionwebhooktest.Deny(422, "invalid"), fault: &admissionwebhooktest.Fault{Latency: 10 * time.Millisecond}},
				}},
			)
		} else {
			common = append(common,
				awScenario{name: "a label added", hooks: []awHook{{answer: awPatch(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`)}}},
				awScenario{name: "a chain", hooks: []awHook{
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/stage","value":"one"}]`)},
					{answer: awPatch(`[{"op":"replace","path":"/metadata/labels/stage","value":"two"},{"op":"add","path":"/spec/containers/0/args","value":["-v"]}]`)},
					{answer: allow, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
						w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"stage": "one"}}
					}},
					{answer: awPatch(`[{"op":"add","path":"/metadata/annotations","value":{"seen":"yes"}}]`), mod: func(w *admissionregistrationv1.ValidatingWebhook) {
						w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"stage": "two"}}
					}},
				}},
				awScenario{name: "an empty patch", hooks: []awHook{{answer: awPatch(`[]`)}}},
				awScenario{name: "a patch that changes nothing", hooks: []awHook{{answer: awPatch(`[{"op":"replace","path":"/metadata/name","value":"p"}]`)}}},
				awScenario{name: "an unknown field", hooks: []awHook{{answer: awPatch(`[{"op":"add","path":"/spec/unknown","value":{"a":1}}]`)}}},
				awScenario{name: "a failed test", hooks: []awHook{{answer: awPatch(`[{"op":"test","path":"/metadata/name","value":"q"}]`)}}},
				awScenario{name: "a patch that does not apply", hooks: []awHook{{answer: awPatch(`[{"op":"remove","path":"/spec/nothing"}]`)}}},
				awScenario{name: "a patch that does not apply fails under Ignore", hooks: []awHook{{answer: awPatch(`[{"op":"move","from":"/x","path":"/y"}]`), mod: ignore}}},
				awScenario{name: "a result of the wrong type", hooks: []awHook{{answer: awPatch(`[{"op":"replace","path":"/spec/containers","value":"x"}]`)}}},
				awScenario{name: "an undecodable patch", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: reviewWithPatch("v1", "eyJ9", true)}}}},
				awScenario{name: "an undecodable patch fails open", hooks: []awHook{{answer: allow, mod: ignore, fault: &admissionwebhooktest.Fault{Body: reviewWithPatch("v1", "eyJ9", true)}}}},
				awScenario{name: "a patch without patchType", hooks: []awHook{{answer: allow, fault: &admissionwebhooktest.Fault{Body: reviewWithPatch("v1", "W10=", false)}}}},
				awScenario{name: "a v1beta1 patch without patchType", hooks: []awHook{{answer: allow, mod: v1beta1,
					fault: &admissionwebhooktest.Fault{Body: reviewWithPatch("v1beta1", "W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy94IiwidmFsdWUiOiJ5In1d", false)}}}},
				awScenario{name: "a patch of a delete", delete: true, hooks: []awHook{{answer: awPatch(`[{"op":"add","path":"/x","value":1}]`)}}},
				awScenario{name: "reinvoked after a later change", reinvoke: true, hooks: []awHook{
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/a","value":"1"}]`), ifNeeded: true},
					{answer: allow, ifNeeded: true},
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/b","value":"1"}]`)},
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/c","value":"1"}]`), ifNeeded: true},
				}},
				awScenario{name: "reinvoked after another plugin's change", reinvoke: true, between: "yes", hooks: []awHook{
					{answer: allow, ifNeeded: true},
					{answer: allow},
				}},
				awScenario{name: "not reinvoked for its own change", reinvoke: true, hooks: []awHook{
					{answer: allow, ifNeeded: true},
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/a","value":"1"}]`), ifNeeded: true},
				}},
				awScenario{name: "a change in the reinvocation", reinvoke: true, hooks: []awHook{
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/a","value":"1"}]`), ifNeeded: true},
					{answer: func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
						if strings.Contains(string(r.Object.Raw), `"a":"1"`) {
							return admissionwebhooktest.Answer{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/b","value":"2"}]`)}
						}
						return admissionwebhooktest.Answer{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/b","value":"1"}]`)}
					}, ifNeeded: true},
				}},
				awScenario{name: "a refusal after a patch", hooks: []awHook{
					{answer: awPatch(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`)},
					{answer: admissionwebhooktest.Deny(409, "conflict")},
				}},
			)
		}
		custom := []awScenario{
			{name: "a custom resource", custom: true, hooks: []awHook{{answer: allow}}},
			{name: "a custom resource refused", custom: true, hooks: []awHook{{answer: admissionwebhooktest.Deny(403, "no widgets")}}},
			{name: "a custom resource deleted", custom: true, delete: true, hooks: []awHook{{answer: allow}}},
		}
		if mutating {
			custom = append(custom,
				awScenario{name: "a custom resource patched", custom: true, hooks: []awHook{
					{answer: awPatch(`[{"op":"add","path":"/spec/color","value":"red"},{"op":"replace","path":"/spec/size","value":3.5}]`)},
					{answer: awPatch(`[{"op":"add","path":"/spec/tags/-","value":{"nested":[1,2.5,null,true]}}]`)},
				}},
				awScenario{name: "a custom resource without kind", custom: true, hooks: []awHook{{answer: awPatch(`[{"op":"remove","path":"/kind"}]`)}}},
				awScenario{name: "a custom resource reinvoked", custom: true, reinvoke: true, between: "yes", hooks: []awHook{
					{answer: awPatch(`[{"op":"add","path":"/spec/size","value":2}]`), ifNeeded: true},
				}},
			)
		}
		common = append(common, custom...)
		for _, s := range common {
			s.mutating = mutating
			scenarios = append(scenarios, s)
		}
	}
	return scenarios
}

// awAttributes records the annotations kube-apiserver's plugins add.
type awAttributes struct {
	admission.Attributes
	mu          sync.Mutex
	annotations map[string]string
}

func (a *awAttributes) AddAnnotation(k, v string) error {
	return a.AddAnnotationWithLevel(k, v, auditinternal.LevelMetadata)
}

func (a *awAttributes) AddAnnotationWithLevel(k, v string, level auditinternal.Level) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.Attributes.AddAnnotationWithLevel(k, v, level); err != nil {
		return err
	}
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[k] = v
	return nil
}

type awWarnings struct {
	mu       sync.Mutex
	warnings []string
}

func (w *awWarnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

// awOutcome is what one side did.
type awOutcome struct {
	err         string
	object      map[string]any
	warnings    []string
	annotations map[string]string
	received    []string
	// metrics are the webhook metrics recorded: counter values and
	// histogram sample counts by series.
	metrics map[string]float64
}

// awUser is the requesting user, with every field.
var awUser = user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"},
	Extra: map[string][]string{"scopes": {"a", "b"}, "empty": {}}}

// awRequest is the scenario's request: its object (a pod or a widget), kind,
// resource, operation and options.
func awRequest(s awScenario) (obj runtime.Object, kind schema.GroupVersionKind, resource schema.GroupVersionResource, op admission.Operation, options runtime.Object) {
	obj, kind, resource = awPod(), corev1.SchemeGroupVersion.WithKind("Pod"), corev1.SchemeGroupVersion.WithResource("pods")
	if s.custom {
		obj = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "p", "namespace": "default", "labels": map[string]any{"app": "web"}},
			"spec":     map[string]any{"size": int64(2), "ratio": 0.5, "tags": []any{"x"}}}}
		kind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
		resource = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	}
	op, options = admission.Create, &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"}, FieldManager: "kubectl"}
	if s.delete {
		op, options = admission.Delete, &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}}
	}
	return obj, kind, resource, op, options
}

func awPod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

func TestAdmissionWebhookMatchesKubeAPIServer(t *testing.T) {
	srv, o := awSetup(t)
	for si, s := range awScenarios() {
		kind := "validating"
		if s.mutating {
			kind = "mutating"
		}
		t.Run(kind+"/"+s.name, func(t *testing.T) {
			kube, ours := awRun(t, srv, o, si, s)
			t.Logf("kube-apiserver: %s %v %v", kube.err, kube.annotations, kube.metrics)
			awCompare(t, kube, ours)
		})
	}
}

// FuzzAdmissionWebhookResponseMatchesKubeAPIServer sends any answer body,
// in any content type, to a validating or mutating webhook's call (its
// review in v1beta1, whose answers are not checked for their uid, or in
// v1), through both.
func FuzzAdmissionWebhookResponseMatchesKubeAPIServer(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true,"warnings":["w"],"auditAnnotations":{"k":"v","x y":"z"}}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true,"patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy9hIiwidmFsdWUiOiIxIn1d"}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true,"patch":"W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjIiwidmFsdWUiOjF9XQ==","patchType":"Other"}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":false,"status":{"code":422,"reason":"Invalid","details":{"causes":[{"field":"spec"}]}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true}}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","code":500}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}`,
		`{"response":{"allowed":true}}`,
		`{`,
		`null`,
	} {
		f.Add([]byte(seed), "application/json", 200, true, false)
	}
	f.Add([]byte(`plain text`), "text/plain", 500, false, true)
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true}}`), "application/json;;", 200, true, true)
	srv, o := awSetup(f)
	f.Fuzz(func(t *testing.T, body []byte, contentType string, status int, mutating, v1 bool) {
		if status < 200 || status > 599 || status == http.StatusSwitchingProtocols || strings.ContainsAny(contentType, "\r\n\x00") {
			return
		}
		hook := awHook{answer: admissionwebhooktest.Allow(), fault: &admissionwebhooktest.Fault{Body: body, Status: status, ContentType: contentType}}
		if !v1 {
			hook.mod = func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v1beta1"} }
		}
		kube, ours := awRun(t, srv, o, 100000, awScenario{name: "fuzz", mutating: mutating, hooks: []awHook{hook}})
		awCompare(t, kube, ours)
	})
}

// awSetup starts the fake server both sides call.
func awSetup(t testing.TB) (*admissionwebhooktest.Server, admission.ObjectInterfaces) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	scheme := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(scheme))
	return srv, admission.NewObjectInterfacesFromScheme(scheme)
}

// awRun runs scenario s, number si, through kube-apiserver's plugin and
// through gatehouse.
func awRun(t *testing.T, srv *admissionwebhooktest.Server, o admission.ObjectInterfaces, si int, s awScenario) (kube, ours awOutcome) {
	var validating []admissionregistrationv1.ValidatingWebhook
	for i, h := range s.hooks {
		path := fmt.Sprintf("/%d/%d", si, i)
		srv.Handle(path, h.answer)
		w := admissionregistrationv1.ValidatingWebhook{
			Name: fmt.Sprintf("hook-%d.example.com", i), ClientConfig: srv.ClientConfig(path),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"", "example.com"}, APIVersions: []string{"v1"}, Resources: []string{"pods", "widgets"}},
			}},
			SideEffects: ptrTo(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		}
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{w}}
		admissionmanifest.SetDefaultsValidatingWebhookConfiguration(cfg)
		w = cfg.Webhooks[0]
		if h.mod != nil {
			h.mod(&w)
		}
		validating = append(validating, w)
	}
	run := func(call func() awOutcome) awOutcome {
		srv.ClearFaults()
		srv.ResetRequests()
		for i, h := range s.hooks {
			if h.fault != nil {
				f := *h.fault
				f.Path = fmt.Sprintf("/%d/%d", si, i)
				if h.once {
					srv.Inject(f)
				} else {
					srv.InjectAlways(f)
				}
			}
		}
		out := call()
		for _, r := range srv.Requests() {
			body := string(r.Body)
			if r.Request != nil {
				body = strings.ReplaceAll(body, string(r.Request.UID), "<uid>")
			}
			out.received = append(out.received, fmt.Sprintf("%s %s %s?%s %s|%s|%s|%s\n%s", r.Method, r.Host, r.Path, r.RawQuery, r.Proto,
				r.Header.Get("User-Agent"), r.Header.Get("Accept"), r.Header.Get("Content-Type"), body))
		}
		sort.Strings(out.received)
		if !s.mutating {
			sort.Strings(out.warnings)
		}
		return out
	}
	resolver := admissionwebhook.ServiceResolverFunc(func(namespace, name string, port int32) (*url.URL, error) {
		return &url.URL{Scheme: "https", Host: srv.Address()}, nil
	})
	kube = run(func() awOutcome { return kubeAdmissionWebhooks(t, s, validating, o, resolver) })
	ours = run(func() awOutcome { return gatehouseAdmissionWebhooks(t, s, validating, resolver) })
	return kube, ours
}

func awCompare(t *testing.T, kube, ours awOutcome) {
	t.Helper()
	assert.Equal(t, kube.err, ours.err, "error")
	assert.Equal(t, kube.object, ours.object, "object")
	assert.Equal(t, kube.warnings, ours.warnings, "warnings")
	assert.Equal(t, kube.annotations, ours.annotations, "annotations")
	assert.Equal(t, kube.received, ours.received, "requests received")
	assert.Equal(t, kube.metrics, ours.metrics, "metrics")
}

func toMutating(s awScenario, hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.MutatingWebhook {
	var out []admissionregistrationv1.MutatingWebhook
	for i, w := range hooks {
		policy := admissionregistrationv1.NeverReinvocationPolicy
		if s.hooks[i].ifNeeded {
			policy = admissionregistrationv1.IfNeededReinvocationPolicy
		}
		out = append(out, admissionregistrationv1.MutatingWebhook{
			Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
			NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects,
			TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
			ReinvocationPolicy: ptrTo(policy),
		})
	}
	return out
}

// uuids are the random uids of reviews, which error messages quote.
var uuids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// awStatus is the status of an error, its uids replaced.
func awStatus(err error) string {
	if err == nil {
		return ""
	}
	s, ok := err.(*apierrors.StatusError)
	if !ok {
		return "not a status error: " + err.Error()
	}
	data, _ := json.Marshal(s.ErrStatus)
	return uuids.ReplaceAllString(string(data), "<uid>")
}

// awObject is the final object without its apiVersion and kind:
// kube-apiserver's plugins convert the result into the request's internal
// object, which has none.
func awObject(o map[string]any) map[string]any {
	delete(o, "apiVersion")
	delete(o, "kind")
	return o
}

func kubeAdmissionWebhooks(t *testing.T, s awScenario, hooks []admissionregistrationv1.ValidatingWebhook, o admission.ObjectInterfaces, resolver admissionwebhook.ServiceResolver) (out awOutcome) {
	objs := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
	if s.mutating {
		objs = append(objs, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Webhooks: toMutating(s, hooks)})
	} else {
		objs = append(objs, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Webhooks: hooks})
	}
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	stop := make(chan struct{})
	defer close(stop)
	obj, kind, resource, op, options := awRequest(s)
	var old runtime.Object
	if s.delete {
		obj, old = nil, obj
	}
	attr := &awAttributes{Attributes: admission.NewAttributesRecord(obj, old, kind, "default", "p",
		resource, "", op, options, s.dryRun, &awUser)}
	warnings := &awWarnings{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	before := kubeWebhookMetrics(t)
	defer func() {
		after := kubeWebhookMetrics(t)
		for k, v := range after {
			if d := v - before[k]; d != 0 {
				if out.metrics == nil {
					out.metrics = map[string]float64{}
				}
				out.metrics[k] = d
			}
		}
	}()
	var err error
	if s.mutating {
		wh, perr := webhookmutating.NewMutatingWebhook(nil)
		require.NoError(t, perr)
		wh.SetServiceResolver(resolver)
		wh.SetExternalKubeClientSet(client)
		wh.SetExternalKubeInformerFactory(factory)
		require.NoError(t, wh.ValidateInitialization())
		factory.Start(stop)
		factory.WaitForCacheSync(stop)
		err = wh.Admit(ctx, attr, o)
		if rc := attr.GetReinvocationContext(); err == nil && s.reinvoke {
			if s.between != "" {
				switch o := attr.GetObject().(type) {
				case *corev1.Pod:
					o.Labels["between"] = s.between
				case *unstructured.Unstructured:
					labels := o.GetLabels()
					labels["between"] = s.between
					o.SetLabels(labels)
				}
				rc.SetShouldReinvoke()
			}
			if rc.ShouldReinvoke() {
				rc.SetIsReinvoke()
				err = wh.Admit(ctx, attr, o)
			}
		}
	} else {
		wh, perr := webhookvalidating.NewValidatingAdmissionWebhook(nil)
		require.NoError(t, perr)
		wh.SetServiceResolver(resolver)
		wh.SetExternalKubeClientSet(client)
		wh.SetExternalKubeInformerFactory(factory)
		require.NoError(t, wh.ValidateInitialization())
		factory.Start(stop)
		factory.WaitForCacheSync(stop)
		err = wh.Validate(ctx, attr, o)
	}
	out = awOutcome{err: awStatus(err), warnings: warnings.warnings, annotations: attr.annotations}
	if err == nil && s.mutating && attr.GetObject() != nil {
		u, cerr := runtime.DefaultUnstructuredConverter.ToUnstructured(attr.GetObject())
		require.NoError(t, cerr)
		out.object = awObject(u)
	}
	return out
}

func gatehouseAdmissionWebhooks(t *testing.T, s awScenario, hooks []admissionregistrationv1.ValidatingWebhook, resolver admissionwebhook.ServiceResolver) awOutcome {
	var webhooks []admissionmanifest.Webhook
	if s.mutating {
		for _, w := range toMutating(s, hooks) {
			webhooks = append(webhooks, admissionmanifest.Webhook{ConfigurationName: "config", Mutating: &w})
		}
	} else {
		for _, w := range hooks {
			webhooks = append(webhooks, admissionmanifest.Webhook{ConfigurationName: "config", Validating: &w})
		}
	}
	sink := metrics.NewMemory()
	d, err := admissionwebhook.NewDispatcher(webhooks, admissionwebhook.Options{
		Match: admissionmanifest.MatchOptions{API: true}, ServiceResolver: resolver, Metrics: sink,
	})
	require.NoError(t, err)
	obj, kind, resource, op, options := awRequest(s)
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	extra := map[string]authenticationv1.ExtraValue{}
	for k, v := range awUser.Extra {
		extra[k] = v
	}
	req := &admissionwebhook.Request{
		Operation: admissionv1.Operation(op),
		Kind:      kind,
		Resource:  resource,
		Name:      "p", Namespace: "default",
		UserInfo: authenticationv1.UserInfo{Username: awUser.Name, UID: awUser.UID, Groups: awUser.Groups, Extra: extra},
		DryRun:   s.dryRun,
		Options:  options,
		Object:   &unstructured.Unstructured{Object: content},
	}
	if s.delete {
		req.Object, req.OldObject = nil, req.Object
	}
	var res admissionwebhook.Result
	if s.mutating {
		flags := &mutation.ReinvocationContext{}
		req.Reinvocation = &admissionwebhook.Reinvocation{Flags: flags}
		res, err = d.Admit(context.Background(), req)
		if err == nil && s.reinvoke {
			first := res
			req.Object = res.Object
			if s.between != "" {
				req.Object = req.Object.DeepCopy()
				labels := req.Object.GetLabels()
				labels["between"] = s.between
				req.Object.SetLabels(labels)
				flags.SetShouldReinvoke()
			}
			if flags.ShouldReinvoke() {
				flags.SetIsReinvoke()
				res, err = d.Admit(context.Background(), req)
				res.Warnings = append(first.Warnings, res.Warnings...)
				for k, v := range first.AuditAnnotations {
					if res.AuditAnnotations == nil {
						res.AuditAnnotations = map[string]string{}
					}
					res.AuditAnnotations[k] = v
				}
				for k, v := range first.PatchAnnotations {
					if res.PatchAnnotations == nil {
						res.PatchAnnotations = map[string]string{}
					}
					res.PatchAnnotations[k] = v
				}
			}
		}
	} else {
		res, err = d.Validate(context.Background(), req)
	}
	out := awOutcome{err: awStatus(err), warnings: res.Warnings}
	for k, v := range res.AuditAnnotations {
		if out.annotations == nil {
			out.annotations = map[string]string{}
		}
		out.annotations[k] = v
	}
	for k, v := range res.PatchAnnotations {
		if out.annotations == nil {
			out.annotations = map[string]string{}
		}
		out.annotations[k] = v
	}
	if err == nil && res.Object != nil {
		out.object = awObject(res.Object.Object)
	}
	for _, desc := range []*metrics.Desc{metrics.AdmissionWebhookRequests, metrics.AdmissionWebhookRejections,
		metrics.AdmissionWebhookFailOpen, metrics.AdmissionWebhookDuration} {
		names := desc.Labels()
		for _, values := range sink.Series(desc) {
			labels := map[string]string{}
			for i, n := range names {
				labels[n] = values[i]
			}
			v := sink.Value(desc, values...)
			if desc.Kind() == metrics.Histogram {
				v = float64(sink.HistogramOf(desc, values...).Count)
			}
			if out.metrics == nil {
				out.metrics = map[string]float64{}
			}
			out.metrics[awSeries(desc.Name(), labels)] = v
		}
	}
	return out
}

// awSeries names a series: the metric and its labels, sorted.
func awSeries(name string, labels map[string]string) string {
	var pairs []string
	for k, v := range labels {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// kubeWebhookMetrics reads kube-apiserver's admission webhook metrics from
// its process-wide registry: counter values and histogram sample counts.
func kubeWebhookMetrics(t *testing.T) map[string]float64 {
	families, err := legacyregistry.DefaultGatherer.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "apiserver_admission_webhook_") {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			v := m.GetCounter().GetValue()
			if h := m.GetHistogram(); h != nil {
				v = float64(h.GetSampleCount())
			}
			out[awSeries(f.GetName(), labels)] = v
		}
	}
	return out
}
