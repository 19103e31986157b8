package admissionmanifest

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const vwcA = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: a.static.k8s.io
webhooks:
- name: a.example.com
  clientConfig:
    url: https://a.example.com/validate
  sideEffects: None
  admissionReviewVersions: ["v1"]
`

const vwcB = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: b.static.k8s.io
webhooks:
- name: b.example.com
  clientConfig:
    url: https://b.example.com/validate
  sideEffects: None
  admissionReviewVersions: ["v1"]
- name: b2.example.com
  clientConfig:
    url: https://b.example.com/again
  sideEffects: None
  admissionReviewVersions: ["v1"]
`

func dirFiles(files map[string]string) Files {
	m := fstest.MapFS{"etc/manifests": &fstest.MapFile{Mode: fs.ModeDir}}
	for name, content := range files {
		m["etc/manifests/"+name] = &fstest.MapFile{Data: []byte(content)}
	}
	return FilesOf(m)
}

func TestLoadWebhookDirectory(t *testing.T) {
	files := dirFiles(map[string]string{
		"2-b.YML":          vwcB,
		"1-a.yaml":         vwcA,
		"empty.yaml":       "",
		"notes.txt":        "not a manifest",
		"sub/c.yaml":       "garbage: [",
		".hidden.json":     `{"apiVersion":"v1","kind":"List","items":[]}`,
		"3-separators.yml": "\n\n---\n\n",
	})
	m, err := Load(ValidatingAdmissionWebhook, "/etc/manifests", LoadOptions{Files: files})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.static.k8s.io", "b.static.k8s.io"}, m.Names())
	var uids []string
	for _, w := range m.Webhooks() {
		uids = append(uids, w.UID)
	}
	assert.Equal(t, []string{
		"manifest/a.static.k8s.io/a.example.com/0",
		"manifest/b.static.k8s.io/b.example.com/0",
		"manifest/b.static.k8s.io/b2.example.com/0",
	}, uids)
	// The hash covers the files read, in name order, empty ones excluded.
	h := newContentHash()
	for _, c := range []string{`{"apiVersion":"v1","kind":"List","items":[]}`, vwcA, vwcB, "\n\n---\n\n"} {
		h.add([]byte(c))
	}
	assert.Equal(t, h.String(), m.Hash())
	first := m.ValidatingWebhookConfigurations()[0]
	assert.Empty(t, first.Kind, "no apiVersion and kind, as after kube-apiserver's round trip")
	require.NotNil(t, first.Webhooks[0].TimeoutSeconds, "the v1 defaults are applied")
	assert.Equal(t, int32(10), *first.Webhooks[0].TimeoutSeconds)
}

