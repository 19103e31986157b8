package conformance

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	manifestmetrics "k8s.io/apiserver/pkg/admission/plugin/manifest/metrics"
	policysource "k8s.io/apiserver/pkg/admission/plugin/policy/manifest/source"
	webhooksource "k8s.io/apiserver/pkg/admission/plugin/webhook/manifest/source"
	"k8s.io/component-base/metrics/legacyregistry"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// reloadSource is kube-apiserver's static source of one plugin, driven one
// check at a time: RunReloadLoop with a context already done runs exactly
// one checkAndReload (WatchUntil checks once when its watch is
// registered, then returns).
type reloadSource struct {
	loadInitial func() error
	check       func()
	current     func() []string
}

func (k *kubeManifests) reloadSource(plugin admissionmanifest.Plugin, dir, id string, compileFails func(name string) bool) reloadSource {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	switch plugin {
	case admissionmanifest.ValidatingAdmissionWebhook:
		src := webhooksource.NewValidatingSource(dir, id, webhooksource.ValidatingWebhookLoadFunc(k.loadVWC))
		return reloadSource{src.LoadInitial, func() { src.RunReloadLoop(done) }, func() []string {
			var out []string
			for _, a := range src.Webhooks() {
				out = append(out, a.GetUID())
			}
			return out
		}}
	case admissionmanifest.MutatingAdmissionWebhook:
		src := webhooksource.NewMutatingSource(dir, id, webhooksource.MutatingWebhookLoadFunc(k.loadMWC))
		return reloadSource{src.LoadInitial, func() { src.RunReloadLoop(done) }, func() []string {
			var out []string
			for _, a := range src.Webhooks() {
				out = append(out, a.GetUID())
			}
			return out
		}}
	default:
		src := policysource.NewStaticPolicySource(dir, id,
			func(p *admissionregistrationv1.ValidatingAdmissionPolicy) (nopEvaluator, error) {
				if compileFails(p.Name) {
					return nopEvaluator{}, errors.New("compilation failed")
				}
				return nopEvaluator{}, nil
			},
			policysource.PolicyLoadFunc[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding](k.loadVAP),
			func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName },
			manifestmetrics.VAPManifestType)
		return reloadSource{src.LoadInitial, func() { src.RunReloadLoop(done) }, func() []string {
			var out []string
			for _, h := range src.Hooks() {
				out = append(out, h.Policy.Name)
				for _, b := range h.Bindings {
					out = append(out, "binding "+b.Name)
				}
			}
			return out
		}}
	}
}

// gatehouseCurrent is reloadSource.current on gatehouse's side.
func gatehouseCurrent(m *admissionmanifest.Manifests) []string {
	var out []string
	for _, w := range m.Webhooks() {
		out = append(out, w.UID)
	}
	bindings := m.ValidatingAdmissionPolicyBindings()
	for _, p := range m.ValidatingAdmissionPolicies() {
		out = append(out, p.Name)
		for _, b := range bindings {
			if b.Spec.PolicyName == p.Name {
				out = append(out, "binding "+b.Name)
			}
		}
	}
	return out
}

// kubeReloadMetrics reads kube-apiserver's reload metrics of one plugin and
// apiserver from its process-wide registry: successes, failures, and the
// hash of its last_config_info series.
func kubeReloadMetrics(t testing.TB, plugin admissionmanifest.Plugin, idHash string) (ok, failed float64, info string) {
	families, err := legacyregistry.DefaultGatherer.Gather()
	require.NoError(t, err)
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	info = "<none>"
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if label(m, "plugin") != string(plugin) || label(m, "apiserver_id_hash") != idHash {
				continue
			}
			switch f.GetName() {
			case "apiserver_manifest_admission_config_controller_automatic_reloads_total":
				if label(m, "status") == "success" {
					ok = m.GetCounter().GetValue()
				} else {
					failed = m.GetCounter().GetValue()
				}
			case "apiserver_manifest_admission_config_controller_last_config_info":
				info = label(m, "hash")
			}
		}
	}
	return ok, failed, info
}

// replaceDir makes dir hold exactly the files of d.
func replaceDir(t testing.TB, dir string, d manifestDir) {
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, e.Name())))
	}
	require.NoError(t, d.write(dir))
}

