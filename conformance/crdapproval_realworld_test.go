package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

// crdApprovalRealworldDir holds the published CRDs that the crdapproval
// package tests with kube-apiserver's verdicts (see SOURCES.md there).
const crdApprovalRealworldDir = "../crdapproval/testdata/realworld"

// kubeDecodedCRD is one CRD of a file as kube-apiserver decodes it.
type kubeDecodedCRD struct {
	apiVersion string
	internal   *apiextensions.CustomResourceDefinition
	v1         *apiextensionsv1.CustomResourceDefinition
}

// kubeDecodeCRDs splits a YAML or JSON stream as kubectl does and decodes
// each document with apiextensions-apiserver's scheme (strict, defaulted),
// into the internal type that validation takes and into v1, which the
// controller reads.
func kubeDecodeCRDs(data []byte) ([]kubeDecodedCRD, error) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	deserializer := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []kubeDecodedCRD
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if j, err := utilyaml.ToJSON(doc); err == nil && string(j) == "null" {
			continue // comments only
		}
		obj, gvk, err := deserializer.Decode(doc, nil, nil)
		if err != nil {
			return out, err
		}
		scheme.Default(obj)
		internal := &apiextensions.CustomResourceDefinition{}
		if err := scheme.Convert(obj, internal, nil); err != nil {
			return out, err
		}
		v1 := &apiextensionsv1.CustomResourceDefinition{}
		if err := scheme.Convert(internal, v1, nil); err != nil {
			return out, err
		}
		out = append(out, kubeDecodedCRD{apiVersion: gvk.GroupVersion().String(), internal: internal, v1: v1})
	}
}

// crdApprovalRealworldOtherErrors is the rest of kube-apiserver's verdict on
// the real-world CRDs: the errors of its validation on create other than the
// approval check, which crdapproval does not make. They come from the
// v1beta1 files only (converted as the 1.37 scheme converts them; 1.37 does
// not serve v1beta1). Keyed by file and 1-based CRD number.
var crdApprovalRealworldOtherErrors = map[string][]string{
	"kubernetes__autoscaler__vpa-v1-crd-v1beta1.yaml#1": {
		"spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root",
		"spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
	},
	"kubernetes__autoscaler__vpa-v1-crd-v1beta1.yaml#2": {
		"spec.versions[0].schema.openAPIV3Schema: Required value",
		"spec.versions[1].schema.openAPIV3Schema: Required value",
		"spec.versions[2].schema.openAPIV3Schema: Required value",
		"spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
	},
	"kubernetes__kubernetes__sample-controller-crd-scale-subresource-v1beta1.yaml#1": {
		"spec.versions[0].schema.openAPIV3Schema: Required value",
		"spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
	},
	"kubernetes__sample-controller__crd-v1beta1-sessionjobs.yaml#1": {
		"spec.versions[0].schema.openAPIV3Schema: Required value",
		"spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
	},
}

