package conformance

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	gadmission "github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// cwPolicies are the chain's policies: a mutating policy that gives pods a
// team (IfNeeded, so a webhook's change reinvokes it), and a validating
// policy that warns about what the webhooks wrote.
const cwPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  matchConditions:
  - {name: no-team, expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"}
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': has(object.metadata.annotations) && 'owner' in object.metadata.annotations ? object.metadata.annotations.owner : 'none'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team}
spec: {policyName: team}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: owners}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}
  validations:
  - expression: "object == null || !has(object.metadata.annotations) || !('owner' in object.metadata.annotations) || object.metadata.labels.team == object.metadata.annotations.owner"
    messageExpression: "'team ' + object.metadata.labels.team + ' is not the owner'"
  auditAnnotations:
  - {key: team, valueExpression: "object == null ? 'deleted' : string(object.metadata.labels.team)"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: owners}
spec: {policyName: owners, validationActions: [Warn, Audit]}
`

// cwWebhooks are the chain's webhooks on pods, answered by the fake
// server: a mutating one that sets an owner annotation from the "wants"
// label (IfNeeded), and a validating one that refuses team "blocked".
func cwWebhooks(srv *admissionwebhooktest.Server) ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration) {
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}
	none := admissionregistrationv1.SideEffectClassNone
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "owner"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: "owner.example.com", ClientConfig: srv.ClientConfig("/owner"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy: new(admissionregistrationv1.IfNeededReinvocationPolicy)}}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "teams"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "teams.example.com", ClientConfig: srv.ClientConfig("/teams"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1", "v1beta1"}}}}
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(m)
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(v)
	return []*admissionregistrationv1.MutatingWebhookConfiguration{m}, []*admissionregistrationv1.ValidatingWebhookConfiguration{v}
}

// cwServe scripts the webhooks.
func cwServe(srv *admissionwebhooktest.Server) {
	srv.Handle("/owner", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		var pod corev1.Pod
		if err := yaml.Unmarshal(r.Object.Raw, &pod); err != nil || pod.Labels["wants"] == "" || pod.Annotations["owner"] == pod.Labels["wants"] {
			return admissionwebhooktest.Answer{Allowed: true, AuditAnnotations: map[string]string{"seen": "yes"}}
		}
		op := "add"
		if pod.Annotations != nil {
			return admissionwebhooktest.Answer{Allowed: true, Patch: []byte(fmt.Sprintf(`[{"op":"add","path":"/metadata/annotations/owner","value":%q}]`, pod.Labels["wants"]))}
		}
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"owner set"},
			Patch: []byte(fmt.Sprintf(`[{"op":%q,"path":"/metadata/annotations","value":{"owner":%q}}]`, op, pod.Labels["wants"]))}
	})
	srv.Handle("/teams", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		raw := r.Object.Raw
		if len(raw) == 0 {
			raw = r.OldObject.Raw
		}
		if strings.Contains(string(raw), `"team":"blocked"`) {
			return admissionwebhooktest.Answer{Status: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: "team blocked"}}
		}
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"team checked"}}
	})
}

func cwPod(labels, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: labels, Annotations: annotations},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

// TestAdmissionChainWithWebhooksMatchesKubeAPIServer runs requests through
// kube-apiserver's chain of the four plugins — its MutatingAdmissionPolicy
// dispatcher and MutatingAdmissionWebhook plugin, reinvoked once when asked,
// then its ValidatingAdmissionPolicy dispatcher and
// ValidatingAdmissionWebhook plugin — and through admission.Chain, both
// calling the same loopback TLS webhooks: admitted object, status,
// warnings and audit annotations of both levels must be the same.
func TestAdmissionChainWithWebhooksMatchesKubeAPIServer(t *testing.T) {
	ours, kube := newFourPluginsWorld(t, admissionwebhooktest.Options{})

	// team is kube-apiserver's final team label ("" when denied or
	// deleted): the corpus is written to reach these paths.
	cases := []struct {
		name     string
		op       admission.Operation
		obj, old *corev1.Pod
		team     string
	}{
		{"no labels", admission.Create, cwPod(nil, nil), nil, "none"},
		{"the webhook sets an owner, the reinvoked policy then its team", admission.Create, cwPod(map[string]string{"wants": "web"}, nil), nil, "none"},
		{"an owner already", admission.Create, cwPod(map[string]string{"wants": "web"}, map[string]string{"owner": "web"}), nil, "web"},
		{"a team that is not the owner warns", admission.Create, cwPod(map[string]string{"team": "db", "wants": "web"}, nil), nil, "db"},
		{"a blocked team is refused by the webhook", admission.Create, cwPod(map[string]string{"team": "blocked"}, nil), nil, ""},
		{"the owner blocked becomes the team", admission.Create, cwPod(map[string]string{"wants": "blocked"}, map[string]string{"owner": "blocked"}), nil, ""},
		{"update", admission.Update, cwPod(map[string]string{"wants": "api"}, nil), cwPod(nil, nil), "none"},
		{"delete", admission.Delete, nil, cwPod(map[string]string{"team": "blocked"}, nil), ""},
		{"delete allowed", admission.Delete, nil, cwPod(map[string]string{"team": "a"}, nil), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gvk := corev1.SchemeGroupVersion.WithKind("Pod")
			gvr := corev1.SchemeGroupVersion.WithResource("pods")
			var kobj, kold runtime.Object
			if tc.obj != nil {
				kobj = tc.obj.DeepCopy()
			}
			if tc.old != nil {
				kold = tc.old.DeepCopy()
			}
			attr := &awAttributes{Attributes: admission.NewAttributesRecord(kobj, kold, gvk, "default", "p", gvr, "", tc.op, nil, false, &awUser)}
			warnings := &awWarnings{}
			ctx := warning.WithWarningRecorder(context.Background(), warnings)
			kerr := kube.admit(ctx, attr)

			req := &gadmission.Request{Operation: admissionv1.Operation(tc.op), Kind: gvk, Resource: gvr, Name: "p", Namespace: "default",
				UserInfo: authenticationv1.UserInfo{Username: awUser.Name, UID: awUser.UID, Groups: awUser.Groups}}
			req.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range awUser.Extra {
				req.UserInfo.Extra[k] = v
			}
			req.Object, req.OldObject = mdUnstructured(t, kobjOrNil(tc.obj)), mdUnstructured(t, kobjOrNil(tc.old))
			res, trace, gerr := ours.Explain(context.Background(), req)

			if got := teamOf(attr.GetObject(), kerr); got != tc.team {
				t.Errorf("the corpus no longer reaches its path: kube-apiserver's team %q, want %q (%T, %v)", got, tc.team, attr.GetObject(), kerr)
			}
			if (kerr == nil) != (gerr == nil) {
				t.Fatalf("error: gatehouse %v, kube-apiserver %v (denied by %s)", gerr, kerr, trace.DeniedBy)
			}
			if kerr != nil {
				ks, _ := kerr.(*apierrors.StatusError)
				gs, _ := gerr.(*apierrors.StatusError)
				if ks == nil || gs == nil || !reflect.DeepEqual(ks.ErrStatus, gs.ErrStatus) {
					t.Errorf("status:\ngatehouse:      %#v\nkube-apiserver: %#v", gerr, kerr)
				}
			} else if tc.obj != nil {
				want := mdNormalizeNil(t, gvk, attr.GetObject())
				got := mdNormalize(t, gvk, res.Object)
				if !reflect.DeepEqual(want, got) {
					wy, _ := yaml.Marshal(want)
					gy, _ := yaml.Marshal(got)
					t.Errorf("object:\ngatehouse:\n%s\nkube-apiserver:\n%s", gy, wy)
				}
			}
			if fmt.Sprint(res.Warnings) != fmt.Sprint(warnings.warnings) {
				t.Errorf("warnings:\ngatehouse:      %q\nkube-apiserver: %q", res.Warnings, warnings.warnings)
			}
			all := map[string]string{}
			for k, v := range res.AuditAnnotations {
				all[k] = v
			}
			for k, v := range res.RequestAuditAnnotations {
				all[k] = v
			}
			if len(all) > 0 || len(attr.annotations) > 0 {
				if !reflect.DeepEqual(all, attr.annotations) {
					t.Errorf("audit annotations:\ngatehouse:      %q\nkube-apiserver: %q", all, attr.annotations)
				}
			}
		})
	}
}

// teamOf is the admitted pod's team label, "" when denied or deleted.
func teamOf(obj runtime.Object, err error) string {
	if pod, ok := obj.(*corev1.Pod); ok && pod != nil && err == nil {
		return pod.Labels["team"]
	}
	return ""
}

func kobjOrNil(p *corev1.Pod) runtime.Object {
	if p == nil {
		return nil
	}
	return p
}

// kubeFourPlugins is kube-apiserver's chain of the four plugins: its
// MutatingAdmissionPolicy dispatcher and MutatingAdmissionWebhook plugin,
// reinvoked once when asked, then its ValidatingAdmissionPolicy dispatcher
// and ValidatingAdmissionWebhook plugin. The policy steps are functions, so
// that a test can dispatch to the hooks of its own sources.
type kubeFourPlugins struct {
	mutatePolicies, validatePolicies func(context.Context, admission.Attributes) error
	mwh                              *webhookmutating.Plugin
	vwh                              *webhookvalidating.Plugin
	o                                admission.ObjectInterfaces
}

// newFourPluginsWorld builds the chain of cwPolicies and cwWebhooks twice,
// on gatehouse and on kube-apiserver's plugins, against one webhook server
// (closed with the test) in namespace default.
func newFourPluginsWorld(t testing.TB, opts admissionwebhooktest.Options) (*gadmission.Chain, *kubeFourPlugins) {
	t.Helper()
	srv, err := admissionwebhooktest.NewServer(opts)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	cwServe(srv)
	mutatingHooks, validatingHooks := cwWebhooks(srv)
	cfg, err := gadmission.Decode([]byte(cwPolicies))
	require.NoError(t, err)
	cfg.MutatingWebhooks, cfg.ValidatingWebhooks = mutatingHooks, validatingHooks
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	ours, err := gadmission.New(*cfg, gadmission.Options{})
	require.NoError(t, err)
	return ours, newKubeFourPlugins(t, ns, cfg, mutatingHooks, validatingHooks)
}

func newKubeFourPlugins(t testing.TB, ns *corev1.Namespace, cfg *gadmission.Config, mutatingHooks []*admissionregistrationv1.MutatingWebhookConfiguration, validatingHooks []*admissionregistrationv1.ValidatingWebhookConfiguration) *kubeFourPlugins {
	t.Helper()
	client := fake.NewClientset(ns, mutatingHooks[0], validatingHooks[0])
	factory := informers.NewSharedInformerFactory(client, 0)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	mwh, err := webhookmutating.NewMutatingWebhook(nil)
	require.NoError(t, err)
	vwh, err := webhookvalidating.NewValidatingAdmissionWebhook(nil)
	require.NoError(t, err)
	mwh.SetExternalKubeClientSet(client)
	mwh.SetExternalKubeInformerFactory(factory)
	vwh.SetExternalKubeClientSet(client)
	vwh.SetExternalKubeInformerFactory(factory)
	require.NoError(t, mwh.ValidateInitialization())
	require.NoError(t, vwh.ValidateInitialization())
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	mutating := newKubeMAP(t, cfg.MutatingPolicies, cfg.MutatingPolicyBindings, ns)
	validating := newKubeVAP(t, cfg.ValidatingPolicies, cfg.ValidatingPolicyBindings, false, ns)
	return &kubeFourPlugins{
		mutatePolicies: mutating.admit,
		validatePolicies: func(ctx context.Context, a admission.Attributes) error {
			return validating.dispatcher.Dispatch(ctx, a, validating.o, validating.hooks)
		},
		mwh: mwh, vwh: vwh,
		o: admission.NewObjectInterfacesFromScheme(scheme.Scheme),
	}
}

// admit runs attr through the four plugins as kube-apiserver's chain does.
func (k *kubeFourPlugins) admit(ctx context.Context, attr admission.Attributes) error {
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			rc := attr.GetReinvocationContext()
			if !rc.ShouldReinvoke() {
				break
			}
			rc.SetIsReinvoke()
		}
		if err := k.mutatePolicies(ctx, attr); err != nil {
			return err
		}
		if err := k.mwh.Admit(ctx, attr, k.o); err != nil {
			return err
		}
	}
	if err := k.validatePolicies(ctx, attr); err != nil {
		return err
	}
	return k.vwh.Validate(ctx, attr, k.o)
}