func TestLoadErrors(t *testing.T) {
	noSuffix := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: plain
`
	service := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: s.static.k8s.io
webhooks:
- name: s.example.com
  clientConfig:
    service: {name: s, namespace: ns}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`
	noURL := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: s.static.k8s.io
webhooks:
- name: s.example.com
  clientConfig:
    url: ""
`
	tests := []struct {
		name   string
		plugin Plugin
		files  map[string]string
		want   string
	}{
		{"no suffix", ValidatingAdmissionWebhook, map[string]string{"a.yaml": noSuffix},
			`error loading /etc/manifests/a.yaml: "plain" in file "/etc/manifests/a.yaml" must have a name ending with ".static.k8s.io"`},
		{"duplicate across files", ValidatingAdmissionWebhook, map[string]string{"a.yaml": vwcA, "b.yaml": vwcA},
			`error loading /etc/manifests/b.yaml: duplicate name "a.static.k8s.io" found in file "/etc/manifests/b.yaml" (previously seen in "/etc/manifests/a.yaml")`},
		{"service", ValidatingAdmissionWebhook, map[string]string{"a.yaml": service},
			`error loading /etc/manifests/a.yaml: webhook "s.example.com" in "s.static.k8s.io" (file "/etc/manifests/a.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead`},
		// The REST validation comes first: the loader's own "clientConfig.url
		// is required for static manifests" is unreachable after it.
		{"empty url", ValidatingAdmissionWebhook, map[string]string{"a.yaml": noURL},
			`error loading /etc/manifests/a.yaml: ValidatingWebhookConfiguration "s.static.k8s.io": [webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path], webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path], webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]`},
		{"wrong kind", MutatingAdmissionWebhook, map[string]string{"a.yaml": vwcA},
			`error loading /etc/manifests/a.yaml: unsupported resource type *v1.ValidatingWebhookConfiguration`},
		{"v1beta1", ValidatingAdmissionWebhook, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: a.static.k8s.io}\n"},
			`error loading /etc/manifests/a.yaml: unsupported resource type *v1beta1.ValidatingWebhookConfiguration`},
		{"unknown field", ValidatingAdmissionWebhook, map[string]string{"a.yaml": vwcA + "extra: 1\n"},
			`error loading /etc/manifests/a.yaml: strict decoding error: unknown field "extra"`},
		{"a document of comments only", ValidatingAdmissionWebhook, map[string]string{"a.yaml": vwcA + "---\n# the end\n"},
			`error loading /etc/manifests/a.yaml: Object 'Kind' is missing in '# the end'`},
		{"a leading separator before an empty document is a document", ValidatingAdmissionWebhook, map[string]string{"a.yaml": "---\n---\n" + vwcA},
			`error loading /etc/manifests/a.yaml: Object 'Kind' is missing in '---'`},
		{"text after a separator", ValidatingAdmissionWebhook, map[string]string{"a.yaml": vwcA + "--- x\n"},
			`failed to split YAML documents in file "/etc/manifests/a.yaml": invalid Yaml document separator: x`},
		{"list item", ValidatingAdmissionWebhook, map[string]string{"a.json": `{"apiVersion":"v1","kind":"List","items":[{"kind":"X"}]}`},
			`error loading /etc/manifests/a.json: failed to decode list item: Object 'apiVersion' is missing in '{"kind":"X"}'`},
		{"binding to missing policy", ValidatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {policyName: p.static.k8s.io, validationActions: [Deny]}\n"},
			`binding "b.static.k8s.io" references policy "p.static.k8s.io" which does not exist in the manifest directory`},
		{"binding suffix", ValidatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {policyName: p, validationActions: [Deny]}\n"},
			`error loading /etc/manifests/a.yaml: binding "b.static.k8s.io": spec.policyName "p" must end with ".static.k8s.io"`},
		{"param kind", MutatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p.static.k8s.io}\nspec: {paramKind: {apiVersion: v1, kind: ConfigMap}, reinvocationPolicy: Never, matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]}, mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{}'}}]}\n"},
			`error loading /etc/manifests/a.yaml: MutatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests`},
		{"param ref", MutatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {policyName: p.static.k8s.io, paramRef: {name: x, parameterNotFoundAction: Deny}}\n"},
			`error loading /etc/manifests/a.yaml: binding "b.static.k8s.io": spec.paramRef is not supported for static manifests`},
		// REST validation comes first for ValidatingAdmissionPolicy...
		{"no policy name, validating", ValidatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {validationActions: [Deny]}\n"},
			`error loading /etc/manifests/a.yaml: ValidatingAdmissionPolicyBinding "b.static.k8s.io": spec.policyName: Required value`},
		{"no policy name, mutating", MutatingAdmissionPolicy, map[string]string{"a.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\n"},
			`error loading /etc/manifests/a.yaml: MutatingAdmissionPolicyBinding "b.static.k8s.io": spec.policyName: Required value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load(tt.plugin, "/etc/manifests", LoadOptions{Files: dirFiles(tt.files)})
			assert.Nil(t, m)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestWebhookUIDCountsRepeatedNames: kube-apiserver numbers the webhooks of
// one name within a configuration (a REST-valid configuration has unique
// names, so only the first number is seen in practice).
func TestWebhookUIDCountsRepeatedNames(t *testing.T) {
	seen := map[string]int{}
	assert.Equal(t, "c/w/0", webhookUID("c", "w", seen))
	assert.Equal(t, "c/v/0", webhookUID("c", "v", seen))
	assert.Equal(t, "c/w/1", webhookUID("c", "w", seen))
}

// TestWebhooksOf: API webhooks as kube-apiserver's sources hold them:
// configurations by name, UIDs without the manifest prefix, selectors
// parsed, and a selector that does not parse kept as the webhook's own
// error (kube-apiserver accepts the configuration).
func TestWebhooksOf(t *testing.T) {
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "v.example.com", NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}}}}
	v2 := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "w.example.com", NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"-": "x"}}, ObjectSelector: &metav1.LabelSelector{}}}}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "m.example.com", NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}}}}
	hooks := WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{v, v2}, []*admissionregistrationv1.MutatingWebhookConfiguration{m})
	require.Len(t, hooks, 3)
	assert.Equal(t, "a/w.example.com/0", hooks[0].UID, "configurations sorted by name")
	assert.Equal(t, "b/v.example.com/0", hooks[1].UID)
	assert.Equal(t, "m/m.example.com/0", hooks[2].UID)
	assert.NotNil(t, hooks[2].Mutating)
	assert.Equal(t, "a=b", hooks[1].ObjectSelector.String())
	assert.Error(t, hooks[0].Err)
	assert.NoError(t, hooks[1].Err)
	assert.NoError(t, hooks[2].Err)
}

// TestWebhooksOfSelectorErrors: each selector that does not parse is the
// webhook's Err, with kube-apiserver's parse error; that selector is nil,
// the other one parsed.
func TestWebhooksOfSelectorErrors(t *testing.T) {
	badKey := &metav1.LabelSelector{MatchLabels: map[string]string{"-": "x"}}
	badOp := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Near", Values: []string{"v"}}}}
	good := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	for _, tc := range []struct {
		name               string
		ns, obj            *metav1.LabelSelector
		wantErr            []string // the lines of Err; none: nil
		wantNS, wantObject string   // the parsed selectors; "<nil>" when they do not parse
	}{
		{name: "both parse", ns: good, obj: nil, wantNS: "a=b", wantObject: "<nothing>"},
		{name: "bad namespaceSelector", ns: badKey, obj: good,
			wantErr: []string{`invalid namespaceSelector: key: Invalid value: "-": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
			wantNS:  "<nil>", wantObject: "a=b"},
		{name: "bad objectSelector", ns: good, obj: badOp,
			wantErr: []string{`invalid objectSelector: "Near" is not a valid label selector operator`},
			wantNS:  "a=b", wantObject: "<nil>"},
		{name: "both bad", ns: badOp, obj: badOp,
			wantErr: []string{`invalid namespaceSelector: "Near" is not a valid label selector operator`, `invalid objectSelector: "Near" is not a valid label selector operator`},
			wantNS:  "<nil>", wantObject: "<nil>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"},
				Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "w.example.com", NamespaceSelector: tc.ns, ObjectSelector: tc.obj}}}
			hooks := WebhooksOf(nil, []*admissionregistrationv1.MutatingWebhookConfiguration{c})
			require.Len(t, hooks, 1)
			h := hooks[0]
			if tc.wantErr == nil {
				assert.NoError(t, h.Err)
			} else {
				require.Error(t, h.Err)
				assert.Equal(t, tc.wantErr, strings.Split(h.Err.Error(), "\n"))
			}
			assert.Equal(t, tc.wantNS, selectorString(h.NamespaceSelector))
			assert.Equal(t, tc.wantObject, selectorString(h.ObjectSelector))
		})
	}
}

