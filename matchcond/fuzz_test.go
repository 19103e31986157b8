package matchcond

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzAdmissionMatch compiles arbitrary conditions and variables and
// evaluates them on an arbitrary object: no panic.
func FuzzAdmissionMatch(f *testing.F) {
	f.Add("variables.v.size() > 0 && object.metadata.name == request.name", "object.metadata.labels", "name", "web")
	f.Add("authorizer.requestResource.check('get').allowed()", "params", "x", "y")
	f.Add("has(object.spec) && object.spec.x in variables.v", "[1, 2]", "spec", "1")
	f.Fuzz(func(t *testing.T, cond, variable, key, value string) {
		c := admissionCompiler(t)
		m, err := c.Compile([]admissionregistrationv1.MatchCondition{{Name: "c", Expression: cond}}, AdmissionOptions{
			Policy:    true,
			HasParams: true,
			Variables: []admissionregistrationv1.Variable{{Name: "v", Expression: variable}},
		})
		if err != nil {
			t.Fatal(err)
		}
		a := podCreate()
		a.Authorizer = &recordingAuthorizer{}
		a.Params = &unstructured.Unstructured{Object: map[string]any{key: value}}
		a.OldObject = &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": value}, key: []any{value, int64(len(value))}}}
		r := m.Match(context.Background(), a)
		if r.Matches && r.Error != nil {
			t.Fatalf("a match with an error: %v", r.Error)
		}
		for _, o := range []AdmissionValidateOptions{{HasParams: true}, {Preexisting: []string{cond}}} {
			_ = c.Validate([]admissionregistrationv1.MatchCondition{{Name: key, Expression: cond}}, o, field.NewPath("matchConditions"))
		}
	})
}
