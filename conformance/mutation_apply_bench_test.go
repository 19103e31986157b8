package conformance

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/client-go/kubernetes/scheme"
)

// The sidecar of the website's example policies (without args: the
// ApplyConfiguration form with args is rejected by the atomic rule), as an
// ApplyConfiguration and as a JSON patch appending to initContainers.
const (
	benchSidecarAC  = `{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}]}}`
	benchSidecarJP  = `[{"op":"add","path":"/spec/initContainers/-","value":{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}}]`
	benchSidecarPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"frontend"},"annotations":{"note":"x"}},
	 "spec":{"initContainers":[{"name":"init","image":"busybox","command":["sh","-c","true"]}],
	  "containers":[{"name":"app","image":"nginx:1.27","args":["--port","8080"],"ports":[{"containerPort":8080,"protocol":"TCP"}],
	   "env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
	   "resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"volumeMounts":[{"name":"data","mountPath":"/data"}]}],
	  "volumes":[{"name":"data","emptyDir":{}}],"nodeSelector":{"disk":"ssd"}}}`
)

// BenchmarkMutationApplySidecar applies the sidecar to a Pod. kube-apiserver:
// its patcher's work after the expression's evaluation on the typed Pod it
// holds (ApplyStructuredMergeDiff with client-go's static converter, or
// encode, json-patch v4 and strict decode) and the dispatcher's conversion
// back to the Go type, and the conversion of the result to unstructured
// content that the next mutation's CEL activation makes; gatehouse:
// mutationpatch on the Pod's unstructured content, which gives what the
// next mutation sees.
func BenchmarkMutationApplySidecar(b *testing.B) {
	w := newApplyWorld(b)
	var obj, ac map[string]any
	if err := utiljson.Unmarshal([]byte(benchSidecarPod), &obj); err != nil {
		b.Fatal(err)
	}
	if err := utiljson.Unmarshal([]byte(benchSidecarAC), &ac); err != nil {
		b.Fatal(err)
	}
	obj = w.normalize(b, applyPodGVK, obj)
	typedPod, err := w.kubeObject(applyPodGVK, obj)
	if err != nil {
		b.Fatal(err)
	}
	s, err := w.schemas.Lookup(applyPodGVK)
	if err != nil {
		b.Fatal(err)
	}
	jp := []byte(benchSidecarJP)

	b.Run("patch=ApplyConfiguration/impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(ac)}
			p.SetGroupVersionKind(applyPodGVK)
			out, err := patch.ApplyStructuredMergeDiff(w.kubeBuiltin, typedPod, p)
			if err != nil {
				b.Fatal(err)
			}
			typed, err := scheme.Scheme.ConvertToVersion(out, applyPodGVK.GroupVersion())
			if err != nil {
				b.Fatal(err)
			}
			if _, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("patch=ApplyConfiguration/impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := mutationpatch.ApplyConfiguration(ac, obj, applyPodGVK, s, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("patch=JSONPatch/impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ops, err := jsonpatch.DecodePatch(jp)
			if err != nil {
				b.Fatal(err)
			}
			doc, err := runtime.Encode(w.strict, typedPod)
			if err != nil {
				b.Fatal(err)
			}
			patched, err := ops.Apply(doc)
			if err != nil {
				b.Fatal(err)
			}
			into, _ := scheme.Scheme.New(applyPodGVK)
			out, _, err := w.strict.Decode(patched, nil, into)
			if err != nil {
				b.Fatal(err)
			}
			typed, err := scheme.Scheme.ConvertToVersion(out, applyPodGVK.GroupVersion())
			if err != nil {
				b.Fatal(err)
			}
			if _, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("patch=JSONPatch/impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := mutationpatch.JSONPatch(jp, obj, applyPodGVK, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
