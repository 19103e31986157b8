package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// policyCheckCase is a policy file and the objects a test builds to show
// that kube-apiserver fails as the error findings of the check say.
type policyCheckCase struct {
	name string
	// doc holds policies and bindings, of one engine.
	doc string
	// errors is the number of error findings the check makes.
	errors int
	// kubeError is in kube-apiserver's error ("no such key" if empty).
	kubeError string
}

// checkDeployments are Deployments that kube-apiserver's admission sees:
// a bare one, with the values kube-apiserver's defaults set on it when it
// decodes it (the fields the policies read among those of
// internal/policycheck's defaulted_fields.tsv), and one with every field
// the policies read set.
func checkDeployments() []*appsv1.Deployment {
	bare := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
		}}},
	}
	full := bare.DeepCopy()
	full.Name = "full"
	full.Labels = map[string]string{"app": "x", "color": "red"}
	full.Spec.Replicas = ptr.To[int32](3)
	full.Spec.Paused = true
	full.Spec.MinReadySeconds = 5
	full.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(false)}
	return []*appsv1.Deployment{bare, full}
}

func checkNamespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
}

const checkVAPRule = `{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}`

func checkVAPDoc(failurePolicy, matchCondition string, validations ...string) string {
	doc := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  failurePolicy: " + failurePolicy +
		"\n  matchConstraints:\n    resourceRules: [" + checkVAPRule + "]\n"
	if matchCondition != "" {
		doc += "  matchConditions: [{name: m, expression: " + fmt.Sprintf("%q", matchCondition) + "}]\n"
	}
	doc += "  validations:\n"
	for _, v := range validations {
		doc += "  - expression: " + fmt.Sprintf("%q", v) + "\n"
	}
	return doc + "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationActions: [Deny]}\n"
}

func checkMAPDoc(failurePolicy, mutation string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  failurePolicy: " + failurePolicy +
		"\n  reinvocationPolicy: Never\n  matchConstraints:\n    resourceRules: [" + checkVAPRule + "]\n  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration: {expression: " + fmt.Sprintf("%q", mutation) + "}\n" +
		"---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p}\n"
}

func checkJSONPatchDoc(failurePolicy, patch string) string {
	return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  failurePolicy: " + failurePolicy +
		"\n  reinvocationPolicy: Never\n  matchConstraints:\n    resourceRules: [" + checkVAPRule + "]\n  mutations:\n  - patchType: JSONPatch\n    jsonPatch: {expression: " + fmt.Sprintf("%q", patch) + "}\n" +
		"---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p}\n"
}

