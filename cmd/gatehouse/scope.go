package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/servedresources"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// scopes knows which kinds are namespaced: the built-in kinds from the table
// of the resources kube-apiserver serves at the version a command answers
// as (--kube-version), custom kinds from the CRDs read.
// kubectl sends an object of a namespaced kind without metadata.namespace in
// its context's namespace, and kube-apiserver sets the object's namespace to
// the request's before admission; the commands do the same with
// -n/--namespace.
type scopes map[schema.GroupKind]bool

func newScopes(t kube.Target) scopes {
	s := scopes{}
	for _, r := range servedresources.For(t) {
		if r.Subresource == "" {
			s[schema.GroupKind{Group: r.KindGroup, Kind: r.Kind}] = r.Namespaced
		}
	}
	return s
}

// addCRD records the scope of a CustomResourceDefinition's kind; a document
// that is not one is ignored (readCRDs reports it).
func (s scopes) addCRD(doc []byte) {
	var crd struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind string `json:"kind"`
			} `json:"names"`
			Scope string `json:"scope"`
		} `json:"spec"`
	}
	if yaml.Unmarshal(doc, &crd) != nil || crd.Spec.Names.Kind == "" {
		return
	}
	s[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd.Spec.Scope != "Cluster"
}

// namespaced tells whether gvk's kind is namespaced, and whether the kind
// is known at all.
func (s scopes) namespaced(gvk schema.GroupVersionKind) (namespaced, known bool) {
	namespaced, known = s[gvk.GroupKind()]
	return namespaced, known
}

// clusterScoped is the scope params are looked up with: a kind not known is
// namespaced (say otherwise with a CRD).
func (s scopes) clusterScoped(gvk schema.GroupVersionKind) bool {
	namespaced, known := s.namespaced(gvk)
	return known && !namespaced
}

// inNamespace puts an object of a namespaced kind that has no namespace in
// ns, as kubectl and kube-apiserver do.
func (s scopes) inNamespace(obj *unstructured.Unstructured, ns string) {
	if obj == nil || obj.GetNamespace() != "" || ns == "" {
		return
	}
	if namespaced, _ := s.namespaced(obj.GroupVersionKind()); namespaced {
		obj.SetNamespace(ns)
	}
}

// configurationObjects splits admission policies, bindings and webhook
// configurations given as objects to admit from the objects. Those from a
// file also given as configuration (a GitOps directory passed to both) are
// dropped; the others are problems: kube-apiserver's policies and webhooks
// registered through the API never see requests on them, so admitting one
// would say "admitted unchanged" about a file the user meant as
// configuration (a flag takes one value: "--policies a.yaml b.yaml" leaves
// b.yaml an object).
func configurationObjects(objects []document, configFiles map[string]bool, flag string) ([]document, []string) {
	var kept []document
	var out []string
	for _, d := range objects {
		gvk := d.object.GroupVersionKind()
		f := flag
		switch {
		case gvk.Group != "admissionregistration.k8s.io":
			kept = append(kept, d)
			continue
		case gvk.Kind == "ValidatingAdmissionPolicy", gvk.Kind == "ValidatingAdmissionPolicyBinding", gvk.Kind == "MutatingAdmissionPolicy", gvk.Kind == "MutatingAdmissionPolicyBinding":
		case gvk.Kind == "ValidatingWebhookConfiguration", gvk.Kind == "MutatingWebhookConfiguration":
			f = "--webhooks"
		default:
			kept = append(kept, d)
			continue
		}
		if configFiles[d.file] {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s %s is admission configuration, not an object to admit: give its file to %s of gatehouse admit (%s a.yaml,b.yaml or %s a.yaml %s b.yaml: the flag takes one value)",
			d.at(), gvk.Kind, d.object.GetName(), f, f, f, f))
	}
	return kept, out
}
