package crdapproval

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crdYAML is a v1 CRD of group x.k8s.io whose metadata holds the given YAML
// lines (indented by four spaces under metadata).
func crdYAML(name, metadata string) string {
	return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + name + "\n" + metadata + "spec:\n  group: x.k8s.io\n"
}

func TestDecode(t *testing.T) {
	approvedAnn := "  annotations:\n    api-approved.kubernetes.io: " + approvedURL + "\n"
	crd := func(doc, line int, name string, annotations map[string]string) CRD {
		return CRD{APIVersion: APIVersionV1, Name: name, Group: "x.k8s.io", Annotations: annotations, Document: doc, Line: line}
	}
	approved := map[string]string{AnnotationKey: approvedURL}

	tests := []struct {
		name     string
		input    string
		want     []CRD
		wantErrs []string // the texts of the joined errors, in order
	}{
		{
			name:  "one YAML document",
			input: crdYAML("a", approvedAnn),
			want:  []CRD{crd(1, 1, "a", approved)},
		},
		{
			name:  "no annotations",
			input: crdYAML("a", ""),
			want:  []CRD{crd(1, 1, "a", nil)},
		},
		{
			name:  "quoted key and value, as in sample-controller",
			input: crdYAML("a", "  annotations:\n    \"api-approved.kubernetes.io\": \"unapproved, experimental-only\"\n"),
			want:  []CRD{crd(1, 1, "a", map[string]string{AnnotationKey: "unapproved, experimental-only"})},
		},
		{
			name:  "a key without a value is null, which decodes as empty",
			input: crdYAML("a", "  annotations:\n    api-approved.kubernetes.io:\n"),
			want:  []CRD{crd(1, 1, "a", map[string]string{AnnotationKey: ""})},
		},
		{
			name:  "a date stays a string",
			input: crdYAML("a", "  annotations:\n    api-approved.kubernetes.io: 2024-01-01\n"),
			want:  []CRD{crd(1, 1, "a", map[string]string{AnnotationKey: "2024-01-01"})},
		},
		{
			name: "several documents, with a leading separator, comments and empty documents",
			input: "# a comment\n---\n" + crdYAML("a", approvedAnn) + "---\n---   # nothing here\n\n# only a comment\n---\n" +
				crdYAML("b", "") + "--- # a comment after the separator\n" + crdYAML("c", approvedAnn) + "---\n",
			want: []CRD{crd(1, 3, "a", approved), crd(2, 16, "b", nil), crd(3, 23, "c", approved)},
		},
		{
			name:  "CRLF line endings",
			input: strings.ReplaceAll(crdYAML("a", approvedAnn)+"---\n"+crdYAML("b", ""), "\n", "\r\n"),
			want:  []CRD{crd(1, 1, "a", approved), crd(2, 10, "b", nil)},
		},
		{
			name:  "a document end marker followed by a separator",
			input: crdYAML("a", "") + "...\n# fine\n---\n" + crdYAML("b", ""),
			want:  []CRD{crd(1, 1, "a", nil), crd(2, 10, "b", nil)},
		},
		{
			name:  "a byte order mark",
			input: "\xef\xbb\xbf" + crdYAML("a", ""),
			want:  []CRD{crd(1, 1, "a", nil)},
		},
		{
			name:  "anchors and aliases",
			input: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: &n foos.x.k8s.io\n  annotations:\n    api-approved.kubernetes.io: *n\nspec:\n  group: x.k8s.io\n",
			want:  []CRD{crd(1, 1, "foos.x.k8s.io", map[string]string{AnnotationKey: "foos.x.k8s.io"})},
		},
		{
			name:  "field names are case-sensitive",
			input: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nMetadata:\n  name: a\nSpec:\n  group: x.k8s.io\n",
			want:  []CRD{{APIVersion: APIVersionV1, Document: 1, Line: 1}},
		},
		{
			name:  "one JSON object",
			input: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a","annotations":{"api-approved.kubernetes.io":"` + approvedURL + `"}},"spec":{"group":"x.k8s.io"}}`,
			want:  []CRD{crd(1, 1, "a", approved)},
		},
		{
			name: "a JSON stream, indented with tabs, with a null",
			input: "\n  {\n\t\"apiVersion\": \"apiextensions.k8s.io/v1\",\n\t\"kind\": \"CustomResourceDefinition\",\n\t\"metadata\": {\"name\": \"a\"},\n\t\"spec\": {\"group\": \"x.k8s.io\"}\n}\nnull\n" +
				`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"b"},"spec":{"group":"x.k8s.io"}}`,
			want: []CRD{crd(1, 2, "a", nil), {APIVersion: APIVersionV1beta1, Name: "b", Group: "x.k8s.io", Document: 2, Line: 9}},
		},

		// Bad documents: the good ones are still returned.
		{
			name:     "another kind among CRDs",
			input:    crdYAML("a", "") + "---\napiVersion: v1\nkind: ConfigMap\n---\n" + crdYAML("c", ""),
			want:     []CRD{crd(1, 1, "a", nil), crd(3, 11, "c", nil)},
			wantErrs: []string{`document 2 (line 8): not a CustomResourceDefinition of apiextensions.k8s.io/v1 or v1beta1: apiVersion "v1", kind "ConfigMap"`},
		},
		{
			name:     "a List",
			input:    "apiVersion: v1\nkind: List\nitems: []\n",
			wantErrs: []string{`document 1 (line 1): not a CustomResourceDefinition of apiextensions.k8s.io/v1 or v1beta1: apiVersion "v1", kind "List"`},
		},
		{
			name:     "a YAML syntax error, with the line in the whole input",
			input:    crdYAML("a", "") + "---\n" + "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations: {a: 1\n",
			want:     []CRD{crd(1, 1, "a", nil)},
			wantErrs: []string{"document 2 (line 8): invalid YAML: yaml: line 11: did not find expected ',' or '}'"},
		},
		{
			name:     "a duplicate key in YAML",
			input:    crdYAML("a", "  annotations:\n    api-approved.kubernetes.io: unapproved\n    api-approved.kubernetes.io: "+approvedURL+"\n"),
			wantErrs: []string{"document 1 (line 1): invalid YAML: yaml: unmarshal errors:\n  line 7: key \"api-approved.kubernetes.io\" already set in map"},
		},
		{
			name:     "a duplicate key in JSON",
			input:    `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"annotations":{"api-approved.kubernetes.io":"unapproved","api-approved.kubernetes.io":"x"}}}`,
			wantErrs: []string{`document 1 (line 1): duplicate field "metadata.annotations.api-approved.kubernetes.io"`},
		},
		{
			name:     "a YAML boolean as the value",
			input:    crdYAML("a", "  annotations:\n    api-approved.kubernetes.io: yes\n"),
			wantErrs: []string{"document 1 (line 1): metadata.annotations[api-approved.kubernetes.io]: must be a string, not a boolean (true)"},
		},
		{
			name:     "a number as the value",
			input:    crdYAML("a", "  annotations:\n    api-approved.kubernetes.io: 1111\n"),
			wantErrs: []string{"document 1 (line 1): metadata.annotations[api-approved.kubernetes.io]: must be a string, not a number (1111)"},
		},
		{
			name:     "text after a separator",
			input:    crdYAML("a", "") + "--- |\n  text\n---\n" + crdYAML("b", ""),
			want:     []CRD{crd(1, 1, "a", nil), crd(3, 10, "b", nil)},
			wantErrs: []string{`document 2 (line 7): a "---" document separator must stand alone on its line (a comment may follow it)`},
		},
		{
			name:     "content after a document end marker",
			input:    crdYAML("a", "") + "...\n" + crdYAML("b", ""),
			wantErrs: []string{`document 1 (line 1): line 8: content after the "..." document end marker, before the next "---"`},
		},
		{
			name:     "non-objects",
			input:    "- a\n---\nhello\n---\n[{}]\n---\n12\n",
			wantErrs: []string{"document 1 (line 1): must be an object, not an array", "document 2 (line 3): must be an object, not a string", "document 3 (line 5): must be an object, not an array", "document 4 (line 7): must be an object, not a number (12)"},
		},
		{
			name:  "JSON after white space that JSON does not allow",
			input: "\u00a0\f\n" + `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}`,
			want:  []CRD{{APIVersion: APIVersionV1, Document: 1, Line: 2}},
		},
		{
			name:     "a JSON syntax error after white space",
			input:    "\u00a0\n{\n\"a\" 1}",
			wantErrs: []string{"document 1: invalid JSON at line 3, column 5: invalid character '1' after object key"},
		},
		{
			name:     "a JSON syntax error stops the stream",
			input:    `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}` + "\n{\"a\": }\n" + `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}`,
			want:     []CRD{{APIVersion: APIVersionV1, Document: 1, Line: 1}},
			wantErrs: []string{"document 2: invalid JSON at line 2, column 7: invalid character '}' looking for beginning of value"},
		},
		{
			name:     "JSON followed by YAML",
			input:    `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}` + "\n---\n",
			want:     []CRD{{APIVersion: APIVersionV1, Document: 1, Line: 1}},
			wantErrs: []string{"document 2: invalid JSON at line 2, column 2: invalid character '-' in numeric literal"},
		},
		{
			name:     "a truncated JSON object",
			input:    `{"apiVersion":"apiextensions.k8s.io/v1"`,
			wantErrs: []string{"document 1: unexpected EOF"},
		},

		// Nothing to decode.
		{name: "empty input", input: "", wantErrs: []string{"no CustomResourceDefinition: the input holds no document"}},
		{name: "blanks", input: " \n\t\r\n", wantErrs: []string{"no CustomResourceDefinition: the input holds no document"}},
		{name: "comments and separators", input: "# a\n---\n# b\n---\n", wantErrs: []string{"no CustomResourceDefinition: the input holds no document"}},
		{name: "YAML nulls", input: "~\n---\nnull\n", wantErrs: []string{"no CustomResourceDefinition: the input holds no document"}},
		{name: "a JSON null", input: "null", wantErrs: []string{"no CustomResourceDefinition: the input holds no document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.input))
			assert.Equal(t, tt.want, got)
			if len(tt.wantErrs) == 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.wantErrs, errorTexts(err))
			var de *DecodeError
			assert.True(t, errors.As(err, &de), "errors.As finds a *DecodeError")
		})
	}
}

