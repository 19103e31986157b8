// Command mutate applies MutatingAdmissionPolicies to manifests offline, as
// kube-apiserver 1.37 would admit them: it prints each object as admitted
// (or kube-apiserver's error) and the trace of what each policy, binding and
// mutation did.
//
//	go run ./examples/mutate -policies policies.yaml manifests.yaml...
//
// The policy file holds MutatingAdmissionPolicies and their bindings
// (admissionregistration.k8s.io v1, v1beta1 or v1alpha1: their fields are the
// same); a policy without a binding in the file is bound to every request.
// The manifests are created (operation CREATE) by the user "alice". Without
// arguments it runs the Kubernetes website's examples (testdata): the
// sidecar policies, whose ApplyConfiguration form kube-apiserver refuses
// (container args are an atomic list), and the Pod Security default label
// for new namespaces.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout))
}

// demo is what runs without arguments: policy file, manifests.
var demo = [][2]string{
	{"sidecar-applyconfiguration.yaml,sidecar-binding.yaml", "pods.yaml"},
	{"sidecar-jsonpatch.yaml,sidecar-binding.yaml", "pods.yaml"},
	{"pod-security-baseline.yaml", "namespaces.yaml"},
}

func run(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(out)
	policyFiles := fs.String("policies", "", "comma-separated files of MutatingAdmissionPolicies and bindings")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *policyFiles == "" && fs.NArg() == 0 {
		dir := "examples/mutate/testdata"
		if _, err := os.Stat(dir); err != nil {
			dir = "testdata"
		}
		status := 0
		for _, d := range demo {
			var files []string
			for _, f := range strings.Split(d[0], ",") {
				files = append(files, filepath.Join(dir, f))
			}
			fmt.Fprintf(out, "### policies %s, manifests %s\n\n", d[0], d[1])
			if s := mutate(files, []string{filepath.Join(dir, d[1])}, out); s != 0 {
				status = s
			}
		}
		return status
	}
	if *policyFiles == "" || fs.NArg() == 0 {
		fmt.Fprintln(out, "usage: mutate -policies FILE[,FILE...] MANIFEST...")
		return 2
	}
	return mutate(strings.Split(*policyFiles, ","), fs.Args(), out)
}

func mutate(policyFiles, manifests []string, out io.Writer) int {
	policies, bindings, err := readPolicies(policyFiles)
	if err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	d, err := mutation.NewDispatcher(policies, bindings, mutation.Options{
		// Every param kind is known (the website's sidecar policies name
		// a Sidecar kind their bindings never reference).
		Params: mutation.NewParamObjects(nil),
	})
	if err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	for _, file := range manifests {
		objects, err := readObjects(file)
		if err != nil {
			fmt.Fprintln(out, err)
			return 1
		}
		for _, obj := range objects {
			admit(d, obj, out)
		}
	}
	return 0
}

func admit(d *mutation.Dispatcher, obj *unstructured.Unstructured, out io.Writer) {
	gvk := obj.GroupVersionKind()
	namespace := obj.GetNamespace()
	if gvk.Group == "" && gvk.Kind == "Namespace" {
		namespace = obj.GetName()
	}
	req := &mutation.Request{
		Operation: admissionv1.Create,
		Kind:      gvk,
		Resource:  gvk.GroupVersion().WithResource(plural(gvk.Kind)),
		Name:      obj.GetName(),
		Namespace: namespace,
		UserInfo:  authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}},
		Object:    obj,
	}
	res, trace, err := d.Explain(context.Background(), req)
	fmt.Fprintf(out, "--- %s %s\n%s", gvk.Kind, obj.GetName(), trace)
	if err != nil {
		fmt.Fprintf(out, "denied: %v\n\n", err)
		return
	}
	if !res.Changed {
		fmt.Fprint(out, "unchanged\n\n")
		return
	}
	y, err := yaml.Marshal(res.Object.Object)
	if err != nil {
		fmt.Fprintln(out, err)
		return
	}
	fmt.Fprintf(out, "admitted as:\n%s\n", y)
}

// plural is the resource of the kinds the examples use.
func plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "s"):
		return k + "es"
	case strings.HasSuffix(k, "y"):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}

func readPolicies(files []string) ([]*admissionregistrationv1.MutatingAdmissionPolicy, []*admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
	var policies []*admissionregistrationv1.MutatingAdmissionPolicy
	var bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		objs, err := mutation.Decode(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		policies = append(policies, objs.Policies...)
		bindings = append(bindings, objs.Bindings...)
	}
	for _, p := range policies {
		bound := false
		for _, b := range bindings {
			bound = bound || b.Spec.PolicyName == p.Name
		}
		if !bound {
			bindings = append(bindings, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-binding"},
				Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: p.Name},
			})
		}
	}
	return policies, bindings, nil
}

// readObjects reads the YAML documents of a file.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		doc = bytes.TrimPrefix(bytes.TrimSpace(doc), []byte("---"))
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if u.Object == nil {
			continue
		}
		if u.GetKind() == "" {
			return nil, fmt.Errorf("%s: %w", file, errors.New("an object without kind"))
		}
		if u.GroupVersionKind().Group == "admissionregistration.k8s.io" {
			// Every version has v1's fields.
			u.SetAPIVersion(schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}.String())
		}
		out = append(out, u)
	}
	return out, nil
}
