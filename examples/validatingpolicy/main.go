// Command validatingpolicy validates requests with ValidatingAdmissionPolicies
// offline, as kube-apiserver 1.37 would: KEP-3488's use cases (policies.yaml)
// — a replica limit read from per-namespace params, denied in production and
// warned and audited elsewhere, and a required label with a message built
// from the object and an audit annotation — over a few Deployments and Pods.
// For each request it prints the verdict (or kube-apiserver's denial), the
// warnings, the audit annotations and the trace.
//
//	go run ./examples/validatingpolicy
package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"sort"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

//go:embed policies.yaml
var policies []byte

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// The cluster: two namespaces, and the replica limit of each.
var (
	namespaces = map[string]*corev1.Namespace{
		"shop":     {ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"environment": "production"}}},
		"sandbox":  {ObjectMeta: metav1.ObjectMeta{Name: "sandbox", Labels: map[string]string{"environment": "dev"}}},
		"kube-ops": {ObjectMeta: metav1.ObjectMeta{Name: "kube-ops"}},
	}
	params = []runtime.Object{
		limit("shop", "5"),
		limit("sandbox", "2"),
	}
)

func limit(namespace, max string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"maxReplicas": max}}}
	u.SetNamespace(namespace)
	u.SetName("replica-limit")
	u.SetLabels(map[string]string{"gatehouse.example/replica-limit": "true"})
	return u
}

func run(out io.Writer) error {
	objs, err := validatingpolicy.Decode(policies)
	if err != nil {
		return err
	}
	d, err := validatingpolicy.NewDispatcher(objs.Policies, objs.Bindings, validatingpolicy.Options{
		Params: validatingpolicy.NewParamObjects(nil, params...),
		Namespaces: validatingpolicy.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaces[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		}),
	})
	if err != nil {
		return err
	}
	requests := []*validatingpolicy.Request{
		deployment("shop", "web", 3),
		deployment("shop", "web", 8),
		deployment("sandbox", "web", 8),
		pod("sandbox", "debug", nil),
		pod("sandbox", "api", map[string]string{"team": "payments"}),
		pod("kube-ops", "agent", nil),
	}
	for _, req := range requests {
		res, trace, err := d.Explain(context.Background(), req)
		fmt.Fprintf(out, "== %s %s %s/%s\n", req.Operation, req.Kind.Kind, req.Namespace, req.Name)
		if err != nil {
			fmt.Fprintf(out, "denied: %v\n", err)
		} else {
			fmt.Fprintln(out, "admitted")
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(out, "warning: %s\n", w)
		}
		keys := make([]string, 0, len(res.AuditAnnotations))
		for k := range res.AuditAnnotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(out, "audit annotation %s: %s\n", k, res.AuditAnnotations[k])
		}
		fmt.Fprint(out, trace)
	}
	return nil
}

var alice = authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}

func deployment(namespace, name string, replicas int64) *validatingpolicy.Request {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": name, "image": "nginx"}}}}},
	}}
	return &validatingpolicy.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Name: name, Namespace: namespace, UserInfo: alice, Object: obj}
}

func pod(namespace, name string, labels map[string]string) *validatingpolicy.Request {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}
	obj.SetNamespace(namespace)
	obj.SetName(name)
	obj.SetLabels(labels)
	return &validatingpolicy.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: name, Namespace: namespace, UserInfo: alice, Object: obj}
}
