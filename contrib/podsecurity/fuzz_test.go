package podsecurity

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// FuzzDecode: no configuration, however bad, panics the decoder, the
// validation or New.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"",
		"apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults: {enforce: baseline, warn-version: v1.2}\nexemptions: {usernames: [a, a]}",
		`{"apiVersion":"pod-security.admission.config.k8s.io/v1alpha1","kind":"PodSecurityConfiguration","exemptions":{"namespaces":["A"]}}`,
		"apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration: {apiVersion: pod-security.admission.config.k8s.io/v1, kind: PodSecurityConfiguration}",
		"[1, 2", "kind: 3",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := Decode(data); err == nil {
			_ = Validate(c)
			_, _ = New(c, Options{})
		}
		if c, err := FromAdmissionConfiguration(data, t.TempDir()); err == nil {
			_, _ = New(c, Options{})
		}
	})
}

// FuzzValidate: no pod, template or namespace, with any labels and any
// JSON, panics the plugin, and a denial is always a status.
func FuzzValidate(f *testing.F) {
	f.Add(`{"pod-security.kubernetes.io/enforce":"restricted"}`, `{"pod-security.kubernetes.io/warn":"x"}`,
		`{"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}`, "pods", "", uint8(0))
	f.Add(`{"pod-security.kubernetes.io/enforce-version":"v1.99"}`, `{}`, `{"hostPID":true,"volumes":[{"name":"v","hostPath":{"path":"/"}}]}`, "deployments", "", uint8(1))
	f.Add(`{"pod-security.kubernetes.io/audit":"baseline"}`, `{"pod-security.kubernetes.io/enforce":"bad"}`, `{"containers":"nope"}`, "namespaces", "", uint8(1))
	f.Add(`{}`, `{}`, `{"ephemeralContainers":[{"name":"e","image":"i"}]}`, "pods", "ephemeralcontainers", uint8(1))
	f.Fuzz(func(t *testing.T, nsLabels, objLabels, spec, resource, subresource string, op uint8) {
		var labels, olabels map[string]string
		_ = json.Unmarshal([]byte(nsLabels), &labels)
		_ = json.Unmarshal([]byte(objLabels), &olabels)
		var specValue any
		_ = json.Unmarshal([]byte(spec), &specValue)
		lookup := mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, nil
		})
		cfg := DefaultConfiguration()
		cfg.Exemptions.RuntimeClasses = []string{"kata"}
		p, err := New(cfg, Options{Namespaces: lookup, Pods: PodListerFunc(func(context.Context, string) ([]*corev1.Pod, error) {
			return []*corev1.Pod{{Spec: corev1.PodSpec{HostIPC: true}}}, nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		gvr := map[string]schema.GroupVersionResource{
			"pods": {Version: "v1", Resource: "pods"}, "namespaces": {Version: "v1", Resource: "namespaces"},
			"deployments": {Group: "apps", Version: "v1", Resource: "deployments"},
		}[resource]
		kind := map[string]string{"pods": "Pod", "namespaces": "Namespace", "deployments": "Deployment"}[resource]
		object := func(l map[string]string) *unstructured.Unstructured {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": "x"}}}
			if gvr.Group != "" {
				u.SetAPIVersion(gvr.Group + "/v1")
			}
			switch resource {
			case "deployments":
				u.Object["spec"] = map[string]any{"template": map[string]any{"spec": specValue}}
			default:
				u.Object["spec"] = specValue
			}
			if l != nil {
				u.Object["metadata"].(map[string]any)["labels"] = toAny(l)
			}
			return u
		}
		req := &admission.Request{Operation: []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete}[op%3],
			Kind: gvr.GroupVersion().WithKind(kind), Resource: gvr, SubResource: subresource, Name: "x", Namespace: "x",
			Object: object(olabels), OldObject: object(labels)}
		_, err = p.Validate(context.Background(), req)
		if err != nil {
			if _, ok := err.(interface{ Status() metav1.Status }); !ok {
				t.Fatalf("a denial that is not a status: %v", err)
			}
		}
	})
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
