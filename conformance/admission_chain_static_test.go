package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/loader"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"

	gadmission "github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// csPolicies are a source's policies (SOURCE: "static", named
// *.static.k8s.io, or "api"): a mutating policy that labels pods and
// admission policy bindings with the source, and a validating policy that
// warns with the labels it sees.
const csPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label-NAME}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["", "admissionregistration.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "validatingadmissionpolicybindings", "mutatingwebhookconfigurations"]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'SOURCE-policy': 'yes'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label-NAME}
spec: {policyName: label-NAME}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: warn-NAME}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["", "admissionregistration.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "validatingadmissionpolicybindings", "mutatingwebhookconfigurations"]}
  validations:
  - expression: "false"
    messageExpression: "'SOURCE sees ' + string(size(object.metadata.labels)) + ' labels'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: warn-NAME}
spec: {policyName: warn-NAME, validationActions: [Warn, Audit]}
`

func csConfig(t *testing.T, source string) *gadmission.Config {
	name := source
	if source == "static" {
		name += ".static.k8s.io"
	}
	cfg, err := gadmission.Decode([]byte(strings.NewReplacer("NAME", name, "SOURCE", source).Replace(csPolicies)))
	require.NoError(t, err)
	return cfg
}

// csWebhooks are a source's webhooks on the same resources: a mutating one
// that labels the object with the source, a validating one that warns
// with what it saw.
func csWebhooks(srv *admissionwebhooktest.Server, source string) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	name := source + ".example.com"
	if source == "static" {
		name = "hooks.static.k8s.io"
	}
	srv.Handle("/cs/"+source+"/m", admissionwebhooktest.Patch(fmt.Sprintf(`[{"op":"add","path":"/metadata/labels/%s-webhook","value":"yes"}]`, source)))
	srv.Handle("/cs/"+source+"/v", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		var obj struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(r.Object.Raw, &obj)
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{fmt.Sprintf("%s webhook sees %v", source, obj.Metadata.Labels)}}
	})
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"", "admissionregistration.k8s.io"}, APIVersions: []string{"v1"},
			Resources: []string{"pods", "validatingadmissionpolicybindings", "mutatingwebhookconfigurations"}}}}
	none := admissionregistrationv1.SideEffectClassNone
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: "m." + name, ClientConfig: srv.ClientConfig("/cs/" + source + "/m"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "v." + name, ClientConfig: srv.ClientConfig("/cs/" + source + "/v"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(m)
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(v)
	return m, v
}

// TestAdmissionChainComposesStaticAndAPIAsKubeAPIServer runs requests
// through kube-apiserver's four plugins, each with a static source and an
// API source — its webhook plugins with their static source, its policy
// dispatchers with the hooks its generic policy plugin hands them (static
// then API; static only for admission policies and bindings) — and through
// admission.New with Config.Static: admitted object, status, warnings and
// audit annotations must be the same.
func TestAdmissionChainComposesStaticAndAPIAsKubeAPIServer(t *testing.T) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	require.NoError(t, err)
	defer srv.Close()
	static, api := csConfig(t, "static"), csConfig(t, "api")
	sm, sv := csWebhooks(srv, "static")
	am, av := csWebhooks(srv, "api")
	static.MutatingWebhooks, static.ValidatingWebhooks = []*admissionregistrationv1.MutatingWebhookConfiguration{sm}, []*admissionregistrationv1.ValidatingWebhookConfiguration{sv}
	api.MutatingWebhooks, api.ValidatingWebhooks = []*admissionregistrationv1.MutatingWebhookConfiguration{am}, []*admissionregistrationv1.ValidatingWebhookConfiguration{av}
	cfg := *api
	cfg.Static = static
	ours, err := gadmission.New(cfg, gadmission.Options{})
	require.NoError(t, err)

	// kube-apiserver's side.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	client := fake.NewClientset(ns, am, av)
	factory := informers.NewSharedInformerFactory(client, 0)
	stop := make(chan struct{})
	defer close(stop)
	dir := filepath.Join(t.TempDir(), "static")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	webhookConfig := "apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nstaticManifestsDir: " + dir + "\n"
	mwh, err := webhookmutating.NewMutatingWebhook(strings.NewReader(webhookConfig))
	require.NoError(t, err)
	vwh, err := webhookvalidating.NewValidatingAdmissionWebhook(strings.NewReader(webhookConfig))
	require.NoError(t, err)
	for _, wh := range []*generic.Webhook{mwh.Webhook, vwh.Webhook} {
		wh.SetExternalKubeClientSet(client)
		wh.SetExternalKubeInformerFactory(factory)
		wh.SetDrainedNotification(stop)
	}
	mwh.SetStaticSourceFactory(func(string) (generic.ReloadableSource, error) {
		return shStatic{loader.BuildMutatingAccessors([]*admissionregistrationv1.MutatingWebhookConfiguration{sm})}, nil
	})
	vwh.SetStaticSourceFactory(func(string) (generic.ReloadableSource, error) {
		return shStatic{loader.BuildValidatingAccessors([]*admissionregistrationv1.ValidatingWebhookConfiguration{sv})}, nil
	})
	require.NoError(t, mwh.ValidateInitialization())
	require.NoError(t, vwh.ValidateInitialization())
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	staticMut, apiMut := newKubeMAP(t, static.MutatingPolicies, static.MutatingPolicyBindings, ns), newKubeMAP(t, api.MutatingPolicies, api.MutatingPolicyBindings, ns)
	staticVal, apiVal := newKubeVAP(t, static.ValidatingPolicies, static.ValidatingPolicyBindings, true, ns), newKubeVAP(t, api.ValidatingPolicies, api.ValidatingPolicyBindings, false, ns)
	o := admission.NewObjectInterfacesFromScheme(scheme.Scheme)
	// kube-apiserver's generic policy plugin: the composite source's hooks,
	// the static ones alone for admission policies and bindings.
	policyConfig := func(gr schema.GroupResource) bool {
		return gr.Group == "admissionregistration.k8s.io" && strings.Contains(gr.Resource, "admissionpolic")
	}
	mutHooks := func(a admission.Attributes) []mutating.PolicyHook {
		if policyConfig(a.GetResource().GroupResource()) {
			return staticMut.hooks
		}
		return append(append([]mutating.PolicyHook(nil), staticMut.hooks...), apiMut.hooks...)
	}
	valHooks := func(a admission.Attributes) []validating.PolicyHook {
		if policyConfig(a.GetResource().GroupResource()) {
			return staticVal.hooks
		}
		return append(append([]validating.PolicyHook(nil), staticVal.hooks...), apiVal.hooks...)
	}
	kube := &kubeFourPlugins{
		mutatePolicies: func(ctx context.Context, a admission.Attributes) error {
			return apiMut.dispatcher.Dispatch(ctx, a, o, mutHooks(a))
		},
		validatePolicies: func(ctx context.Context, a admission.Attributes) error {
			return apiVal.dispatcher.Dispatch(ctx, a, apiVal.o, valHooks(a))
		},
		mwh: mwh, vwh: vwh, o: o,
	}

	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "x",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	webhookConfiguration := &admissionregistrationv1.MutatingWebhookConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "w"}}
	cases := []struct {
		name      string
		obj       runtime.Object
		gvr       schema.GroupVersionResource
		namespace string
	}{
		{"a pod", cwPod(map[string]string{"app": "web"}, nil), corev1.SchemeGroupVersion.WithResource("pods"), "default"},
		{"an admission policy binding", binding, admissionregistrationv1.SchemeGroupVersion.WithResource("validatingadmissionpolicybindings"), ""},
		{"a webhook configuration", webhookConfiguration, admissionregistrationv1.SchemeGroupVersion.WithResource("mutatingwebhookconfigurations"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gvk := tc.obj.GetObjectKind().GroupVersionKind()
			name := tc.obj.(metav1.Object).GetName()
			kobj := tc.obj.DeepCopyObject()
			attr := &awAttributes{Attributes: admission.NewAttributesRecord(kobj, nil, gvk, tc.namespace, name, tc.gvr, "", admission.Create, nil, false, &awUser)}
			warnings := &awWarnings{}
			ctx := warning.WithWarningRecorder(context.Background(), warnings)
			kerr := kube.admit(ctx, attr)

			req := &gadmission.Request{Operation: admissionv1.Create, Kind: gvk, Resource: tc.gvr, Name: name, Namespace: tc.namespace,
				UserInfo: authenticationv1.UserInfo{Username: awUser.Name, UID: awUser.UID, Groups: awUser.Groups, Extra: map[string]authenticationv1.ExtraValue{}}}
			for k, v := range awUser.Extra {
				req.UserInfo.Extra[k] = v
			}
			req.Object = mdUnstructured(t, tc.obj)
			res, gerr := ours.Admit(context.Background(), req)

			require.Equal(t, shStatus(kerr), shStatus(gerr), "error")
			if kerr == nil {
				want := mdNormalizeNil(t, gvk, attr.GetObject())
				got := mdNormalize(t, gvk, res.Object)
				require.Equal(t, want, got, "object")
				labels, _, _ := unstructured.NestedStringMap(got, "metadata", "labels")
				t.Logf("labels: %v", labels)
			}
			// The validating webhooks run concurrently: their warnings come
			// in any order in kube-apiserver.
			split := func(ws []string) (policies, webhooks []string) {
				for _, w := range ws {
					if strings.Contains(w, "webhook sees") {
						webhooks = append(webhooks, w)
					} else {
						policies = append(policies, w)
					}
				}
				sort.Strings(webhooks)
				return policies, webhooks
			}
			kp, kw := split(warnings.warnings)
			gp, gw := split(res.Warnings)
			require.Equal(t, kp, gp, "policies' warnings")
			require.Equal(t, kw, gw, "webhooks' warnings")
			t.Logf("warnings: %q", warnings.warnings)
			all := map[string]string{}
			for k, v := range res.AuditAnnotations {
				all[k] = v
			}
			for k, v := range res.RequestAuditAnnotations {
				all[k] = v
			}
			if len(all) > 0 || len(attr.annotations) > 0 {
				require.True(t, reflect.DeepEqual(all, attr.annotations), "audit annotations:\ngatehouse:      %q\nkube-apiserver: %q", all, attr.annotations)
			}
		})
	}
}
