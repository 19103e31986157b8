// Command admissionwebhook runs admission webhooks offline: a fake webhook
// server for tests (admissionwebhook/admissionwebhooktest) answers as two
// webhooks — one that adds an owner annotation to Pods, one that refuses
// the image "latest" — and gatehouse's admission chain calls them, as
// kube-apiserver 1.37 would, after a ValidatingAdmissionPolicy. For each
// Pod it prints the verdict, the admitted object's annotations, the
// warnings, the audit annotations and the webhooks' trace.
//
//	go run ./examples/admissionwebhook
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// policy warns about Pods without a team label.
const policy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    messageExpression: "'pod ' + object.metadata.name + ' has no team label'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Warn]}
`

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		return err
	}
	defer srv.Close()
	srv.Handle("/owner", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		return admissionwebhooktest.Answer{Allowed: true,
			Patch:            []byte(`[{"op":"add","path":"/metadata/annotations","value":{"owner":"` + r.UserInfo.Username + `"}}]`),
			AuditAnnotations: map[string]string{"owner": r.UserInfo.Username}}
	})
	srv.Handle("/images", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		var pod corev1.Pod
		if err := yaml.Unmarshal(r.Object.Raw, &pod); err == nil {
			for _, c := range pod.Spec.Containers {
				if strings.HasSuffix(c.Image, ":latest") {
					return admissionwebhooktest.Answer{Status: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: "image " + c.Image + " is not pinned"}}
				}
			}
		}
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"images checked"}}
	})

	cfg, err := admission.Decode([]byte(policy))
	if err != nil {
		return err
	}
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}
	none := admissionregistrationv1.SideEffectClassNone
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "owner"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: "owner.example.com", ClientConfig: srv.ClientConfig("/owner"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "images"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "images.example.com", ClientConfig: srv.ClientConfig("/images"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(m)
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(v)
	cfg.MutatingWebhooks = []*admissionregistrationv1.MutatingWebhookConfiguration{m}
	cfg.ValidatingWebhooks = []*admissionregistrationv1.ValidatingWebhookConfiguration{v}
	chain, err := admission.New(*cfg, admission.Options{})
	if err != nil {
		return err
	}

	for _, p := range []struct {
		name, image string
		labels      map[string]string
	}{
		{"web", "nginx:1.27", map[string]string{"team": "shop"}},
		{"debug", "busybox:latest", nil},
		{"api", "registry.example/api:2.1", nil},
	} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": p.name, "namespace": "default"},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": p.name, "image": p.image}}}}}
		obj.SetLabels(p.labels)
		req := &admission.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: p.name, Namespace: "default", Object: obj}
		req.UserInfo.Username = "alice"
		res, trace, err := chain.Explain(context.Background(), req)
		fmt.Fprintf(out, "== Pod %s (%s)\n", p.name, p.image)
		if err != nil {
			fmt.Fprintf(out, "denied by %s: %v\n", trace.DeniedBy, err)
		} else {
			fmt.Fprintf(out, "admitted, annotations %v\n", res.Object.GetAnnotations())
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(out, "warning: %s\n", w)
		}
		for _, k := range slices.Sorted(maps.Keys(res.AuditAnnotations)) {
			fmt.Fprintf(out, "audit annotation %s: %s\n", k, res.AuditAnnotations[k])
		}
		for _, wt := range trace.MutatingWebhooks {
			fmt.Fprint(out, wt)
		}
		if trace.ValidatingWebhooks != nil {
			fmt.Fprint(out, trace.ValidatingWebhooks)
		}
	}
	fmt.Fprintf(out, "the webhook server received %d reviews\n", len(srv.Requests()))
	return nil
}
