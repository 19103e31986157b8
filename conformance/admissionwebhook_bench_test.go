package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
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
	"k8s.io/apiserver/pkg/admission"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// BenchmarkAdmissionWebhook is one pod creation through a validating
// webhook that allows it, and through a mutating webhook that adds a label,
// in kube-apiserver's plugins and in admissionwebhook.Dispatcher: with
// net=loopback-tls both call the same loopback TLS server (connections
// reused); with net=none both transports are replaced by one that answers in
// memory, which leaves the work around the call (build the review, encode
// it, read the answer, apply the patch).
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
	for _, bc := range []struct {
		mutating bool
		inMemory bool
	}{{false, false}, {true, false}, {false, true}, {true, true}} {
		mutating := bc.mutating
		kind := "kind=validating"
		if mutating {
			kind = "kind=mutating"
		}
		kind += "/net=loopback-tls"
		var wrap func(http.RoundTripper) http.RoundTripper
		if bc.inMemory {
			kind = strings.Replace(kind, "loopback-tls", "none", 1)
			wrap = func(http.RoundTripper) http.RoundTripper { return inMemoryWebhook{mutating: mutating} }
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
				wrapKubeTransport(wh, wrap)
				wh.SetExternalKubeClientSet(client)
				wh.SetExternalKubeInformerFactory(factory)
				require.NoError(b, wh.ValidateInitialization())
				call = func(a admission.Attributes) error { return wh.Admit(ctx, a, o) }
			} else {
				wh, err := webhookvalidating.NewValidatingAdmissionWebhook(nil)
				require.NoError(b, err)
				wrapKubeTransport(wh, wrap)
				wh.SetExternalKubeClientSet(client)
				wh.SetExternalKubeInformerFactory(factory)
				require.NoError(b, wh.ValidateInitialization())
				call = func(a admission.Attributes) error { return wh.Validate(ctx, a, o) }
			}
			factory.Start(stop)
			factory.WaitForCacheSync(stop)
			newAttr := func() admission.Attributes {
				return admission.NewAttributesRecord(awPod(), nil, corev1.SchemeGroupVersion.WithKind("Pod"), "default", "p",
					corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
			}
			if mutating { // the webhook was called and its patch applied
				attr := newAttr()
				require.NoError(b, call(attr))
				require.Equal(b, "a", attr.GetObject().(*corev1.Pod).Labels["team"])
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := call(newAttr()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/impl=gatehouse", func(b *testing.B) {
			hook := admissionmanifest.Webhook{ConfigurationName: "config", Validating: &w}
			if mutating {
				hook = admissionmanifest.Webhook{ConfigurationName: "config", Mutating: &m}
			}
			d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{hook}, admissionwebhook.Options{WrapTransport: wrap})
			require.NoError(b, err)
			pod, err := runtime.DefaultUnstructuredConverter.ToUnstructured(awPod())
			require.NoError(b, err)
			req := &admissionwebhook.Request{
				Operation: admissionv1.Create, Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: corev1.SchemeGroupVersion.WithResource("pods"),
				Name: "p", Namespace: "default", UserInfo: authenticationv1.UserInfo{Username: "alice"},
				Object: &unstructured.Unstructured{Object: pod},
			}
			if mutating {
				res, err := d.Admit(ctx, req)
				require.NoError(b, err)
				require.Equal(b, "a", res.Object.GetLabels()["team"])
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

// wrapKubeTransport gives kube-apiserver's webhook clients the transport
// wrap returns, as a server injects its dialer: through the resolver of
// their rest.Config. A nil wrap leaves them as they are.
func wrapKubeTransport(wh interface {
	SetAuthenticationInfoResolverWrapper(webhookutil.AuthenticationInfoResolverWrapper)
}, wrap func(http.RoundTripper) http.RoundTripper) {
	if wrap == nil {
		return
	}
	wh.SetAuthenticationInfoResolverWrapper(func(r webhookutil.AuthenticationInfoResolver) webhookutil.AuthenticationInfoResolver {
		return &webhookutil.AuthenticationInfoResolverDelegator{
			ClientConfigForFunc: func(hostPort string) (*rest.Config, error) {
				cfg, err := r.ClientConfigFor(hostPort)
				if err == nil {
					cfg.WrapTransport = wrap
				}
				return cfg, err
			},
			ClientConfigForServiceFunc: r.ClientConfigForService,
		}
	})
}

// inMemoryWebhook answers an AdmissionReview v1 without a network: it
// allows, with the benchmark's label patch when mutating, echoing the
// request's uid.
type inMemoryWebhook struct{ mutating bool }

var labelPatch = base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`))

func (w inMemoryWebhook) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	var review struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.Unmarshal(body, &review); err != nil {
		return nil, err
	}
	answer := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"` + review.Request.UID + `","allowed":true`
	if w.mutating {
		answer += `,"patchType":"JSONPatch","patch":"` + labelPatch + `"`
	}
	answer += `}}`
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{"application/json"}},
		Body:          io.NopCloser(strings.NewReader(answer)),
		ContentLength: int64(len(answer)),
		Request:       r,
	}, nil
}