// TestAdmissionManifestReloadMatchesKubeAPIServer runs random sequences of
// directory contents (loadable, not loadable, failing at the second stage
// (policy compilation), unchanged, back to an earlier one, empty) through
// kube-apiserver's static sources and gatehouse's Watcher, one check per
// step: after each, the same content in force (webhook UIDs, or policies
// with their bindings), the same success and failure counts and the same
// last_config_info hash.
func TestAdmissionManifestReloadMatchesKubeAPIServer(t *testing.T) {
	k := newKubeManifests(t)
	g := manifestGen{r: rand.New(rand.NewSource(1872))}
	plugins := []admissionmanifest.Plugin{admissionmanifest.ValidatingAdmissionWebhook, admissionmanifest.MutatingAdmissionWebhook, admissionmanifest.ValidatingAdmissionPolicy}
	compileFails := func(name string) bool { return name == "c.static.k8s.io" }

	// A pool of contents per plugin, sorted by what the loader says.
	type pool struct{ good, bad []manifestDir }
	pools := map[admissionmanifest.Plugin]*pool{}
	scratch := t.TempDir()
	for _, p := range plugins {
		pl := &pool{good: []manifestDir{{}}}
		for len(pl.good) < 12 || len(pl.bad) < 12 {
			d := g.dir(string(p))
			dir, err := os.MkdirTemp(scratch, "")
			require.NoError(t, err)
			require.NoError(t, d.write(dir))
			if _, err := admissionmanifest.Load(p, dir, admissionmanifest.LoadOptions{}); err == nil {
				pl.good = append(pl.good, d)
			} else {
				pl.bad = append(pl.bad, d)
			}
		}
		pools[p] = pl
	}

	const sequences, steps = 60, 8
	var checks, reloads, failures, secondStage int
	for s := range sequences {
		plugin := plugins[s%len(plugins)]
		pl := pools[plugin]
		dir := t.TempDir()
		id := fmt.Sprintf("apiserver-%d-%d", s, time.Now().UnixNano())
		idHash := fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(id)))
		replaceDir(t, dir, pl.good[g.r.Intn(len(pl.good))])

		kube := k.reloadSource(plugin, dir, id, compileFails)
		sink := metrics.NewMemory()
		w, err := admissionmanifest.NewWatcher(admissionmanifest.WatchOptions{
			Plugin: plugin, Dir: dir, APIServerID: id, Metrics: sink, Clock: clocktesting.NewFakeClock(time.Unix(0, 0)),
			Check: func(m *admissionmanifest.Manifests) error {
				for _, p := range m.ValidatingAdmissionPolicies() {
					if compileFails(p.Name) {
						return fmt.Errorf("failed to compile policy %q: compilation failed", p.Name)
					}
				}
				return nil
			},
		})
		require.NoError(t, err)
		kubeErr, ourErr := kube.loadInitial(), w.LoadInitial()
		if kubeErr != nil || ourErr != nil {
			require.Error(t, kubeErr)
			require.Error(t, ourErr)
			assert.Equal(t, kubeErr.Error(), ourErr.Error())
			continue
		}
		var history []manifestDir
		for step := range steps {
			var d manifestDir
			switch r := g.r.Intn(10); {
			case r < 4:
				d = pl.good[g.r.Intn(len(pl.good))]
			case r < 7:
				d = pl.bad[g.r.Intn(len(pl.bad))]
			case r < 9 && len(history) > 0:
				d = history[g.r.Intn(len(history))]
			default:
				d = manifestDir{}
			}
			history = append(history, d)
			replaceDir(t, dir, d)
			kube.check()
			ev := w.Check()
			checks++
			if ev != nil && ev.Status == "success" {
				reloads++
			} else if ev != nil {
				failures++
				if strings.HasPrefix(ev.Err.Error(), "failed to compile policy") {
					secondStage++
				}
			}
			kubeOK, kubeFailed, kubeInfo := kubeReloadMetrics(t, plugin, idHash)
			ours := []any{
				sink.Value(metrics.ManifestAdmissionConfigReloads, "success", string(plugin), idHash),
				sink.Value(metrics.ManifestAdmissionConfigReloads, "failure", string(plugin), idHash),
			}
			info := "<none>"
			for _, series := range sink.Series(metrics.ManifestAdmissionConfigInfo) {
				if series[0] == string(plugin) && series[1] == idHash {
					info = series[2]
				}
			}
			if !assert.Equal(t, []any{kubeOK, kubeFailed, kubeInfo, kube.current()}, append(ours, info, gatehouseCurrent(w.Manifests())),
				"sequence %d step %d (%s): %v", s, step, plugin, d) {
				break
			}
		}
	}
	t.Logf("%d sequences, %d checks: %d reloads, %d failures (%d at the second stage), %d without change", sequences, checks, reloads, failures, secondStage, checks-reloads-failures)
	assert.Positive(t, secondStage)
	assert.Greater(t, reloads, checks/5)
	assert.Greater(t, failures, checks/5)
	assert.Greater(t, checks-reloads-failures, checks/20)
}
