package typednormal

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// corpusObject is an object of a built-in kind read from a test corpus.
type corpusObject struct {
	file string
	gvk  schema.GroupVersionKind
	obj  map[string]any
}

// corpusRoots are the test corpora: the repository's YAML and JSON files,
// and the shared real-world manifests when present.
var corpusRoots = []string{"../..", "/work/shared/realworld"}

// builtinCorpus returns every object of a built-in kind in the corpora
// (the items of a List one by one), decoded as JSON is (int64 numbers).
func builtinCorpus(tb testing.TB, w *world) []corpusObject {
	tb.Helper()
	var objects []corpusObject
	for _, root := range corpusRoots {
		if _, err := os.Stat(root); err != nil {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if name := d.Name(); name == ".git" || name == "fuzz" || name == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			ext := filepath.Ext(path)
			if ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, obj := range decodeDocuments(data) {
				objects = appendBuiltin(objects, w, path, obj)
			}
			return nil
		})
		require.NoError(tb, err)
	}
	return objects
}

// decodeDocuments decodes the YAML or JSON documents of data that are
// objects; the others are skipped.
func decodeDocuments(data []byte) []map[string]any {
	var out []map[string]any
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return out
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			continue
		}
		var obj map[string]any
		if utiljson.Unmarshal(j, &obj) == nil && obj != nil {
			out = append(out, obj)
		}
	}
}

func appendBuiltin(objects []corpusObject, w *world, file string, obj map[string]any) []corpusObject {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if items, ok := obj["items"].([]any); ok && strings.HasSuffix(kind, "List") {
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				objects = appendBuiltin(objects, w, file, m)
			}
		}
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" {
		return objects
	}
	gvk := gv.WithKind(kind)
	if !w.scheme.Recognizes(gvk) {
		return objects
	}
	return append(objects, corpusObject{file: file, gvk: gvk, obj: obj})
}

// TestNormalizeCorpora runs every built-in object of the test corpora
// through the fast path and the exact round trip, and its normalized form
// again (what the next mutation of a chain normalizes). The fast path must
// handle them all: they are ordinary objects.
func TestNormalizeCorpora(t *testing.T) {
	w := newWorld(t)
	objects := builtinCorpus(t, w)
	require.NotEmpty(t, objects)
	kinds := map[schema.GroupVersionKind]bool{}
	declined := 0
	for _, o := range objects {
		kinds[o.gvk] = true
		if !w.agree(t, o.gvk, o.obj) {
			_, err := w.exact(o.gvk, o.obj)
			if err == nil {
				declined++
				t.Errorf("%s: %v declined, and the round trip succeeds", o.file, o.gvk)
			}
			continue
		}
		normalized, err := w.exact(o.gvk, o.obj)
		require.NoError(t, err)
		assert.True(t, w.agree(t, o.gvk, normalized), "%s: %v normalized declined", o.file, o.gvk)
		assert.True(t, w.agreeDecoded(t, o.gvk, o.obj), "%s: %v declined decoded", o.file, o.gvk)
		assert.True(t, w.agreeDecoded(t, o.gvk, normalized), "%s: %v normalized declined decoded", o.file, o.gvk)
	}
	t.Logf("%d objects of %d built-in kinds, %d declined", len(objects), len(kinds), declined)
}