// policyCheckCorpus: policies with and without error findings.
var policyCheckCorpus = []policyCheckCase{
	{"vap never-present field", checkVAPDoc("Fail", "", "object.replicas < 5"), 1, ""},
	{"vap never-present nested field", checkVAPDoc("Fail", "", "object.spec.template.spec.container.size() > 0"), 1, ""},
	{"vap never-present field in a later validation", checkVAPDoc("Fail", "", "true", "object.spec.replica < 5"), 1, ""},
	{"vap never-present field under ||", checkVAPDoc("Fail", "", "object.spec.paused || object.replicas < 5"), 0, ""},
	{"vap never-present field under Ignore", checkVAPDoc("Ignore", "", "object.replicas < 5"), 0, ""},
	{"vap never-present field after a match condition", checkVAPDoc("Fail", "object.metadata.name == 'd'", "object.replicas < 5"), 0, ""},
	{"vap defaulted field", checkVAPDoc("Fail", "", "object.spec.replicas < 5"), 0, ""},
	{"vap optional field", checkVAPDoc("Fail", "", "object.spec.minReadySeconds < 5"), 0, ""},
	{"vap guarded", checkVAPDoc("Fail", "", "!has(object.spec.replicas) || object.spec.replicas < 5"), 0, ""},
	{"map never-present field", checkMAPDoc("Fail", "Object{spec: Object.spec{replicas: object.spec.replica}}"), 1, ""},
	{"map never-present field under Ignore", checkMAPDoc("Ignore", "Object{spec: Object.spec{replicas: object.spec.replica}}"), 0, ""},
	{"map defaulted field", checkMAPDoc("Fail", "Object{spec: Object.spec{minReadySeconds: object.spec.replicas}}"), 0, ""},
	{"map optional field", checkMAPDoc("Fail", "Object{spec: Object.spec{paused: !object.spec.paused}}"), 0, ""},
	{"map atomic map", checkMAPDoc("Fail", `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`), 1, "may not mutate atomic arrays, maps or structs: .spec.selector"},
	{"map atomic list", checkMAPDoc("Fail", `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "c", args: ["x"]}]}}}}`), 1, "may not mutate atomic arrays, maps or structs: .spec.template.spec.containers[0].args"},
	{"map atomic map under Ignore", checkMAPDoc("Ignore", `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`), 0, ""},
	{"map granular map", checkMAPDoc("Fail", `Object{metadata: Object.metadata{labels: {"a": "b"}}}`), 0, ""},
	{"map undeclared field", checkMAPDoc("Fail", "Object{spec: Object.spec{replica: 3}}"), 1, ".spec.replica: field not declared in schema"},
	{"map wrong type", checkMAPDoc("Fail", `Object{spec: Object.spec{replicas: "3"}}`), 1, ".spec.replicas: expected numeric (int or float), got string"},
	{"map double for an int", checkMAPDoc("Fail", `Object{spec: Object.spec{replicas: 2.0}}`), 0, ""},
	{"jsonpatch unknown field", checkJSONPatchDoc("Fail", `[JSONPatch{op: "add", path: "/spec/bogus", value: 5}]`), 1, `strict decoding error: unknown field "spec.bogus"`},
	{"jsonpatch unknown field under Ignore", checkJSONPatchDoc("Ignore", `[JSONPatch{op: "add", path: "/spec/bogus", value: 5}]`), 1, `strict decoding error: unknown field "spec.bogus"`},
	{"jsonpatch wrong type", checkJSONPatchDoc("Fail", `[JSONPatch{op: "replace", path: "/spec/replicas", value: "3"}]`), 1, "cannot unmarshal string into Go struct field"},
	{"jsonpatch declared field", checkJSONPatchDoc("Fail", `[JSONPatch{op: "add", path: "/spec/minReadySeconds", value: 5}]`), 0, ""},
	{"jsonpatch unknown field after a test", checkJSONPatchDoc("Fail", `[JSONPatch{op: "test", path: "/spec/paused", value: true}, JSONPatch{op: "add", path: "/spec/bogus", value: 5}]`), 0, ""},
	{"map undeclared field in a branch", checkMAPDoc("Fail", "object.spec.paused ? Object{spec: Object.spec{replica: 3}} : Object{}"), 0, ""},
}

// TestCheckErrorsFailInKubeAPIServer: every policy on which the check
// makes an error finding fails in kube-apiserver's own dispatchers on
// every Deployment the test builds (a bare one, and one with every field
// the policies read set); the count of error findings is the one pinned.
func TestCheckErrorsFailInKubeAPIServer(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs"}}
	for _, c := range policyCheckCorpus {
		t.Run(c.name, func(t *testing.T) {
			errs := 0
			var kubeErrs []error
			if v, err := validatingpolicy.Decode([]byte(c.doc)); err == nil && len(v.Policies) > 0 {
				findings, err := validatingpolicy.Check(v, validatingpolicy.CheckOptions{})
				require.NoError(t, err)
				for _, f := range findings {
					if f.Severity == validatingpolicy.SeverityError {
						errs++
					}
				}
				kube := newKubeVAP(t, v.Policies, v.Bindings, false, checkNamespace())
				for _, d := range checkDeployments() {
					gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
					attrs := admission.NewAttributesRecord(d.DeepCopy(), nil, gvk, d.Namespace, d.Name, appsv1.SchemeGroupVersion.WithResource("deployments"), "", admission.Create, nil, false, alice)
					kubeErrs = append(kubeErrs, kube.validate(attrs).err)
				}
			} else {
				m, err := mutation.Decode([]byte(c.doc))
				require.NoError(t, err)
				findings, err := mutation.Check(m, mutation.CheckOptions{})
				require.NoError(t, err)
				for _, f := range findings {
					if f.Severity == mutation.SeverityError {
						errs++
					}
				}
				kube := newKubeMAP(t, m.Policies, m.Bindings, checkNamespace())
				for _, d := range checkDeployments() {
					gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
					var obj runtime.Object = d.DeepCopy()
					attrs := admission.NewAttributesRecord(obj, nil, gvk, d.Namespace, d.Name, appsv1.SchemeGroupVersion.WithResource("deployments"), "", admission.Create, nil, false, alice)
					kubeErrs = append(kubeErrs, kube.admit(context.Background(), attrs))
				}
			}
			assert.Equal(t, c.errors, errs, "error findings")
			if errs > 0 {
				for i, err := range kubeErrs {
					want := c.kubeError
					if want == "" {
						want = "no such key"
					}
					if assert.Error(t, err, "object %d: kube-apiserver admits it", i) {
						assert.Contains(t, err.Error(), want, "object %d", i)
					}
				}
			}
		})
	}
}
