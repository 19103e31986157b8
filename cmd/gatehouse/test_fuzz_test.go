package main

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzTestFile reads any test file (gatehouse's or kaptest's format, at the
// path of the usability suite so that its references resolve): it never
// panics, an unreadable file is an error naming the file, and the cases a
// file gives have distinct names.
func FuzzTestFile(f *testing.F) {
	for _, seed := range []string{"testdata/test/usability/usability.test.yaml", "testdata/test/usability/kaptest.yaml",
		"testdata/test/usability/bad-field.test.yaml", "testdata/test/gatehouse.test.yaml", "testdata/test/kaptest-v0.1.yaml"} {
		data, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("cases: [{name: a}, {name: a}]\nkind: AdmissionTest\napiVersion: gatehouse.dev/v1alpha1\n"))
	f.Add([]byte("vapTestSuites: [{policy: team, tests: [{object: {kind: Pod, name: web}, expect: deny}, {object: {kind: Pod, name: web}, expect: deny}]}]\npolicies: [policies.yaml]\nresources: [kaptest-resources.yaml]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := &app{stdin: nil, stdout: io.Discard, stderr: io.Discard, namespace: "default"}
		const name = "testdata/test/usability/fuzz.yaml"
		r := a.runTestFile(context.Background(), input{name: name, data: data})
		if r.Error != "" {
			assert.Contains(t, r.Error, "testdata/test/")
			return
		}
		seen := map[string]bool{}
		for _, c := range r.Cases {
			assert.False(t, seen[c.Name], "two cases named %q", c.Name)
			seen[c.Name] = true
		}
	})
}
