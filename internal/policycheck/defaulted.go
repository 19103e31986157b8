package policycheck

import (
	_ "embed"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultedTable lists the values kube-apiserver's defaulting functions set
// on the objects of built-in kinds (a Deployment's spec.replicas, a
// container's imagePullPolicy), generated from k8s.io/kubernetes v1.37.2
// (conformance/kubernetes TestDefaultedFieldsTable checks it is exactly
// what they set on a sparse object of each kind). kube-apiserver defaults
// objects when it decodes them, before admission: such fields are present.
//
//go:embed defaulted_fields.tsv
var defaultedTable string

// defaultedFields parses the table once: the paths of each kind.
var defaultedFields = sync.OnceValue(func() map[schema.GroupVersionKind][]string {
	out := map[schema.GroupVersionKind][]string{}
	for _, line := range strings.Split(defaultedTable, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			continue
		}
		gvk := schema.GroupVersionKind{Group: f[0], Version: f[1], Kind: f[2]}
		out[gvk] = append(out[gvk], f[3])
	}
	return out
})

// markDefaulted marks the defaulted fields of a built-in kind's schema
// present. A Go type's node is shared by the places it appears in the kind
// (a Container's fields in containers and initContainers), which the
// defaults treat alike.
func markDefaulted(n *Node, gvk schema.GroupVersionKind) {
	for _, p := range defaultedFields()[gvk] {
		cur := n
		segs := strings.Split(strings.ReplaceAll(strings.TrimPrefix(p, "."), "[*]", ".[*]"), ".")
		for i, s := range segs {
			if cur == nil {
				break
			}
			if s == "[*]" {
				if cur.Type != TypeList {
					break
				}
				cur = cur.Elem
				continue
			}
			f, ok := cur.Lookup(s)
			if !ok {
				break
			}
			if i == len(segs)-1 {
				f.Present = true
				break
			}
			cur = f.Node
		}
	}
}