// TestCRDApprovalRealworldMatchesKube runs every real-world file through
// kube-apiserver's decoding, validation and controller, and through
// crdapproval, and compares: what is decoded, the approval errors on create,
// on an unchanged update and on the removal of the annotation, and the
// condition. The other errors of kube's validation must be those of
// crdApprovalRealworldOtherErrors.
func TestCRDApprovalRealworldMatchesKube(t *testing.T) {
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(crdApprovalRealworldDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	d := newDiffs(t)

	type controllerCase struct {
		what        string
		group       string
		annotations map[string]string
	}
	var controllerCases []controllerCase
	var controllerCRDs []*apiextensionsv1.CustomResourceDefinition

	for _, file := range files {
		name := filepath.Base(file)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		kube, err := kubeDecodeCRDs(data)
		require.NoError(t, err, name)
		ours, err := crdapproval.Decode(data)
		require.NoError(t, err, name)
		if len(ours) != len(kube) {
			d.add("%s: %d CRDs, kube %d", name, len(ours), len(kube))
			continue
		}
		for i, k := range kube {
			d.cases++
			o := ours[i]
			what := fmt.Sprintf("%s, CRD %d (%s)", name, i+1, o.Name)
			if o.APIVersion != k.apiVersion || o.Name != k.internal.Name || o.Group != k.internal.Spec.Group || fmt.Sprint(o.Annotations) != fmt.Sprint(k.internal.Annotations) {
				d.add("%s: decoded %s %s %s %v, kube %s %s %s %v", what, o.APIVersion, o.Name, o.Group, o.Annotations,
					k.apiVersion, k.internal.Name, k.internal.Spec.Group, k.internal.Annotations)
			}

			approval, others := splitApprovalErrors(validation.ValidateCustomResourceDefinition(ctx, k.internal))
			d.compareErrors(what+": create", crdapproval.ValidateCreate(o.Group, o.Annotations), approval)
			var otherTexts []string
			for _, e := range others {
				otherTexts = append(otherTexts, e.Error())
			}
			if want := crdApprovalRealworldOtherErrors[fmt.Sprintf("%s#%d", name, i+1)]; fmt.Sprintf("%q", otherTexts) != fmt.Sprintf("%q", want) {
				t.Errorf("%s: kube's other errors on create are %q, the table says %q", what, otherTexts, want)
			}

			old := k.internal.DeepCopy()
			old.ResourceVersion, k.internal.ResourceVersion = "1", "1"
			approval, _ = splitApprovalErrors(validation.ValidateCustomResourceDefinitionUpdate(ctx, k.internal, old))
			d.compareErrors(what+": unchanged update", crdapproval.ValidateUpdate(o.Group, o.Annotations, o.Annotations), approval)

			removed := k.internal.DeepCopy()
			delete(removed.Annotations, crdapproval.AnnotationKey)
			approval, _ = splitApprovalErrors(validation.ValidateCustomResourceDefinitionUpdate(ctx, removed, old))
			d.compareErrors(what+": annotation removed", crdapproval.ValidateUpdate(o.Group, removed.Annotations, o.Annotations), approval)

			crd := k.v1.DeepCopy()
			crd.Name = fmt.Sprintf("realworld-%03d", len(controllerCRDs))
			crd.Status.Conditions = nil
			controllerCRDs = append(controllerCRDs, crd)
			controllerCases = append(controllerCases, controllerCase{what, o.Group, o.Annotations})
		}
	}

	after, _ := runKubeApprovalController(t, controllerCRDs)
	for i, c := range controllerCases {
		d.compareCondition(c.what, c.group, c.annotations, after[controllerCRDs[i].Name])
	}
}

// crdApprovalTrickyDocs are documents that a YAML or JSON decoder may read
// in different ways.
func crdApprovalTrickyDocs() map[string]string {
	const head = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.x.k8s.io\n"
	const tail = "spec:\n  group: x.k8s.io\n"
	return map[string]string{
		"null value":               head + "  annotations:\n    api-approved.kubernetes.io:\n" + tail,
		"tilde value":              head + "  annotations:\n    api-approved.kubernetes.io: ~\n" + tail,
		"date value":               head + "  annotations:\n    api-approved.kubernetes.io: 2024-01-01\n" + tail,
		"yes value":                head + "  annotations:\n    api-approved.kubernetes.io: yes\n" + tail,
		"number value":             head + "  annotations:\n    api-approved.kubernetes.io: 1111\n" + tail,
		"float value":              head + "  annotations:\n    api-approved.kubernetes.io: 1.5\n" + tail,
		"list value":               head + "  annotations:\n    api-approved.kubernetes.io: [a]\n" + tail,
		"quoted key and value":     head + "  annotations:\n    \"api-approved.kubernetes.io\": \"unapproved\"\n" + tail,
		"single-quoted":            head + "  annotations:\n    'api-approved.kubernetes.io': 'https://github.com/x/y/pull/1'\n" + tail,
		"literal block":            head + "  annotations:\n    api-approved.kubernetes.io: |\n      https://github.com/x/y/pull/1\n" + tail,
		"stripped literal block":   head + "  annotations:\n    api-approved.kubernetes.io: |-\n      https://github.com/x/y/pull/1\n" + tail,
		"literal block at the end": head + "  annotations:\n    api-approved.kubernetes.io: |\n      https://github.com/x/y/pull/1",
		"folded block at the end":  head + "  annotations:\n    api-approved.kubernetes.io: >\n      0",
		"CRLF literal block":       strings.ReplaceAll(head+"  annotations:\n    api-approved.kubernetes.io: |\n      a\n      b\n"+tail, "\n", "\r\n"),
		"lone CR in quotes":        head + "  annotations:\n    api-approved.kubernetes.io: \"unapproved\rb\"\n" + tail,
		"folded block":             head + "  annotations:\n    api-approved.kubernetes.io: >\n      unapproved,\n      for now\n" + tail,
		"anchor and alias":         "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: &u unapproved\n  annotations:\n    api-approved.kubernetes.io: *u\n" + tail,
		"escapes":                  head + "  annotations:\n    api-approved.kubernetes.io: \"unapproved\\t\\u00e9\"\n" + tail,
		"duplicate annotation":     head + "  annotations:\n    api-approved.kubernetes.io: unapproved\n    api-approved.kubernetes.io: x\n" + tail,
		"annotations is a list":    head + "  annotations: []\n" + tail,
		"annotations is null":      head + "  annotations: null\n" + tail,
		"metadata is null":         "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: null\n" + tail,
		"group is a number":        head + "spec:\n  group: 1\n",
		"group is null":            head + "spec:\n  group: null\n",
		"flow style":               "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: a, annotations: {api-approved.kubernetes.io: unapproved}}, spec: {group: k8s.io}}\n",
		"byte order mark":          "\xef\xbb\xbf" + head + tail,
		"v1beta1":                  "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.x.k8s.io\n" + tail,
		"JSON":                     `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a","annotations":{"api-approved.kubernetes.io":"unapproved\u0041"}},"spec":{"group":"k8s.io"}}`,
		"JSON, tabs":               "{\n\t\"apiVersion\": \"apiextensions.k8s.io/v1\",\n\t\"kind\": \"CustomResourceDefinition\",\n\t\"metadata\": {\"annotations\": {\"api-approved.kubernetes.io\": null}},\n\t\"spec\": {\"group\": \"k8s.io\"}\n}",
		"JSON duplicate":           `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"annotations":{"api-approved.kubernetes.io":"a","api-approved.kubernetes.io":"b"}}}`,
		"JSON number value":        `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"annotations":{"api-approved.kubernetes.io":1}}}`,
	}
}

// TestCRDApprovalDecodeMatchesKube decodes tricky documents with
// crdapproval.Decode and with kube-apiserver's strict decoder, and compares
// whether each is accepted and what is read from it.
func TestCRDApprovalDecodeMatchesKube(t *testing.T) {
	docs := crdApprovalTrickyDocs()
	d := newDiffs(t)
	for _, name := range sortedKeys(func() map[string]bool {
		m := map[string]bool{}
		for k := range docs {
			m[k] = true
		}
		return m
	}()) {
		d.cases++
		doc := []byte(docs[name])
		kube, kubeErr := kubeDecodeCRDs(doc)
		ours, err := crdapproval.Decode(doc)
		switch {
		case err != nil && kubeErr != nil:
			t.Logf("%s: both reject: %v; kube: %v", name, err, kubeErr)
		case err != nil:
			d.add("%s: rejected (%v), kube accepts", name, err)
		case kubeErr != nil:
			d.add("%s: accepted, kube rejects (%v)", name, kubeErr)
		case len(ours) != 1 || len(kube) != 1:
			d.add("%s: %d CRDs, kube %d", name, len(ours), len(kube))
		default:
			o, k := ours[0], kube[0].internal
			if o.APIVersion != kube[0].apiVersion || o.Name != k.Name || o.Group != k.Spec.Group || fmt.Sprintf("%q", o.Annotations) != fmt.Sprintf("%q", k.Annotations) {
				d.add("%s: read %s %q %q %q, kube %s %q %q %q", name, o.APIVersion, o.Name, o.Group, o.Annotations, kube[0].apiVersion, k.Name, k.Spec.Group, k.Annotations)
			}
		}
	}
}

// FuzzCRDApprovalDecodeMatchesKube decodes arbitrary input with
// crdapproval.Decode and with kube-apiserver's strict decoder. Each rejects
// some inputs that the other accepts (crdapproval does not know the CRD
// schema, so an unknown field passes; kube's YAML reader drops text after a
// "..." marker), so only inputs that both accept are compared: the same CRDs,
// read the same, in the same approval state.
func FuzzCRDApprovalDecodeMatchesKube(f *testing.F) {
	for _, doc := range crdApprovalTrickyDocs() {
		f.Add([]byte(doc))
	}
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a\n---\napiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nspec:\n  group: k8s.io\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := crdapproval.Decode(data)
		if err != nil {
			return
		}
		kube, err := kubeDecodeCRDs(data)
		if err != nil {
			return
		}
		if len(ours) != len(kube) {
			t.Fatalf("%d CRDs, kube %d", len(ours), len(kube))
		}
		for i, k := range kube {
			o := ours[i]
			if o.APIVersion != k.apiVersion || o.Name != k.internal.Name || o.Group != k.internal.Spec.Group || fmt.Sprintf("%q", o.Annotations) != fmt.Sprintf("%q", k.internal.Annotations) {
				t.Fatalf("CRD %d: read %s %q %q %q, kube %s %q %q %q", i+1, o.APIVersion, o.Name, o.Group, o.Annotations,
					k.apiVersion, k.internal.Name, k.internal.Spec.Group, k.internal.Annotations)
			}
			want := crdapproval.NotRequired
			if apihelpers.IsProtectedCommunityGroup(k.internal.Spec.Group) {
				s, _ := apihelpers.GetAPIApprovalState(k.internal.Annotations)
				want = kubeState[s]
			}
			if got := crdapproval.StateOf(o.Group, o.Annotations); got != want {
				t.Fatalf("CRD %d: state %v, kube %v", i+1, got, want)
			}
		}
	})
}
