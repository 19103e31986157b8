package kubernetes

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	webhooksource "k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/source"
	"k8s.io/klog/v2"
	policymanifest "k8s.io/kubernetes/pkg/admission/plugin/policy/manifest/loader"
	webhookmanifest "k8s.io/kubernetes/pkg/admission/plugin/webhook/manifest/loader"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// This file compares admissionmanifest.Load with kube-apiserver's own
// manifest loaders, end to end: k8s.io/kubernetes v1.37.2's
// pkg/admission/plugin/.../manifest/loader, which decode with
// kube-apiserver's scheme (internal types included), default, convert to
// the internal version, validate with kube-apiserver's REST validation and
// convert back, around k8s.io/apiserver v0.37.2's generic loaders.
// MutatingAdmissionPolicy directories are compared in
// mutation_manifestloader_test.go.

type loaderResult struct {
	Err     string
	Hash    string
	Objects string
}

func loaderJSON(t testing.TB, objs ...any) string {
	data, err := json.Marshal(objs)
	require.NoError(t, err)
	return string(data)
}

func kubeManifestLoad(t testing.TB, plugin admissionmanifest.Plugin, dir string) loaderResult {
	switch plugin {
	case admissionmanifest.ValidatingAdmissionWebhook:
		r, err := webhookmanifest.LoadValidatingManifests(dir)
		if err != nil {
			return loaderResult{Err: err.Error()}
		}
		return loaderResult{Hash: r.Hash, Objects: loaderJSON(t, r.Configurations)}
	case admissionmanifest.MutatingAdmissionWebhook:
		r, err := webhookmanifest.LoadMutatingManifests(dir)
		if err != nil {
			return loaderResult{Err: err.Error()}
		}
		return loaderResult{Hash: r.Hash, Objects: loaderJSON(t, r.Configurations)}
	default:
		r, err := policymanifest.LoadValidatingManifestsFromDirectory(dir)
		if err != nil {
			return loaderResult{Err: err.Error()}
		}
		return loaderResult{Hash: r.Hash, Objects: loaderJSON(t, r.Policies, r.Bindings)}
	}
}

func gatehouseManifestLoad(t testing.TB, plugin admissionmanifest.Plugin, dir string) loaderResult {
	m, err := admissionmanifest.Load(plugin, dir, admissionmanifest.LoadOptions{})
	if err != nil {
		return loaderResult{Err: err.Error()}
	}
	switch plugin {
	case admissionmanifest.ValidatingAdmissionWebhook:
		return loaderResult{Hash: m.Hash(), Objects: loaderJSON(t, m.ValidatingWebhookConfigurations())}
	case admissionmanifest.MutatingAdmissionWebhook:
		return loaderResult{Hash: m.Hash(), Objects: loaderJSON(t, m.MutatingWebhookConfigurations())}
	default:
		return loaderResult{Hash: m.Hash(), Objects: loaderJSON(t, m.ValidatingAdmissionPolicies(), m.ValidatingAdmissionPolicyBindings())}
	}
}

var endToEndPlugins = []admissionmanifest.Plugin{admissionmanifest.ValidatingAdmissionWebhook, admissionmanifest.MutatingAdmissionWebhook, admissionmanifest.ValidatingAdmissionPolicy}

// TestManifestLoaderRealWorldMatchesKubeAPIServer: every real-world file,
// alone in a directory, for each plugin; and all of them in one directory.
func TestManifestLoaderRealWorldMatchesKubeAPIServer(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "admission-webhooks", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	all := t.TempDir()
	var cases, loaded int
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(all, filepath.Base(f)), data, 0o644))
		for _, p := range endToEndPlugins {
			want, got := kubeManifestLoad(t, p, dir), gatehouseManifestLoad(t, p, dir)
			cases++
			if want.Err == "" {
				loaded++
			}
			assert.Equal(t, want, got, "%s, %s", filepath.Base(f), p)
		}
	}
	for _, p := range endToEndPlugins {
		assert.Equal(t, kubeManifestLoad(t, p, all), gatehouseManifestLoad(t, p, all), "all files, %s", p)
	}
	t.Logf("%d files × %d plugins: %d cases, %d loaded", len(files), len(endToEndPlugins), cases, loaded)
}

// benchmarkWebhookConfiguration is a typical static configuration: labels,
// two webhooks with rules, selectors and the usual fields (the same as
// conformance's BenchmarkAdmissionManifestLoad).
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

func benchmarkWebhookDir(tb testing.TB, n int) string {
	dir := tb.TempDir()
	for i := range n {
		require.NoError(tb, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-policy.yaml", i)), []byte(benchmarkWebhookConfiguration(i)), 0o644))
	}
	return dir
}

func TestBenchmarkDirectoryLoadsAlike(t *testing.T) {
	dir := benchmarkWebhookDir(t, 50)
	want := kubeManifestLoad(t, admissionmanifest.ValidatingAdmissionWebhook, dir)
	require.Empty(t, want.Err)
	assert.Equal(t, want, gatehouseManifestLoad(t, admissionmanifest.ValidatingAdmissionWebhook, dir))
}

// BenchmarkAdmissionManifestLoadAndValidate loads and validates a
// directory of 50 webhook configurations (100 webhooks) as kube-apiserver
// does at startup, end to end: kube-apiserver's own loader (decoding,
// defaulting, conversion, REST validation) and static source (accessors,
// selectors), against admissionmanifest.Load with a Validator built once.
func BenchmarkAdmissionManifestLoadAndValidate(b *testing.B) {
	dir := benchmarkWebhookDir(b, 50)
	// kube-apiserver's source logs every load.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		load := func(dir string) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, string, error) {
			r, err := webhookmanifest.LoadValidatingManifests(dir)
			if err != nil {
				return nil, "", err
			}
			return r.Configurations, r.Hash, nil
		}
		b.ReportAllocs()
		start := processCPUTime()
		for b.Loop() {
			src := webhooksource.NewValidatingSource(dir, "", load)
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
