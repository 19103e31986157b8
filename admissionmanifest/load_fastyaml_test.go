package admissionmanifest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFastDecodeAnswersForPlainManifests: the fast path takes the usual
// manifests, and gives what kube-apiserver's decoder gives.
func TestFastDecodeAnswersForPlainManifests(t *testing.T) {
	for _, doc := range []string{vwcA, vwcB, "---\n" + vwcA, `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: "m.static.k8s.io"
  labels:
    app.kubernetes.io/name: m   # a comment
    'quoted': 'it''s'
  annotations:
    note: 'say "hi" \ bye'
webhooks:
  - name: m.example.com
    clientConfig:
      url: https://m.example.com:8443/mutate?x=1
    rules:
      - apiGroups: [""]
        apiVersions: ["v1", v1beta1]
        operations: [CREATE, 'UPDATE']
        resources: []
        scope: "*"
    namespaceSelector: {}
    objectSelector:
    timeoutSeconds: 5
    sideEffects: None
    admissionReviewVersions:
    - v1
`} {
		fast := fastDecodeDocument([]byte(strings.TrimSpace(doc)))
		require.NotNil(t, fast, "the fast path should answer for:\n%s", doc)
		exact, err := decodeDocumentExact([]byte(strings.TrimSpace(doc)))
		require.NoError(t, err)
		assert.Equal(t, exact, fast)
	}
}

// TestFastDecodeGivesUp: whatever YAML could read otherwise goes to the
// exact decoder.
func TestFastDecodeGivesUp(t *testing.T) {
	head := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: a.static.k8s.io\n"
	for _, tail := range []string{
		"  labels: {on: x}\n",             // flow mapping
		"  labels:\n    on: x\n",          // a key YAML 1.1 reads as true
		"  labels:\n    a: yes\n",         // a value YAML 1.1 reads as true
		"  labels:\n    a: 012\n",         // octal
		"  labels:\n    a: 1.5\n",         // float
		"  labels:\n    a: 2001-12-14\n",  // timestamp
		"  labels:\n    a: \"\\u0041\"\n", // escapes
		"  labels:\n    a: &x b\n",        // anchor
		"  labels:\n    a: |\n      b\n",  // block scalar
		"  labels:\n    a: b\n    a: c\n", // duplicate key
		"  labels:\n    a: b\n      c\n",  // multi-line scalar
		"  labels:\n\ta: b\n",             // tab
		"  labels:\n    a: é\n",           // non-ASCII
		"  extra: 1\n",                    // unknown field: strict error
		"webhooks:\n- [a:b]\n",            // ':' in a flow scalar
	} {
		doc := head + tail
		assert.Nil(t, fastDecodeDocument([]byte(doc)), "%q", doc)
	}
	assert.Nil(t, fastDecodeDocument([]byte(`{"apiVersion":"v1","kind":"List"}`)))
	assert.Nil(t, fastDecodeDocument([]byte("apiVersion: v1\nkind: List\nitems: []\n")), "v1 Lists keep kube-apiserver's JSON items")
}

// FuzzFastDecode checks that wherever the fast path answers, kube-apiserver's
// decoder gives the same object and no error.
func FuzzFastDecode(f *testing.F) {
	for _, doc := range []string{vwcA, vwcB, "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  validations:\n  - expression: 'true'\n"} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		fast := fastDecodeDocument(doc)
		if fast == nil {
			return
		}
		exact, err := decodeDocumentExact(doc)
		if err != nil {
			t.Fatalf("the fast path decoded what kube-apiserver refuses (%v):\n%s", err, doc)
		}
		if !reflect.DeepEqual(exact, fast) {
			t.Fatalf("the fast path decoded differently:\n%s\nfast:  %#v\nexact: %#v", doc, fast, exact)
		}
	})
}
