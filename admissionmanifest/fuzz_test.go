package admissionmanifest

import (
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// FuzzValidate decodes arbitrary bytes into each admission type, applies the
// defaults and validates, on create and on update from itself: it must not
// panic; defaulting must be idempotent; validation must not change the
// object and must give the same answer twice; an update from itself must
// never report more than the create (an update only relaxes).
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"name":"a"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://u:p@h/%zz"},"sideEffects":"None","admissionReviewVersions":["v1"],"rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*","a/*","*/b"]}],"matchConditions":[{"name":"x","expression":"object.x in [1, 2,"}]}]}`,
		`{"webhooks":[{"clientConfig":{"service":{"path":"//a/"}},"namespaceSelector":{"matchExpressions":[{"key":"k","operator":"In"}]},"timeoutSeconds":0}]}`,
		`{"metadata":{"name":"p.static.k8s.io"},"spec":{"paramKind":{"apiVersion":"a/b/c"},"matchConstraints":{"resourceRules":[{"resourceNames":[".."]}]},"variables":[{"name":"a","expression":"variables.a"},{"name":"b","expression":"variables.a + 1"}],"validations":[{"expression":"variables.b","messageExpression":"authorizer","message":"a\nb"}],"auditAnnotations":[{"key":"k","valueExpression":"1"}]}}`,
		`{"spec":{"policyName":"P","paramRef":{"name":"a","selector":{}},"validationActions":["Deny","Warn","Deny"]}}`,
		`{}`, `null`, `[]`,
	} {
		f.Add([]byte(seed))
	}
	v := testValidator(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, obj := range []runtime.Object{
			&admissionregistrationv1.ValidatingWebhookConfiguration{},
			&admissionregistrationv1.MutatingWebhookConfiguration{},
			&admissionregistrationv1.ValidatingAdmissionPolicy{},
			&admissionregistrationv1.ValidatingAdmissionPolicyBinding{},
		} {
			if yaml.Unmarshal(data, obj) != nil {
				continue
			}
			require.True(t, SetDefaults(obj))
			defaulted := obj.DeepCopyObject()
			SetDefaults(defaulted)
			require.True(t, equality.Semantic.DeepEqual(obj, defaulted), "defaulting is not idempotent")

			errs, warnings := v.Validate(obj, nil)
			require.True(t, equality.Semantic.DeepEqual(obj, defaulted), "validation changed the object")
			again, againWarnings := v.Validate(obj, nil)
			require.Equal(t, rendered(errs), rendered(again))
			require.Equal(t, warnings, againWarnings)

			updateErrs, _ := v.Validate(obj, obj.DeepCopyObject())
			require.LessOrEqual(t, len(updateErrs), len(errs), "an update from itself reports more than the create: %v vs %v", rendered(updateErrs), rendered(errs))
		}
	})
}
