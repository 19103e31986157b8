package conformance

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/conformance/schemagen"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/yaml"
)

const benchPod = `
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels: {app: web, tier: frontend}
  annotations: {note: "x"}
spec:
  containers:
  - name: app
    image: nginx:1.27
    args: [--port, "8080"]
    ports: [{containerPort: 8080, protocol: TCP}]
    env: [{name: A, value: "1"}, {name: B, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    resources: {limits: {cpu: 500m, memory: 128Mi}}
    volumeMounts: [{name: data, mountPath: /data}]
  volumes:
  - name: data
    emptyDir: {}
  nodeSelector: {disk: ssd}
`

func benchPodObject(b *testing.B) map[string]any {
	var o map[string]any
	if err := yaml.Unmarshal([]byte(benchPod), &o); err != nil {
		b.Fatal(err)
	}
	return o
}

// BenchmarkPodSchemaFirstUse measures what the first use of the Pod schema
// costs a fresh process: building the type converter's schema and typing one
// Pod. kube-apiserver's static converter parses client-go's embedded schema
// YAML (what internal.Parser() does once per process); gatehouse opens its
// embedded encoding and decodes the Pod's closure.
func BenchmarkPodSchemaFirstUse(b *testing.B) {
	pod := benchPodObject(b)
	podGVK := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	y, err := schemagen.SchemaYAML()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := typed.NewParser(typed.YAMLObject(y))
			if err != nil {
				b.Fatal(err)
			}
			tc := managedfields.NewSchemeTypeConverter(scheme.Scheme, p)
			if _, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: pod}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := mutation.BuiltIn().Lookup(podGVK)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.FromUnstructured(pod); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPodSchemaWarm measures the per-request path: look the Pod's
// schema up in a warm converter and type one Pod.
func BenchmarkPodSchemaWarm(b *testing.B) {
	pod := benchPodObject(b)
	podGVK := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		tc := applyconfigurations.NewTypeConverter(scheme.Scheme)
		var obj runtime.Object = &unstructured.Unstructured{Object: pod}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tc.ObjectToTyped(obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		schemas := mutation.BuiltIn()
		b.ReportAllocs()
		for b.Loop() {
			s, err := schemas.Lookup(podGVK)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.FromUnstructured(pod); err != nil {
				b.Fatal(err)
			}
		}
	})
}
