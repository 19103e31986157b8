package conformance

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	gadmission "github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// parallelWorld is the admission chain of BenchmarkAdmissionChainParallel:
// a MutatingAdmissionPolicy that stamps pods with a label, then a
// ValidatingAdmissionPolicy with ConfigMap params (each namespace's
// "limits") that checks the stamp and the number of containers.
var parallelWorld = mdWorld{
	name: "parallel",
	policies: `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: stamp}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"admitted": "true"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: stamp}
spec: {policyName: stamp}
`,
	objects: `
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {team: b}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: team-a}
data: {maxContainers: "2"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: team-b}
data: {maxContainers: "3"}
`,
}

const parallelVAPs = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: limits}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "object.spec.containers.size() <= int(params.data.maxContainers)"
    messageExpression: "'at most ' + params.data.maxContainers + ' containers'"
  - expression: "has(object.metadata.labels) && object.metadata.labels.admitted == 'true'"
    message: not stamped
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: limits}
spec:
  policyName: limits
  validationActions: [Deny]
  paramRef: {name: limits, parameterNotFoundAction: Deny}
`

// parallelPods are the pods the parallel benchmark creates, in turn: two
// namespaces, one or two containers, with and without labels; every one
// is admitted.
func parallelPods(t testing.TB) []runtime.Object {
	var pods []runtime.Object
	for i := range 8 {
		ns := []string{"team-a", "team-b"}[i%2]
		doc := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d, namespace: %s, labels: {app: a%d}}\nspec:\n  containers:\n  - {name: app, image: app:1}\n", i, ns, i%3)
		if i%4 < 2 {
			doc += "  - {name: sidecar, image: sidecar:1}\n"
		}
		pods = append(pods, mdTyped(t, doc))
	}
	return pods
}

// BenchmarkAdmissionChainParallel admits pods from a small set through the
// chain of a MutatingAdmissionPolicy and a ValidatingAdmissionPolicy with
// params, from b.RunParallel's goroutines (GOMAXPROCS of them: run with
// -cpu 1,2,4,8): kube-apiserver's two plugins composed as the differential
// tests compose them (TestAdmissionChainMatchesKubeAPIServer), against
// gatehouse's admission.Chain. Each request is kube-apiserver's typed Pod
// (copied, as its mutations change it in place) or gatehouse's unstructured
// one (converted once, as a caller holding unstructured objects would).
//
//	go test -run '^$' -bench 'Parallel' -cpu 1,2,4,8 -benchmem -count 6 . > parallel.txt
//	benchstat -col /impl parallel.txt
func BenchmarkAdmissionChainParallel(b *testing.B) {
	vaps, err := validatingpolicy.Decode([]byte(parallelVAPs))
	if err != nil {
		b.Fatal(err)
	}
	policies, bindings, objects := mdLoad(b, &parallelWorld)
	kube := &kubeChain{mutating: newKubeMAP(b, policies, bindings, objects...), validating: newKubeVAP(b, vaps.Policies, vaps.Bindings, false, objects...)}
	ours := newChain(b, policies, bindings, vaps, objects)

	pods := parallelPods(b)
	type request struct {
		typed runtime.Object
		gvk   schema.GroupVersionKind
		gvr   schema.GroupVersionResource
		name  string
		ns    string
		u     *unstructured.Unstructured
	}
	reqs := make([]request, len(pods))
	for i, p := range pods {
		gvk := p.GetObjectKind().GroupVersionKind()
		u := mdUnstructured(b, p)
		reqs[i] = request{typed: p, gvk: gvk, gvr: gvk.GroupVersion().WithResource("pods"), name: u.GetName(), ns: u.GetNamespace(), u: u}
	}
	alice := &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs"}}
	kubeAdmit := func(r *request) chainOutcome {
		attrs := admission.NewAttributesRecord(r.typed.DeepCopyObject(), nil, r.gvk, r.ns, r.name, r.gvr, "", admission.Create, nil, false, alice)
		return kube.admit(attrs, r.gvk)
	}
	ctx := context.Background()
	ourAdmit := func(r *request) (gadmission.Result, error) {
		return ours.Admit(ctx, &gadmission.Request{Operation: admissionv1.Create, Kind: r.gvk, Resource: r.gvr, Name: r.name, Namespace: r.ns,
			UserInfo: authenticationv1.UserInfo{Username: "alice", UID: "u1", Groups: []string{"devs"}}, Object: r.u})
	}
	// Both admit every pod, stamped; both deny a pod over its namespace's
	// limit with the same status.
	for i := range reqs {
		r := &reqs[i]
		want := kubeAdmit(r)
		res, err := ourAdmit(r)
		if want.err != nil || err != nil {
			b.Fatalf("%s: kube-apiserver %v, gatehouse %v", r.name, want.err, err)
		}
		if want.object["metadata"].(map[string]any)["labels"].(map[string]any)["admitted"] != "true" || res.Object.GetLabels()["admitted"] != "true" {
			b.Fatalf("%s: not stamped", r.name)
		}
	}
	over := mdTyped(b, "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: team-a}\nspec:\n  containers:\n  - {name: a, image: a:1}\n  - {name: b, image: b:1}\n  - {name: c, image: c:1}\n")
	overReq := request{typed: over, gvk: reqs[0].gvk, gvr: reqs[0].gvr, name: "big", ns: "team-a", u: mdUnstructured(b, over)}
	want := kubeAdmit(&overReq)
	_, err = ourAdmit(&overReq)
	ws, wok := want.err.(*apierrors.StatusError)
	gs, gok := err.(*apierrors.StatusError)
	if !wok || !gok || ws.ErrStatus.Message != gs.ErrStatus.Message {
		b.Fatalf("denial: kube-apiserver %v, gatehouse %v", want.err, err)
	}

	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if out := kubeAdmit(&reqs[i%len(reqs)]); out.err != nil {
					b.Error(out.err)
					return
				}
			}
		})
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if _, err := ourAdmit(&reqs[i%len(reqs)]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
