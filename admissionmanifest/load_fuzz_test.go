package admissionmanifest

import (
	"bytes"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoad loads fuzzed directories (the input cut into files at 0xFF
// bytes, with assorted names) for every plugin: no panic, and on success
// a set that keeps the loaders' promises: static names, unique and sorted
// per kind, bindings naming loaded policies, the hash of the files read.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(vwcA + "\xff" + vwcB))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: admissionregistration.k8s.io/v1\n  kind: ValidatingAdmissionPolicy\n  metadata: {name: p.static.k8s.io}\n  spec: {validations: [{expression: 'true'}], matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [''], apiVersions: [v1], resources: [pods]}]}}\n"))
	f.Add([]byte(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b.static.k8s.io"},"spec":{"policyName":"p.static.k8s.io"}}`))
	names := []string{"a.yaml", "b.json", "c.yml", "d.txt"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m := fstest.MapFS{"d": {Mode: fs.ModeDir}}
		var read [][]byte
		for i, content := range bytes.SplitN(data, []byte{0xff}, len(names)) {
			m["d/"+names[i]] = &fstest.MapFile{Data: content}
			if names[i] != "d.txt" && len(content) > 0 {
				read = append(read, content)
			}
		}
		h := newContentHash()
		for _, c := range read {
			h.add(c)
		}
		for _, p := range Plugins() {
			got, err := Load(p, "/d", LoadOptions{Files: FilesOf(m)})
			if err != nil {
				continue
			}
			if got.Hash() != h.String() {
				t.Fatalf("%s: hash %q, want %q", p, got.Hash(), h.String())
			}
			for _, n := range got.Names() {
				if !strings.HasSuffix(n, StaticSuffix) {
					t.Fatalf("%s: loaded %q", p, n)
				}
			}
			for _, names := range [][]string{
				namesOf(got.ValidatingWebhookConfigurations()), namesOf(got.MutatingWebhookConfigurations()),
				namesOf(got.ValidatingAdmissionPolicies()), namesOf(got.ValidatingAdmissionPolicyBindings()),
				namesOf(got.MutatingAdmissionPolicies()), namesOf(got.MutatingAdmissionPolicyBindings()),
			} {
				if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
					t.Fatalf("%s: names not sorted and unique: %v", p, names)
				}
			}
			policies := namesOf(got.ValidatingAdmissionPolicies())
			for _, b := range got.ValidatingAdmissionPolicyBindings() {
				if !slices.Contains(policies, b.Spec.PolicyName) {
					t.Fatalf("binding %q to a missing policy", b.Name)
				}
			}
		}
	})
}

func namesOf[T interface{ GetName() string }](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	return out
}
