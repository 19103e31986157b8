package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// staticPolicies are the chain_test policies, renamed as static manifests
// must be.
func staticPolicies(policies string) string {
	return strings.NewReplacer("name: add-team}", "name: add-team.static.k8s.io}", "policyName: add-team}", "policyName: add-team.static.k8s.io}",
		"name: require-team}", "name: require-team.static.k8s.io}", "policyName: require-team\n", "policyName: require-team.static.k8s.io\n").Replace(policies)
}

func TestReloader(t *testing.T) {
	fsys := fstest.MapFS{
		"etc/admission.yaml": {Data: []byte(`
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: /etc/mutating
`)},
		"etc/mutating/team.yaml":   {Data: []byte(staticPolicies(labelPolicies))},
		"etc/mutating/README":      {Data: []byte("not a manifest: skipped, and the directory stays when team.yaml goes")},
		"etc/validating/team.yaml": {Data: []byte(staticPolicies(requirePolicies))},
	}
	files := admissionmanifest.FilesOf(fsys)
	sink := metrics.NewMemory()
	var events []admissionmanifest.ReloadEvent
	r, err := NewReloader(ReloaderOptions{
		AdmissionConfiguration: "/etc/admission.yaml",
		Dirs:                   map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: "/etc/validating"},
		Files:                  files, Metrics: sink, APIServerID: "test",
		OnReload: func(ev admissionmanifest.ReloadEvent) { events = append(events, ev) },
	})
	require.NoError(t, err)

	admit := func() (Result, error) {
		return r.Chain().Admit(context.Background(), podRequest(admissionv1.Create, nil))
	}
	res, err := admit()
	require.NoError(t, err)
	assert.Equal(t, "unknown", res.Object.GetLabels()["team"], "the mutating policy of the configuration's directory")
	assert.Equal(t, []string{"Validation failed for ValidatingAdmissionPolicy 'require-team.static.k8s.io' with binding 'require-team.static.k8s.io': team unknown"},
		res.Warnings, "the validating policy of Dirs")

	// The binding now denies: the new content is in force after a check.
	fsys["etc/validating/team.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(staticPolicies(requirePolicies), "[Warn]", "[Deny]", 1))}
	assert.Empty(t, r.Check()[1:], "the mutating directory did not change")
	require.Len(t, events, 1)
	assert.Equal(t, "success", events[0].Status)
	assert.Equal(t, admissionmanifest.ValidatingAdmissionPolicy, events[0].Plugin)
	_, err = admit()
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "team unknown")

	// Content that does not load leaves the last good content in force.
	fsys["etc/mutating/team.yaml"] = &fstest.MapFile{Data: []byte("kind: [")}
	r.Check()
	require.Len(t, events, 2)
	assert.Equal(t, "failure", events[1].Status)
	assert.Equal(t, admissionmanifest.MutatingAdmissionPolicy, events[1].Plugin)
	_, err = admit()
	assert.ErrorContains(t, err, "team unknown", "the mutating policy still labels the pod")

	// Removing the file removes its policies.
	delete(fsys, "etc/mutating/team.yaml")
	r.Check()
	require.Len(t, events, 3)
	assert.Equal(t, "success", events[2].Status)
	_, err = admit()
	assert.ErrorContains(t, err, "no such key: labels", "nothing labels the pod any more")
	res, err = r.Chain().Admit(context.Background(), podRequest(admissionv1.Create, map[string]string{"team": "a"}))
	require.NoError(t, err)
	assert.False(t, res.Changed)

	assert.Contains(t, sink.Text(), "apiserver_manifest_admission_config_controller_automatic_reloads_total")
}

func TestReloaderStartup(t *testing.T) {
	fsys := fstest.MapFS{
		"etc/bad/a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")},
		"etc/empty":      {Mode: 0o755 | 1<<31},
	}
	files := admissionmanifest.FilesOf(fsys)
	_, err := NewReloader(ReloaderOptions{Files: files})
	assert.EqualError(t, err, "no static manifests directory to follow")

	_, err = NewReloader(ReloaderOptions{Files: files, Dirs: map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: "/etc/bad"}})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `failed to load static policy manifests from "/etc/bad": error loading /etc/bad/a.yaml: `), "%v", err)

	r, err := NewReloader(ReloaderOptions{Files: files, Dirs: map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionWebhook: "/etc/empty"}})
	require.NoError(t, err, "an empty directory holds nothing")
	res, err := r.Chain().Admit(context.Background(), podRequest(admissionv1.Create, nil))
	require.NoError(t, err)
	assert.False(t, res.Changed)
}

// TestReloaderServesDuringReloads admits requests from several goroutines
// while the directory changes back and forth: every request sees one whole
// chain, the old or the new (run with -race).
func TestReloaderServesDuringReloads(t *testing.T) {
	warn := staticPolicies(requirePolicies)
	deny := strings.Replace(warn, "[Warn]", "[Deny]", 1)
	fsys := fstest.MapFS{"etc/validating/team.yaml": {Data: []byte(warn)}}
	r, err := NewReloader(ReloaderOptions{Files: admissionmanifest.FilesOf(fsys),
		Dirs: map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: "/etc/validating"}})
	require.NoError(t, err)

	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				res, err := r.Chain().Admit(context.Background(), podRequest(admissionv1.Create, map[string]string{"team": "unknown"}))
				// Warned or denied, never both nor neither.
				if (err == nil) == (len(res.Warnings) == 0) {
					errs <- fmt.Errorf("warnings %v with error %v", res.Warnings, err)
					return
				}
			}
		}()
	}
	for i := range 20 {
		content := warn
		if i%2 == 0 {
			content = deny
		}
		// MapFS is read by the check only, under the watcher's lock.
		fsys["etc/validating/team.yaml"] = &fstest.MapFile{Data: []byte(content)}
		r.Check()
	}
	close(done)
	for range 4 {
		require.NoError(t, <-errs)
	}
}