// errorTexts returns the texts of the errors that err joins, or of err alone.
func errorTexts(err error) []string {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var texts []string
		for _, e := range joined.Unwrap() {
			texts = append(texts, e.Error())
		}
		return texts
	}
	return []string{err.Error()}
}

func TestDecodeErrorsArePositioned(t *testing.T) {
	_, err := Decode([]byte(crdYAML("a", "") + "---\napiVersion: v1\nkind: ConfigMap\n"))
	var de *DecodeError
	require.True(t, errors.As(err, &de))
	assert.Equal(t, DecodeError{Document: 2, Line: 8, Err: de.Err}, *de)
}

// TestDecodeLinesAsKubectl checks that lines reach the YAML parser as
// kubectl's document reader passes them on.
func TestDecodeLinesAsKubectl(t *testing.T) {
	const head = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n"
	tests := []struct {
		name, input, want string
	}{
		{"a literal block at the end without a newline", head + "    api-approved.kubernetes.io: |\n      https://x.io/1", "https://x.io/1\n"},
		{"a folded block at the end without a newline", head + "    api-approved.kubernetes.io: >\n      unapproved", "unapproved\n"},
		{"a stripped block at the end without a newline", head + "    api-approved.kubernetes.io: |-\n      https://x.io/1", "https://x.io/1"},
		{"a literal block before a separator", head + "    api-approved.kubernetes.io: |\n      https://x.io/1\n---\n", "https://x.io/1\n"},
		{"CRLF in a literal block", strings.ReplaceAll(head+"    api-approved.kubernetes.io: |\n      a\n      b\n", "\n", "\r\n"), "a\nb\n"},
		{"a lone CR is a line break to YAML", head + "    api-approved.kubernetes.io: \"a\rb\"\n", "a b"},
		{"a plain value at the end without a newline", head + "    api-approved.kubernetes.io: https://x.io/1", "https://x.io/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crds, err := Decode([]byte(tt.input))
			require.NoError(t, err)
			require.Len(t, crds, 1)
			assert.Equal(t, tt.want, crds[0].Annotations[AnnotationKey])
		})
	}
}
