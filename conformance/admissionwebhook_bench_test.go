package conformance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// BenchmarkAdmissionWebhook is one pod creation through a validating
// webhook that allows it, and through a mutating webhook that adds a label,
// both on the same loopback TLS server (connections reused), in
// kube-apiserver's plugins and in admissionwebhook.Dispatcher.
func BenchmarkAdmissionWebhook(b *testing.B) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{DiscardRequests: true})
	require.NoError(b, err)
	defer srv.Close()
	srv.Handle("/label", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`))
	w := admissionregistrationv1.ValidatingWebhook{
		Name: "w.example.com", ClientConfig: srv.ClientConfig("/allow"),
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}},
		SideEffects: ptrTo(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{w}}
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(cfg)
	w = cfg.Webhooks[0]
	m := toMutating(awScenario{hooks: []awHook{{}}}, []admissionregistrationv1.ValidatingWebhook{w})[0]
	m.ClientConfig = srv.ClientConfig("/label")

	scheme := runtime.NewScheme()
	require.NoError(b, corev1.AddToScheme(scheme))
	o := admission.NewObjectInterfacesFromScheme(scheme)
	ctx := context.Background()
	for _, mutating := range []bool{false, true} {
		kind := "kind=validating"
		if mutating {
			kind = "kind=mutating"
		}
		b.Run(kind+"/impl=kube-apiserver", func(b *testing.B) {
			objs := []runtime.Object{
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
				&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{w}},
				&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "config"}, Webhooks: []admissionregistrationv1.MutatingWebhook{m}},
			}
			client := fake.NewClientset(objs...)
			factory := informers.NewSharedInformerFactory(client, 0)
			stop := make(chan struct{})
			defer close(stop)
			var call func(admission.Attributes) error
			if mutating {
				wh, err := webhookmutating.NewMutatingWebhook(nil)
				require.NoError(b, err)
				wh.SetExternalKubeClientSet(client)
				wh.SetExternalKubeInformerFactory(factory)
				require.NoError(b, wh.ValidateInitialization())
				call = func(a admission.Attributes) error { return wh.Admit(ctx, a, o) }
			} else {
				wh, err := webhookvalidating.NewValidatingAdmissionWebhook(nil)
				require.NoError(b, err)
				wh.SetExternalKubeClientSet(client)
				wh.SetExternalKubeInformerFactory(factory)
				require.NoError(b, wh.ValidateInitialization())
				call = func(a admission.Attributes) error { return wh.Validate(ctx, a, o) }
			}
			factory.Start(stop)
			factory.WaitForCacheSync(stop)
			b.ReportAllocs()
			for b.Loop() {
				attr := admission.NewAttributesRecord(awPod(), nil, corev1.SchemeGroupVersion.WithKind("Pod"), "default", "p",
					corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
				if err := call(attr); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/impl=gatehouse", func(b *testing.B) {
			hook := admissionmanifest.Webhook{ConfigurationName: "config", Validating: &w}
			if mutating {
				hook = admissionmanifest.Webhook{ConfigurationName: "config", Mutating: &m}
			}
			d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{hook}, admissionwebhook.Options{})
			require.NoError(b, err)
			pod, err := runtime.DefaultUnstructuredConverter.ToUnstructured(awPod())
			require.NoError(b, err)
			req := &admissionwebhook.Request{
				Operation: admissionv1.Create, Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: corev1.SchemeGroupVersion.WithResource("pods"),
				Name: "p", Namespace: "default", UserInfo: authenticationv1.UserInfo{Username: "alice"},
				Object: &unstructured.Unstructured{Object: pod},
			}
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if mutating {
					_, err = d.Admit(ctx, req)
				} else {
					_, err = d.Validate(ctx, req)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
