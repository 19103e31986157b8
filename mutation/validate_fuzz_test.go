package mutation

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// FuzzDecodeValidate checks that untrusted manifests never make Decode or
// the Validator panic, that every decoded object is a defaulted v1 object,
// and that validation is deterministic and accepts an object as its own
// old version whenever it accepts it on create.
func FuzzDecodeValidate(f *testing.F) {
	files, err := filepath.Glob("testdata/realworld/*.yaml")
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"admissionregistration.k8s.io/v1alpha1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"b"},"spec":{"paramRef":{"selector":{"matchExpressions":[{"key":"a","operator":"In"}]}},"matchResources":{"resourceRules":[{"operations":["DELETE"]}]}}}]}`))
	f.Add([]byte("apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicyList\nitems:\n- metadata: {name: p}\n  spec: {variables: [{name: in, expression: '1 +'}], mutations: [{patchType: JSONPatch, applyConfiguration: {expression: x}}], matchConditions: [{name: a, expression: 'params'}]}\n"))
	v, err := NewValidator(ValidatorOptions{})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, _ := Decode(data)
		for _, p := range objs.Policies {
			if p.APIVersion != admissionregistrationv1.SchemeGroupVersion.String() || p.Spec.FailurePolicy == nil {
				t.Fatalf("policy not a defaulted v1 object: %#v", p)
			}
			errs := v.ValidateMutatingAdmissionPolicy(p, nil)
			again := v.ValidateMutatingAdmissionPolicy(p.DeepCopy(), nil)
			if !slices.Equal(errorStrings(errs), errorStrings(again)) {
				t.Fatalf("validation is not deterministic: %v, then %v", errs, again)
			}
			if len(errs) == 0 {
				if upd := v.ValidateMutatingAdmissionPolicy(p, p.DeepCopy()); len(upd) > 0 {
					t.Fatalf("valid on create, invalid as a no-op update: %v", upd)
				}
			}
		}
		for _, b := range objs.Bindings {
			if b.APIVersion != admissionregistrationv1.SchemeGroupVersion.String() {
				t.Fatalf("binding not a v1 object: %#v", b)
			}
			errs := v.ValidateMutatingAdmissionPolicyBinding(b, nil)
			if upd := v.ValidateMutatingAdmissionPolicyBinding(b, b.DeepCopy()); len(upd) != len(errs) {
				t.Fatalf("a binding's update is validated as its create: %v, %v", errs, upd)
			}
		}
	})
}
