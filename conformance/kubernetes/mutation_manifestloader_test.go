package kubernetes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	policymanifest "k8s.io/kubernetes/pkg/admission/plugin/policy/manifest/loader"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// admissionmanifest.Load of MutatingAdmissionPolicy directories against
// kube-apiserver 1.37.2's own loader (LoadMutatingManifestsFromDirectory:
// decoding, defaults, ValidateMutatingAdmissionPolicy(+Binding), then the
// loader's checks), on the real-world files as published and made static
// (names suffixed with .static.k8s.io, paramKind and paramRef removed).

func kubeMutatingManifestLoad(t testing.TB, dir string) loaderResult {
	r, err := policymanifest.LoadMutatingManifestsFromDirectory(dir)
	if err != nil {
		return loaderResult{Err: err.Error()}
	}
	return loaderResult{Hash: r.Hash, Objects: loaderJSON(t, r.Policies, r.Bindings)}
}

func gatehouseMutatingManifestLoad(t testing.TB, dir string) loaderResult {
	m, err := admissionmanifest.Load(admissionmanifest.MutatingAdmissionPolicy, dir, admissionmanifest.LoadOptions{})
	if err != nil {
		return loaderResult{Err: err.Error()}
	}
	return loaderResult{Hash: m.Hash(), Objects: loaderJSON(t, m.MutatingAdmissionPolicies(), m.MutatingAdmissionPolicyBindings())}
}

// mvStatic makes a real-world file's policies and bindings static: v1,
// names suffixed with .static.k8s.io, no paramKind nor paramRef; other
// documents are dropped.
func mvStatic(t testing.TB, data []byte) string {
	var out []string
	for _, doc := range strings.Split(string(data), "\n---") {
		var obj map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &obj))
		kind, _ := obj["kind"].(string)
		if !strings.HasPrefix(kind, "MutatingAdmissionPolicy") {
			continue
		}
		obj["apiVersion"] = "admissionregistration.k8s.io/v1"
		if meta, ok := obj["metadata"].(map[string]any); ok {
			meta["name"] = fmt.Sprint(meta["name"]) + ".static.k8s.io"
		}
		if spec, ok := obj["spec"].(map[string]any); ok {
			delete(spec, "paramKind")
			delete(spec, "paramRef")
			if n, ok := spec["policyName"].(string); ok {
				spec["policyName"] = n + ".static.k8s.io"
			}
		}
		y, err := yaml.Marshal(obj)
		require.NoError(t, err)
		out = append(out, string(y))
	}
	return strings.Join(out, "---\n")
}

func TestMutationManifestLoaderMatchesKubeAPIServer(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(mvRealworldDir, "*.yaml"))
	require.NoError(t, err)
	var cases, loaded, skipped int
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, variant := range []string{string(data), mvStatic(t, data)} {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(variant), 0o644))
			want, got := kubeMutatingManifestLoad(t, dir), gatehouseMutatingManifestLoad(t, dir)
			if !mvExpressionsChecked && strings.Contains(want.Err, ".expression: Invalid value") {
				skipped++
				continue
			}
			cases++
			if want.Err == "" {
				loaded++
			}
			assert.Equal(t, want, got, "%s", filepath.Base(f))
		}
	}
	t.Logf("%d real-world files as published and made static: %d cases, %d loaded, %d with expression errors not compared", len(files), cases, loaded, skipped)
	assert.Positive(t, loaded)
}
