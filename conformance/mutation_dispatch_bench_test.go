package conformance

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// BenchmarkMutationDispatch admits a Pod through the corpus's sidecar world
// (three policies; the ApplyConfiguration sidecar applies): the whole
// dispatch, matching to final object, per implementation.
func BenchmarkMutationDispatch(b *testing.B) {
	w := &mdWorlds[1]
	s := newMDSetup(b, w)
	obj := mdTyped(b, mdPod("ns", map[string]string{"inject": "ac"}))
	gvk := obj.GetObjectKind().GroupVersionKind()
	gvr := gvk.GroupVersion().WithResource("pods")
	ctx := context.Background()
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			attrs := admission.NewAttributesRecord(obj.DeepCopyObject(), nil, gvk, "ns", "p", gvr, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
			if err := s.kube.admit(ctx, attrs); err != nil {
				b.Fatal(err)
			}
		}
	})
	u := mdUnstructured(b, obj)
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := &mutation.Request{Operation: admissionv1.Create, Kind: gvk, Resource: gvr, Name: "p", Namespace: "ns",
				UserInfo: authenticationv1.UserInfo{Username: "alice"}, Object: u, Reinvocation: &mutation.ReinvocationContext{}}
			if _, err := s.ours.Admit(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	// u is the typed Pod's unstructured form, as a server holding typed
	// objects passes it (contrib/apiserver's plugin): Normalized skips
	// converting it through the Go type once more.
	b.Run("impl=gatehouse-normalized", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := &mutation.Request{Operation: admissionv1.Create, Kind: gvk, Resource: gvr, Name: "p", Namespace: "ns",
				UserInfo: authenticationv1.UserInfo{Username: "alice"}, Object: u, Reinvocation: &mutation.ReinvocationContext{}, Normalized: true}
			if _, err := s.ours.Admit(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
