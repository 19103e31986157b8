package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

func TestPluginOfDocument(t *testing.T) {
	tests := []struct {
		doc  string
		want admissionmanifest.Plugin
	}{
		{"kind: ValidatingWebhookConfiguration", admissionmanifest.ValidatingAdmissionWebhook},
		{"kind: MutatingWebhookConfigurationList", admissionmanifest.MutatingAdmissionWebhook},
		{"kind: ValidatingAdmissionPolicyBinding", admissionmanifest.ValidatingAdmissionPolicy},
		{"kind: MutatingAdmissionPolicy", admissionmanifest.MutatingAdmissionPolicy},
		{"kind: List\nitems:\n- kind: ConfigMap\n- kind: MutatingAdmissionPolicyBinding", admissionmanifest.MutatingAdmissionPolicy},
		{"kind: AdmissionConfiguration", admissionConfiguration},
		{"kind: ConfigMap", ""},
		{"{", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pluginOfDocument([]byte(tt.doc)), tt.doc)
	}
}

// TestPluginOfFileAloneInItsDirectory: a file is checked alone, whatever
// else its directory holds.
func TestPluginOfFileAloneInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("kind: ValidatingWebhookConfiguration\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("kind: MutatingAdmissionPolicy\n"), 0o600))
	d, files, err := manifestsOf(filepath.Join(dir, "b.yaml"))
	require.NoError(t, err)
	p, err := pluginOf(d, files)
	require.NoError(t, err)
	assert.Equal(t, admissionmanifest.MutatingAdmissionPolicy, p)
	d, files, err = manifestsOf(dir)
	require.NoError(t, err)
	p, err = pluginOf(d, files)
	require.NoError(t, err)
	assert.Equal(t, admissionmanifest.ValidatingAdmissionWebhook, p)
}

func FuzzPluginOfDocument(f *testing.F) {
	f.Add([]byte("kind: List\nitems:\n- kind: MutatingAdmissionPolicy\n"))
	f.Add([]byte(`{"kind":"ValidatingWebhookConfiguration"}`))
	known := append(admissionmanifest.Plugins(), admissionConfiguration, "")
	f.Fuzz(func(t *testing.T, doc []byte) {
		if p := pluginOfDocument(doc); !slices.Contains(known, p) {
			t.Fatalf("pluginOfDocument(%q) = %q", doc, p)
		}
	})
}
