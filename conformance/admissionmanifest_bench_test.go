package conformance

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	webhooksource "k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/source"
	"k8s.io/klog/v2"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// benchmarkWebhookConfiguration is a typical static configuration: labels,
// two webhooks with rules, selectors and the usual fields.
func benchmarkWebhookConfiguration(i int) string {
	return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy-%02d.static.k8s.io
  labels:
    app.kubernetes.io/name: policy-%02d
    app.kubernetes.io/part-of: platform
webhooks:
- name: pods.policy-%02d.example.com
  clientConfig:
    url: https://policy-%02d.platform.example.com:8443/validate/pods
    caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENDQVRlZ0F3SUJBZ0lJCg==
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["pods", "pods/ephemeralcontainers"]
    scope: Namespaced
  namespaceSelector:
    matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: ["kube-system", "kube-public"]
  objectSelector:
    matchLabels:
      policy.example.com/enforce: "true"
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 5
  admissionReviewVersions: ["v1", "v1beta1"]
- name: deployments.policy-%02d.example.com
  clientConfig:
    url: https://policy-%02d.platform.example.com:8443/validate/deployments
  rules:
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE", "DELETE"]
    resources: ["deployments", "deployments/scale"]
  matchPolicy: Equivalent
  failurePolicy: Ignore
  sideEffects: NoneOnDryRun
  admissionReviewVersions: ["v1"]
`, i, i, i, i, i, i)
}

func benchmarkWebhookDir(b *testing.B, n int) string {
	dir := b.TempDir()
	for i := range n {
		require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-policy.yaml", i)), []byte(benchmarkWebhookConfiguration(i)), 0o644))
	}
	return dir
}

// BenchmarkAdmissionManifestLoad loads a directory of 50 webhook
// configurations (100 webhooks) as kube-apiserver does at startup: the
// loader, then the source's accessors and selectors. kube-apiserver's side
// is k8s.io/apiserver's loader and source around kube-apiserver's scheme,
// with the same defaulting and REST validation as gatehouse's (see
// kubeManifests); both validators are built once, outside the loop.
func BenchmarkAdmissionManifestLoad(b *testing.B) {
	dir := benchmarkWebhookDir(b, 50)
	// kube-apiserver's source logs every load.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		k := newKubeManifests(b)
		b.ReportAllocs()
		start := processCPUTime()
		for b.Loop() {
			src := webhooksource.NewValidatingSource(dir, "", webhooksource.ValidatingWebhookLoadFunc(k.loadVWC))
			if err := src.LoadInitial(); err != nil {
				b.Fatal(err)
			}
			if len(src.Webhooks()) != 100 {
				b.Fatal("wrong count")
			}
		}
		reportCPUTime(b, start)
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		v, err := admissionmanifest.NewValidator(admissionmanifest.Options{StaticNames: admissionmanifest.StaticNamesAllowed})
		require.NoError(b, err)
		b.ReportAllocs()
		start := processCPUTime()
		for b.Loop() {
			m, err := admissionmanifest.Load(admissionmanifest.ValidatingAdmissionWebhook, dir, admissionmanifest.LoadOptions{Validator: v})
			if err != nil {
				b.Fatal(err)
			}
			if len(m.Webhooks()) != 100 {
				b.Fatal("wrong count")
			}
		}
		reportCPUTime(b, start)
	})
}

// processCPUTime is the CPU time the process has used. The benchmarks
// report it per operation (cpu-ns/op) beside the wall time, which on a
// shared machine measures the other processes as much as this one.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPUTime(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPUTime()-start)/float64(b.N), "cpu-ns/op")
}
