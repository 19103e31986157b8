package admissionmanifest_test

import (
	"fmt"
	"io/fs"
	"testing/fstest"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

const exampleWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: deny-latest.static.k8s.io
webhooks:
- name: deny-latest.example.com
  clientConfig:
    url: https://127.0.0.1:8443/validate
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["pods"]
  sideEffects: None
  admissionReviewVersions: ["v1"]
`

// Load reads a plugin's manifests directory as kube-apiserver does at
// startup. Files serves a fake file system here; the zero value reads the
// disk.
func ExampleLoad() {
	files := admissionmanifest.FilesOf(fstest.MapFS{
		"etc/kubernetes/validating/deny-latest.yaml": {Data: []byte(exampleWebhook)},
		"etc/kubernetes/validating/README.md":        {Data: []byte("not a manifest")},
	})
	m, err := admissionmanifest.Load(admissionmanifest.ValidatingAdmissionWebhook, "/etc/kubernetes/validating", admissionmanifest.LoadOptions{Files: files})
	if err != nil {
		fmt.Println(admissionmanifest.StartupError(admissionmanifest.ValidatingAdmissionWebhook, "/etc/kubernetes/validating", err))
		return
	}
	for _, w := range m.Webhooks() {
		fmt.Println(w.UID, *w.Validating.TimeoutSeconds, *w.Validating.FailurePolicy)
	}

	// A name without the reserved suffix stops kube-apiserver.
	files = admissionmanifest.FilesOf(fstest.MapFS{
		"etc/kubernetes/validating/hook.yaml": {Data: []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: deny-latest
`)},
	})
	_, err = admissionmanifest.Load(admissionmanifest.ValidatingAdmissionWebhook, "/etc/kubernetes/validating", admissionmanifest.LoadOptions{Files: files})
	fmt.Println(admissionmanifest.StartupError(admissionmanifest.ValidatingAdmissionWebhook, "/etc/kubernetes/validating", err))
	// Output:
	// manifest/deny-latest.static.k8s.io/deny-latest.example.com/0 10 Fail
	// failed to load static webhook manifests from "/etc/kubernetes/validating": error loading /etc/kubernetes/validating/hook.yaml: "deny-latest" in file "/etc/kubernetes/validating/hook.yaml" must have a name ending with ".static.k8s.io"
}

// A Watcher follows the directory: bad content is refused whole and the
// last good set stays in force; the metrics are kube-apiserver's.
func ExampleWatcher() {
	fsys := fstest.MapFS{"etc/kubernetes/validating/a.yaml": {Data: []byte(exampleWebhook)}}
	sink := metrics.NewMemory()
	w, err := admissionmanifest.NewWatcher(admissionmanifest.WatchOptions{
		Plugin: admissionmanifest.ValidatingAdmissionWebhook, Dir: "/etc/kubernetes/validating",
		Load:  admissionmanifest.LoadOptions{Files: admissionmanifest.FilesOf(fsys)},
		Clock: clocktesting.NewFakeClock(time.Unix(0, 0)), Metrics: sink, APIServerID: "kube-apiserver-1",
	})
	if err != nil {
		panic(err)
	}
	if err := w.LoadInitial(); err != nil {
		panic(err)
	}
	fmt.Println(w.HasSynced(), w.Manifests().Names())

	fsys["etc/kubernetes/validating/b.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: ConfigMap\n")}
	ev := w.Check() // Run does this every minute, or on Trigger
	fmt.Println(ev.Status, ev.Manifests.Names())

	delete(fsys, "etc/kubernetes/validating/b.yaml")
	delete(fsys, "etc/kubernetes/validating/a.yaml")
	fsys["etc/kubernetes/validating"] = &fstest.MapFile{Mode: fs.ModeDir}
	ev = w.Check()
	fmt.Println(ev.Status, ev.Manifests.Len())
	fmt.Print(sink.Text("apiserver_manifest_admission_config_controller_automatic_reloads_total"))
	// Output:
	// true [deny-latest.static.k8s.io]
	// failure [deny-latest.static.k8s.io]
	// success 0
	// # HELP apiserver_manifest_admission_config_controller_automatic_reloads_total [ALPHA] Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.
	// # TYPE apiserver_manifest_admission_config_controller_automatic_reloads_total counter
	// apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:b96f4cd9c86f8f86b6805029876bb28287616ad5de35959eb37ffc6e2aa36f2e",plugin="ValidatingAdmissionWebhook",status="failure"} 1
	// apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:b96f4cd9c86f8f86b6805029876bb28287616ad5de35959eb37ffc6e2aa36f2e",plugin="ValidatingAdmissionWebhook",status="success"} 2
}

// DecodePluginConfiguration reads a plugin's entry of an
// AdmissionConfiguration with kube-apiserver's checks.
func ExampleDecodePluginConfiguration() {
	files := admissionmanifest.FilesOf(fstest.MapFS{"etc/kubernetes/policies": {Mode: fs.ModeDir}})
	for _, data := range []string{
		"apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\nstaticManifestsDir: /etc/kubernetes/policies\n",
		"apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\nstaticManifestsDir: policies\n",
		"apiVersion: apiserver.config.k8s.io/v1\nkind: MutatingAdmissionPolicyConfiguration\n",
		"apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\nstaticManifestDir: /etc/kubernetes/policies\n",
	} {
		cfg, err := admissionmanifest.DecodePluginConfiguration(admissionmanifest.ValidatingAdmissionPolicy, []byte(data), admissionmanifest.ConfigOptions{Files: files})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(cfg.StaticManifestsDir)
	}
	// Output:
	// /etc/kubernetes/policies
	// staticManifestsDir: Invalid value: "policies": must be an absolute file path
	// unexpected type: *policyconfig.MutatingAdmissionPolicyConfiguration
	// strict decoding error: unknown field "staticManifestDir"
}
