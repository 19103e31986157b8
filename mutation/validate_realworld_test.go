package mutation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realworldVerdict is kube-apiserver's verdict on one object of a real-world
// file (testdata/realworld-verdicts.json, which conformance/kubernetes's
// TestMutationRealWorldMatchesKube checks against kube-apiserver and
// writes).
type realworldVerdict struct {
	Object string   `json:"object"`
	Errors []string `json:"errors,omitempty"`
}

// expressionErrorPath is the path of a variable's or a mutation's
// expression.
var expressionErrorPath = regexp.MustCompile(`^spec\.(variables\[\d+\]\.expression|mutations\[\d+\]\.(applyConfiguration|jsonPatch)\.expression)$`)

// TestRealWorldVerdicts decodes and validates every file of
// testdata/realworld and asserts kube-apiserver's verdict on each of its
// policies and bindings.
func TestRealWorldVerdicts(t *testing.T) {
	data, err := os.ReadFile("testdata/realworld-verdicts.json")
	require.NoError(t, err)
	var verdicts map[string][]realworldVerdict
	require.NoError(t, json.Unmarshal(data, &verdicts))
	entries, err := os.ReadDir("testdata/realworld")
	require.NoError(t, err)
	v := newTestValidator(t)
	files := 0
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/realworld", e.Name()))
		require.NoError(t, err)
		objs, err := Decode(data)
		for _, err := range flattenErrors(err) {
			var ke *KindError
			require.ErrorAs(t, err, &ke, "%s: only objects of other kinds may be refused", e.Name())
		}
		var got []realworldVerdict
		for _, p := range objs.Policies {
			got = append(got, realworldVerdict{Object: "MutatingAdmissionPolicy " + p.Name, Errors: errorStrings(v.ValidateMutatingAdmissionPolicy(p, nil))})
		}
		for _, b := range objs.Bindings {
			got = append(got, realworldVerdict{Object: "MutatingAdmissionPolicyBinding " + b.Name, Errors: errorStrings(v.ValidateMutatingAdmissionPolicyBinding(b, nil))})
		}
		want := verdicts[e.Name()]
		if v.expressions == nil {
			want = withoutExpressionErrors(want)
		}
		assert.Equal(t, want, got, e.Name())
		if len(got) > 0 {
			files++
		}
	}
	assert.Equal(t, len(verdicts), files, "files with policies or bindings")
}

func withoutExpressionErrors(vs []realworldVerdict) []realworldVerdict {
	var out []realworldVerdict
	for _, v := range vs {
		w := realworldVerdict{Object: v.Object}
		for _, e := range v.Errors {
			path, _, _ := strings.Cut(e, ": ")
			if !expressionErrorPath.MatchString(path) || strings.HasPrefix(e, path+": Required value") {
				w.Errors = append(w.Errors, e)
			}
		}
		out = append(out, w)
	}
	return out
}

func flattenErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
