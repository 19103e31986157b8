package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// TestMutationApplyRandomMatchesKube applies random patches to random
// objects of Pods, Deployments, Services, ConfigMaps and the Widget CRD with
// kube-apiserver's patchers and with gatehouse's: ApplyConfigurations that
// are random parts of another random object of the kind, and JSON patches
// of one to three random operations on the object's own paths. The
// outcomes must be the same. GATEHOUSE_APPLY_RANDOM sets the number of
// cases per kind and patch type (default 100).
func TestMutationApplyRandomMatchesKube(t *testing.T) {
	n := 100
	if v := os.Getenv("GATEHOUSE_APPLY_RANDOM"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err)
	}
	w := newApplyWorld(t, "../mutation/testdata/widget-crd.yaml")
	data, err := os.ReadFile("../mutation/testdata/widget-crd.yaml")
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(data, crd))
	widgetSchema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema

	var cases []applyCase
	for k, gvk := range []schema.GroupVersionKind{applyPodGVK, applyDeploymentGVK, applyServiceGVK, applyConfigMapGVK, applyWidgetGVK} {
		rng := rand.New(rand.NewSource(int64(k)))
		sample := func() map[string]any {
			if gvk == applyWidgetGVK {
				g := objectGenerator{rng: rng}
				o := g.root(widgetSchema, false)
				o["apiVersion"], o["kind"] = gvk.GroupVersion().String(), gvk.Kind
				return o
			}
			for {
				if o := sampleObject(gvk, builtinFiller(rng.Int63())); o != nil {
					if _, err := w.kubeObject(gvk, o); err == nil {
						return w.normalize(t, gvk, o)
					}
				}
			}
		}
		for i := range n {
			obj, src := sample(), sample()
			cases = append(cases,
				applyCase{name: fmt.Sprintf("%s/random%d/ac", gvk.Kind, i), gvk: gvk, object: obj, ac: prune(rng, src, 0)},
				applyCase{name: fmt.Sprintf("%s/random%d/jp", gvk.Kind, i), gvk: gvk, object: obj, jp: randomJSONPatch(rng, obj, src)})
		}
	}
	compareApply(t, w, cases, false)
}

// prune keeps a random part of v: each map key with probability 1/2 (the
// top level's apiVersion and kind are forced anyway), every list element.
func prune(rng *rand.Rand, v any, depth int) map[string]any {
	m, _ := prunedValue(rng, v, depth).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func prunedValue(rng *rand.Rand, v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for _, k := range applyKeys(v) {
			if depth > 0 && rng.Intn(2) == 0 {
				continue
			}
			if depth == 0 && (k == "apiVersion" || k == "kind" || rng.Intn(3) == 0) {
				continue
			}
			out[k] = prunedValue(rng, v[k], depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = prunedValue(rng, e, depth+1)
		}
		return out
	default:
		return v
	}
}

func applyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pointers lists the JSON pointers of every node of v, and the values.
func pointers(v any, prefix string, out *[]string, vals *[]any) {
	*out = append(*out, prefix)
	*vals = append(*vals, v)
	switch v := v.(type) {
	case map[string]any:
		for _, k := range applyKeys(v) {
			pointers(v[k], prefix+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k), out, vals)
		}
	case []any:
		for i, e := range v {
			pointers(e, prefix+"/"+strconv.Itoa(i), out, vals)
		}
	}
}

// randomJSONPatch writes one to three operations on obj's paths (and their
// neighbours), with values from src.
func randomJSONPatch(rng *rand.Rand, obj, src map[string]any) []byte {
	var paths, srcPaths []string
	var vals, srcVals []any
	pointers(obj, "", &paths, &vals)
	pointers(src, "", &srcPaths, &srcVals)
	path := func() string {
		i := rng.Intn(len(paths))
		p := paths[i]
		switch rng.Intn(8) {
		case 0:
			return p + "/new"
		case 1:
			return p + "/-"
		case 2:
			return p + "/0"
		case 3:
			return p + "/-1"
		case 4:
			return strings.TrimPrefix(p, "/")
		}
		return p
	}
	var ops []map[string]any
	for range 1 + rng.Intn(3) {
		op := map[string]any{"op": []string{"add", "remove", "replace", "move", "copy", "test", "test"}[rng.Intn(7)], "path": path()}
		switch op["op"] {
		case "add", "replace":
			j := rng.Intn(len(srcPaths))
			op["value"] = srcVals[j]
			if rng.Intn(3) == 0 {
				// the value of the same path in src, more likely to fit
				for k, p := range srcPaths {
					if p == op["path"] {
						op["value"] = srcVals[k]
					}
				}
			}
		case "move", "copy":
			op["from"] = paths[rng.Intn(len(paths))]
		case "test":
			i := rng.Intn(len(paths))
			op["path"] = paths[i]
			op["value"] = vals[i]
			if rng.Intn(3) == 0 {
				op["value"] = "other"
			}
		}
		ops = append(ops, op)
	}
	b, err := json.Marshal(ops)
	if err != nil {
		panic(err)
	}
	return b
}

// TestMutationApplyRealCRDsMatchKube applies random ApplyConfigurations and
// JSON patches to random objects of every version of the real-world CRDs of
// testdata/crds (the objects now and then with undeclared fields) with
// kube-apiserver's patchers and with gatehouse's: the outcomes must be the
// same.
func TestMutationApplyRealCRDsMatchKube(t *testing.T) {
	w := newApplyWorld(t)
	rng := rand.New(rand.NewSource(3))
	docs := crdDocuments(t)
	var cases []applyCase
	for _, name := range applyKeysOf(docs) {
		doc := docs[name]
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, yaml.Unmarshal(doc, &crd), name)
		if crd.APIVersion != "apiextensions.k8s.io/v1" || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		if crd.Spec.Names.ListKind == "" {
			crd.Spec.Names.ListKind = crd.Spec.Names.Kind + "List"
		}
		if _, err := w.schemas.Lookup(schema.GroupVersionKind{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name, Kind: crd.Spec.Names.Kind}); err == nil {
			crd.Spec.Group += ".crd.test" // a CRD of a built-in kind (kcp's RBAC)
			var err error
			doc, err = yaml.Marshal(&crd)
			require.NoError(t, err)
		}
		require.NoError(t, w.schemas.AddCRD(doc), name)
		for _, v := range crd.Spec.Versions {
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			w.kubeCRD[gvk] = kubeCRDConverterTB(t, &crd, v.Name)
			var props *apiextensionsv1.JSONSchemaProps
			if v.Schema != nil {
				props = v.Schema.OpenAPIV3Schema
			}
			g := objectGenerator{rng: rng}
			for i := range 20 {
				obj, src := g.root(props, i%5 == 4), g.root(props, i%7 == 6)
				for _, o := range []map[string]any{obj, src} {
					o["apiVersion"], o["kind"] = gvk.GroupVersion().String(), gvk.Kind
				}
				cases = append(cases,
					applyCase{name: fmt.Sprintf("%s/%s/%d/ac", name, v.Name, i), gvk: gvk, object: obj, ac: prune(rng, src, 0)},
					applyCase{name: fmt.Sprintf("%s/%s/%d/jp", name, v.Name, i), gvk: gvk, object: obj, jp: randomJSONPatch(rng, obj, src)})
			}
		}
	}
	compareApply(t, w, cases, false)
}

func applyKeysOf(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
