package conformance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/admission"

	gadmission "github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// BenchmarkAdmissionChainFourPlugins admits a Pod through the four plugins
// of TestAdmissionChainWithWebhooksMatchesKubeAPIServer (a mutating policy,
// a mutating webhook, a validating policy, a validating webhook, over
// loopback TLS): kube-apiserver's chain of its own plugins with its typed
// Pod, against admission.Chain with the Pod as unstructured content, as a
// caller decoding JSON holds it. case=unchanged: nothing changes the Pod
// (one pass); case=reinvoked: the webhook sets an owner and the policy is
// reinvoked (two passes).
//
//	go test -run '^$' -bench 'ChainFourPlugins' -benchmem -count 6 . | benchstat -col /impl -
func BenchmarkAdmissionChainFourPlugins(b *testing.B) {
	ours, kube := newFourPluginsWorld(b, admissionwebhooktest.Options{DiscardRequests: true})

	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	user := authenticationv1.UserInfo{Username: awUser.Name, UID: awUser.UID, Groups: awUser.Groups}
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
	}{
		{"unchanged", cwPod(map[string]string{"wants": "web", "team": "web"}, map[string]string{"owner": "web"})},
		{"reinvoked", cwPod(map[string]string{"wants": "web"}, nil)},
	} {
		u := mdUnstructured(b, c.pod)
		kubeAdmit := func() error {
			attr := &awAttributes{Attributes: admission.NewAttributesRecord(c.pod.DeepCopy(), nil, gvk, "default", "p", gvr, "", admission.Create, nil, false, &awUser)}
			return kube.admit(context.Background(), attr)
		}
		ourAdmit := func() (gadmission.Result, error) {
			return ours.Admit(context.Background(), &gadmission.Request{Operation: admissionv1.Create, Kind: gvk, Resource: gvr,
				Name: "p", Namespace: "default", UserInfo: user, Object: u})
		}
		require.NoError(b, kubeAdmit())
		res, err := ourAdmit()
		require.NoError(b, err)
		require.Equal(b, c.name == "reinvoked", res.Changed)
		b.Run("case="+c.name+"/impl=kube-apiserver", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := kubeAdmit(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("case="+c.name+"/impl=gatehouse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ourAdmit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