func selectorString(s labels.Selector) string {
	if s == nil {
		return "<nil>"
	}
	if s.String() == "" && !s.Empty() {
		return "<nothing>"
	}
	return s.String()
}

// TestWebhookSelectorErrorFailsMatchingRequests: a webhook with an Err is
// accepted; a request its rules match fails with kube-apiserver's internal
// error, the others are untouched.
func TestWebhookSelectorErrorFailsMatchingRequests(t *testing.T) {
	none := admissionregistrationv1.SideEffectClassNone
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "pods.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"-": "x"}},
		Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}}
	SetDefaultsValidatingWebhookConfiguration(c)
	hooks := WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{c}, nil)
	require.Len(t, hooks, 1)
	require.Error(t, hooks[0].Err)
	matcher, err := NewWebhookMatcher(hooks, MatchOptions{API: true})
	require.NoError(t, err)

	pod := &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "ns"}
	got := matcher.Match(context.Background(), pod)
	require.Len(t, got, 1)
	require.Error(t, got[0].Err)
	assert.True(t, apierrors.IsInternalError(got[0].Err))
	_, parseErr := metav1.LabelSelectorAsSelector(c.Webhooks[0].ObjectSelector)
	require.Error(t, parseErr)
	assert.EqualError(t, hooks[0].Err, "invalid objectSelector: "+parseErr.Error())
	assert.EqualError(t, got[0].Err, "Internal error occurred: "+parseErr.Error())

	secret := &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Secret"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Namespace: "ns"}
	assert.Empty(t, matcher.Match(context.Background(), secret), "a request the rules do not match is not affected")
}

