package crdapproval

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must not panic, every CRD it
// returns must be well formed and survive a round trip, and every error must
// say where it is.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(realworldDir, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		// Large seeds make the fuzzer spend its time minimising them; the
		// large files are covered by TestRealworldCRDs.
		if len(data) <= 2<<10 {
			f.Add(data)
		}
	}
	for _, seed := range []string{
		"", "---\n", "null", "{}", "[]", "- a\n", "a: b\n...\nc: d\n", "--- |\n  x\n",
		crdYAML("a", "  annotations:\n    api-approved.kubernetes.io: unapproved\n"),
		crdYAML("a", "  annotations:\n    api-approved.kubernetes.io: 1\n"),
		crdYAML("a", "  annotations: {a: 1\n"),
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"annotations":{"api-approved.kubernetes.io":null}},"spec":{"group":"k8s.io"}} {"a":1}`,
		"a: &a [*a, *a]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		crds, err := Decode(data)
		if err == nil && len(crds) == 0 {
			t.Fatal("no CRD and no error")
		}
		if err != nil {
			for _, e := range errorList(err) {
				var de *DecodeError
				if !errors.As(e, &de) {
					t.Fatalf("error %q is not a *DecodeError", e)
				}
				if de.Document < 1 && !strings.Contains(de.Error(), "no document") {
					t.Fatalf("error %q has no document number", e)
				}
			}
		}
		last := 0
		for _, crd := range crds {
			if crd.APIVersion != APIVersionV1 && crd.APIVersion != APIVersionV1beta1 {
				t.Fatalf("CRD with apiVersion %q", crd.APIVersion)
			}
			if crd.Document <= last || crd.Line < 1 {
				t.Fatalf("CRD at document %d, line %d, after document %d", crd.Document, crd.Line, last)
			}
			last = crd.Document
			checkRoundTrip(t, crd)
			checkApproval(t, crd.Group, crd.Annotations[AnnotationKey], "")
		}
	})
}

// checkRoundTrip encodes the fields of crd as JSON and decodes them again.
func checkRoundTrip(t *testing.T, crd CRD) {
	t.Helper()
	obj := map[string]any{
		"apiVersion": crd.APIVersion,
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": crd.Name, "annotations": crd.Annotations},
		"spec":       map[string]any{"group": crd.Group},
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Decode(data)
	if err != nil {
		t.Fatalf("round trip of %+v: %v", crd, err)
	}
	// json.Marshal replaces invalid UTF-8 with U+FFFD, so such strings come
	// back changed; that is not the decoder's doing.
	if !validUTF8(crd) {
		return
	}
	want := crd
	want.Document, want.Line = 1, 1
	got := again[0]
	if got.APIVersion != want.APIVersion || got.Name != want.Name || got.Group != want.Group || !sameAnnotations(got.Annotations, want.Annotations) || got.Document != 1 || got.Line != 1 {
		t.Fatalf("round trip: got %+v, want %+v", got, want)
	}
}

func validUTF8(crd CRD) bool {
	ok := strings.ToValidUTF8(crd.Name, "\ufffd") == crd.Name && strings.ToValidUTF8(crd.Group, "\ufffd") == crd.Group
	for k, v := range crd.Annotations {
		ok = ok && strings.ToValidUTF8(k, "\ufffd") == k && strings.ToValidUTF8(v, "\ufffd") == v
	}
	return ok
}

func sameAnnotations(a, b map[string]string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func errorList(err error) []error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()
	}
	return []error{err}
}

// FuzzFromUnstructured decodes arbitrary JSON into unstructured content and
// reads a CRD from it: no panic, and what it returns is what the content
// holds.
func FuzzFromUnstructured(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a","annotations":{"api-approved.kubernetes.io":"unapproved"}},"spec":{"group":"k8s.io"}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"annotations":{"a":null,"b":1}},"spec":[]}`))
	f.Add([]byte(`{"apiVersion":1,"kind":"x","metadata":"y"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil {
			return
		}
		crd, err := FromUnstructured(obj)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Document != 0 || de.Line != 0 {
				t.Fatalf("error %v is not an unpositioned *DecodeError", err)
			}
			return
		}
		if obj["apiVersion"] != crd.APIVersion || obj["kind"] != "CustomResourceDefinition" {
			t.Fatalf("read %+v from %s", crd, data)
		}
		meta, _ := obj["metadata"].(map[string]any)
		if name, _ := meta["name"].(string); name != crd.Name {
			t.Fatalf("name %q, content has %q", crd.Name, name)
		}
		annotations, _ := meta["annotations"].(map[string]any)
		if len(annotations) != len(crd.Annotations) {
			t.Fatalf("annotations %v, content has %v", crd.Annotations, annotations)
		}
		for k, v := range annotations {
			if s, _ := v.(string); s != crd.Annotations[k] {
				t.Fatalf("annotation %q is %q, content has %v", k, crd.Annotations[k], v)
			}
		}
		spec, _ := obj["spec"].(map[string]any)
		if group, _ := spec["group"].(string); group != crd.Group {
			t.Fatalf("group %q, content has %q", crd.Group, group)
		}
	})
}

// FuzzApproval checks the approval functions against each other and against
// properties that follow from the rules, for arbitrary groups and values.
func FuzzApproval(f *testing.F) {
	for _, seed := range [][3]string{
		{"x.k8s.io", approvedURL, ""},
		{"k8s.io", "unapproved", approvedURL},
		{"kubernetes.io", "", "invalid"},
		{"x-k8s.io", "invalid", ""},
		{"sigs.k8s.io", " ", "https://"},
		{"a.kubernetes.io", "https://%zz", "unapprovedx"},
		{"K8S.IO", "http:///x", "foo://bar"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, group, value, oldValue string) {
		checkApproval(t, group, value, oldValue)
	})
}

// checkApproval checks the properties of the approval functions for a CRD of
// group whose annotation goes from oldValue to value.
func checkApproval(t *testing.T, group, value, oldValue string) {
	t.Helper()
	annotations := map[string]string{AnnotationKey: value}
	oldAnnotations := map[string]string{AnnotationKey: oldValue}
	protected := IsProtectedGroup(group)
	state := StateOf(group, annotations)
	// "." + group ends with ".k8s.io" exactly when group is k8s.io or one of
	// its subdomains.
	if protected != (strings.HasSuffix("."+group, ".k8s.io") || strings.HasSuffix("."+group, ".kubernetes.io")) {
		t.Fatalf("IsProtectedGroup(%q) = %v", group, protected)
	}
	if protected && !IsProtectedGroup("sub."+group) {
		t.Fatalf("%q is protected but not sub.%[1]q", group)
	}

	if !protected {
		if state != NotRequired || ValidateCreate(group, annotations) != nil || ValidateUpdate(group, annotations, oldAnnotations) != nil {
			t.Fatalf("unprotected %q is checked", group)
		}
		if _, ok := Condition(group, annotations); ok {
			t.Fatalf("unprotected %q has a condition", group)
		}
		return
	}

	switch state {
	case Missing:
		if value != "" {
			t.Fatalf("%q is Missing", value)
		}
	case Unapproved:
		if !strings.HasPrefix(value, "unapproved") {
			t.Fatalf("%q is Unapproved", value)
		}
	case Approved:
		if strings.HasPrefix(value, "unapproved") || !strings.Contains(value, "://") || strings.HasPrefix(value, "://") {
			t.Fatalf("%q is Approved", value)
		}
	case Invalid:
		if value == "" || strings.HasPrefix(value, "unapproved") {
			t.Fatalf("%q is Invalid", value)
		}
	default:
		t.Fatalf("protected group %q has state %v", group, state)
	}

	errs := ValidateCreate(group, annotations)
	switch state {
	case Missing:
		checkOneError(t, errs, field.ErrorTypeRequired, "", missingReason)
	case Invalid:
		checkOneError(t, errs, field.ErrorTypeInvalid, value, invalidReason)
	default:
		if errs != nil {
			t.Fatalf("%v %q: %v", state, value, errs)
		}
	}

	updateErrs := ValidateUpdate(group, annotations, oldAnnotations)
	if StateOf(group, oldAnnotations) == state {
		if updateErrs != nil {
			t.Fatalf("%q -> %q keeps the state but fails: %v", oldValue, value, updateErrs)
		}
	} else if rendered(updateErrs) != rendered(errs) {
		t.Fatalf("%q -> %q: update %v, create %v", oldValue, value, updateErrs, errs)
	}

	c, ok := Condition(group, annotations)
	if !ok || c.Type != ConditionType {
		t.Fatalf("no %s condition for %q", ConditionType, group)
	}
	if (c.Status == metav1.ConditionTrue) != (state == Approved) || (c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse) {
		t.Fatalf("%v: status %s", state, c.Status)
	}
	switch state {
	case Approved:
		if c.Reason != ReasonApproved || c.Message != "approved in "+value {
			t.Fatalf("condition %+v", c)
		}
	case Unapproved:
		quoted, found := strings.CutPrefix(c.Message, "not approved: ")
		unquoted, err := strconv.Unquote(quoted)
		if c.Reason != ReasonUnapproved || !found || err != nil || (unquoted != value && strings.ToValidUTF8(value, "\ufffd") == value) {
			t.Fatalf("condition %+v", c)
		}
	default:
		wantReason := map[State]string{Missing: ReasonMissing, Invalid: ReasonInvalid}[state]
		if c.Reason != wantReason || c.Message != errs[0].Detail {
			t.Fatalf("condition %+v, errors %v", c, errs)
		}
	}
}

func checkOneError(t *testing.T, errs field.ErrorList, typ field.ErrorType, badValue, detail string) {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("%d errors: %v", len(errs), errs)
	}
	e := errs[0]
	if e.Type != typ || e.Field != "metadata.annotations[api-approved.kubernetes.io]" || e.BadValue != badValue || e.Detail != detail {
		t.Fatalf("error %#v", e)
	}
}
