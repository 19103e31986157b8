package main

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// versionUse is an admission policy or binding written in an API version
// kube-apiserver does not serve by default.
type versionUse struct {
	apiVersion string
	serving    kubeversions.Serving
	what       string // kind, name and where
}

// apiVersionUses are the admission policies and bindings of an input written
// in an API version kube-apiserver t does not serve by default: gatehouse
// reads every version, the cluster does not.
func apiVersionUses(t kube.Target, in input) []versionUse {
	split, lines, err := splitDocumentLines(in.data)
	if err != nil {
		return nil
	}
	var out []versionUse
	for i, d := range split {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if yaml.Unmarshal(d, &head) != nil {
			continue
		}
		s, known := kubeversions.AdmissionPolicyServing(t, head.APIVersion, head.Kind)
		if !known || s == kubeversions.Served {
			continue
		}
		out = append(out, versionUse{apiVersion: head.APIVersion, serving: s, what: fmt.Sprintf("%s %s (%s:%d)", head.Kind, head.Metadata.Name, in.name, lines[i])})
	}
	return out
}

// apiVersionNotes are the notes of the uses, one per API version.
func apiVersionNotes(t kube.Target, uses []versionUse) []string {
	byVersion := map[string][]string{}
	serving := map[string]kubeversions.Serving{}
	var versions []string
	for _, u := range uses {
		if _, ok := byVersion[u.apiVersion]; !ok {
			versions = append(versions, u.apiVersion)
		}
		byVersion[u.apiVersion] = append(byVersion[u.apiVersion], u.what)
		serving[u.apiVersion] = u.serving
	}
	var out []string
	for _, v := range versions {
		what := strings.Join(byVersion[v], ", ")
		if serving[v] == kubeversions.NotServed {
			out = append(out, fmt.Sprintf("Kubernetes %s does not serve %s: kube-apiserver refuses to create %s (404); gatehouse reads them as v1", t.Version(), v, what))
			continue
		}
		out = append(out, fmt.Sprintf("Kubernetes %s serves %s only when enabled (kube-apiserver --runtime-config=%s=true), so a cluster with the default configuration refuses to create %s (404)", t.Version(), v, v, what))
	}
	return out
}

// paramNotes say which params kube-apiserver could not store: a ConfigMap
// (or Secret) whose data values are not all strings is refused by
// kube-apiserver's decoding ("cannot unmarshal number into Go struct field
// ConfigMap.data of type string"), so no policy could read it; gatehouse
// gives the policies the values as written.
func paramNotes(params []document) []string {
	var out []string
	for _, d := range params {
		o := d.object
		if o.GetAPIVersion() != "v1" || (o.GetKind() != "ConfigMap" && o.GetKind() != "Secret") {
			continue
		}
		for _, field := range []string{"data", "stringData", "binaryData"} {
			m, ok := o.Object[field].(map[string]any)
			if !ok {
				continue
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if _, isString := m[k].(string); isString || m[k] == nil {
					continue
				}
				out = append(out, fmt.Sprintf("%s: %s %s: %s.%s is %s, not a string: kube-apiserver refuses to store it (%s in version \"v1\" cannot be handled as a %s), so no policy could read it as a param; quote the value",
					d.at(), o.GetKind(), objectKey(o), field, k, jsonTypeOf(m[k]), o.GetKind(), o.GetKind()))
			}
		}
	}
	return out
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64, int64, int:
		return "a number"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}
