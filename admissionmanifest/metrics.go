package admissionmanifest

import (
	"time"

	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// reloadMetrics records a plugin's reloads in kube-apiserver's
// apiserver_manifest_admission_config_controller_* metrics, series bound
// ahead of time.
type reloadMetrics struct {
	sink                     metrics.Sink
	clock                    clock.PassiveClock
	plugin, idHash           string
	reloadsOK, reloadsFailed metrics.Series
	lastOK, lastFailed       metrics.Series
}

func newReloadMetrics(sink metrics.Sink, c clock.PassiveClock, plugin Plugin, apiServerID string) *reloadMetrics {
	sink = metrics.OrNoop(sink)
	m := &reloadMetrics{sink: sink, clock: c, plugin: string(plugin), idHash: idHash(apiServerID)}
	m.reloadsOK = metrics.NewSeries(sink, metrics.ManifestAdmissionConfigReloads, "success", m.plugin, m.idHash)
	m.reloadsFailed = metrics.NewSeries(sink, metrics.ManifestAdmissionConfigReloads, "failure", m.plugin, m.idHash)
	m.lastOK = metrics.NewSeries(sink, metrics.ManifestAdmissionConfigReloadTimestamp, "success", m.plugin, m.idHash)
	m.lastFailed = metrics.NewSeries(sink, metrics.ManifestAdmissionConfigReloadTimestamp, "failure", m.plugin, m.idHash)
	return m
}

// success is kube-apiserver's RecordAutomaticReloadSuccess: the counter,
// the timestamp, and the hash in force, which kube-apiserver exposes only
// when the apiserver has an ID.
func (m *reloadMetrics) success(hash string) {
	m.reloadsOK.Add(1)
	m.lastOK.Set(unixSeconds(m.clock.Now()))
	if m.idHash != "" {
		m.sink.Set(metrics.ManifestAdmissionConfigInfo, 1, m.plugin, m.idHash, hash)
	}
}

// failure is kube-apiserver's RecordAutomaticReloadFailure.
func (m *reloadMetrics) failure() {
	m.reloadsFailed.Add(1)
	m.lastFailed.Set(unixSeconds(m.clock.Now()))
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