func TestCheckClientConfig(t *testing.T) {
	empty, url := "", "https://h"
	assert.EqualError(t, checkClientConfig("w", "c", "f", &admissionregistrationv1.WebhookClientConfig{}),
		`webhook "w" in "c" (file "f"): clientConfig.url is required for static manifests`)
	assert.EqualError(t, checkClientConfig("w", "c", "f", &admissionregistrationv1.WebhookClientConfig{URL: &empty}),
		`webhook "w" in "c" (file "f"): clientConfig.url is required for static manifests`)
	assert.EqualError(t, checkClientConfig("w", "c", "f", &admissionregistrationv1.WebhookClientConfig{URL: &url, Service: &admissionregistrationv1.ServiceReference{}}),
		`webhook "w" in "c" (file "f"): clientConfig.service is not supported for static manifests; use clientConfig.url instead`)
	assert.NoError(t, checkClientConfig("w", "c", "f", &admissionregistrationv1.WebhookClientConfig{URL: &url}))
}

// TestMutatingPolicyREST shows that a MutatingAdmissionPolicy directory is
// checked as the others are: strict decoding, then the v1 defaults and the
// REST validation of package mutation's rules.
func TestMutatingPolicyREST(t *testing.T) {
	const head = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p.static.k8s.io}\n"
	_, err := Load(MutatingAdmissionPolicy, "/etc/manifests", LoadOptions{Files: dirFiles(map[string]string{"a.yaml": head + "spec: {unknown: 1}\n"})})
	assert.EqualError(t, err, `error loading /etc/manifests/a.yaml: strict decoding error: unknown field "spec.unknown"`)

	_, err = Load(MutatingAdmissionPolicy, "/etc/manifests", LoadOptions{Files: dirFiles(map[string]string{
		"a.yaml": head + "spec: {reinvocationPolicy: Sometimes, matchConstraints: {resourceRules: [{operations: [BOGUS]}]}}\n",
		"b.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {policyName: p.static.k8s.io}\n",
	})})
	require.Error(t, err)
	for _, want := range []string{
		`MutatingAdmissionPolicy "p.static.k8s.io"`,
		`spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "BOGUS"`,
		`spec.mutations: Required value: mutations must contain at least one item`,
		`spec.reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"`,
	} {
		assert.Contains(t, err.Error(), want)
	}

	m, err := Load(MutatingAdmissionPolicy, "/etc/manifests", LoadOptions{Files: dirFiles(map[string]string{
		"a.yaml": head + `spec:
  reinvocationPolicy: Never
  matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]}
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]'}
`,
		"b.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {policyName: p.static.k8s.io}\n",
	})})
	require.NoError(t, err)
	p := m.MutatingAdmissionPolicies()[0]
	require.NotNil(t, p.Spec.FailurePolicy, "the v1 defaults are applied")
	assert.Equal(t, admissionregistrationv1.Fail, *p.Spec.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.Equivalent, *p.Spec.MatchConstraints.MatchPolicy)
}
