package main

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
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

// paramNotes say which params kube-apiserver could not store (storable):
// no policy could read them as params. gatehouse gives the policies the
// values as written; a Kyverno suite, which expects kube-apiserver's
// verdict, drops them (runKyvernoTest).
func paramNotes(schemas *mutation.Schemas, params []document) []string {
	var out []string
	for _, d := range params {
		if err := storable(schemas, d.object); err != nil {
			out = append(out, fmt.Sprintf("%s: %v, so no policy could read it as a param (quote the values of a ConfigMap's data)", d.at(), err))
		}
	}
	return out
}

// storable is nil when kube-apiserver can hold o: an object of a built-in
// kind must convert to its Go type.
func storable(schemas *mutation.Schemas, o *unstructured.Unstructured) error {
	_, err := schemas.Normalize(o.Object, o.GroupVersionKind())
	if err == nil {
		return nil
	}
	// kube-apiserver's words for the kinds params mostly are.
	var typed any
	switch o.GroupVersionKind() {
	case corev1.SchemeGroupVersion.WithKind("ConfigMap"):
		typed = &corev1.ConfigMap{}
	case corev1.SchemeGroupVersion.WithKind("Secret"):
		typed = &corev1.Secret{}
	}
	if typed != nil {
		data, _ := json.Marshal(o.Object)
		if jerr := json.Unmarshal(data, typed); jerr != nil {
			err = jerr
		}
	}
	name := o.GetName()
	if o.GetNamespace() != "" {
		name = o.GetNamespace() + "/" + name
	}
	return fmt.Errorf("kube-apiserver refuses to store %s %s (%s in version %q cannot be handled as a %s: %v)", o.GetKind(), name, o.GetKind(), o.GroupVersionKind().Version, o.GetKind(), err)
}
