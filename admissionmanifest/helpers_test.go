package admissionmanifest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	sharedValidatorOnce sync.Once
	sharedValidator     *Validator
	sharedValidatorErr  error
)

// testValidator is a Validator of the REST API (StaticNamesReserved),
// built once for the package's tests.
func testValidator(t testing.TB) *Validator {
	t.Helper()
	sharedValidatorOnce.Do(func() { sharedValidator, sharedValidatorErr = NewValidator(Options{}) })
	require.NoError(t, sharedValidatorErr)
	return sharedValidator
}

// withOptions is the shared validator's compiler with other options.
func withOptions(t testing.TB, o Options) *Validator {
	o.Compiler = testValidator(t).compiler
	v, err := NewValidator(o)
	require.NoError(t, err)
	return v
}

// rendered is how kube-apiserver prints the errors, one a line.
func rendered(errs field.ErrorList) []string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return s
}

// validVWC is a valid, defaulted configuration with one webhook.
func validVWC() *admissionregistrationv1.ValidatingWebhookConfiguration {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "config"},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{validValidatingWebhook("hook.example.com")},
	}
	SetDefaultsValidatingWebhookConfiguration(c)
	return c
}

func validValidatingWebhook(name string) admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name:         name,
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptrTo("https://hook.example.com/validate")},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}},
		SideEffects:             ptrTo(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

// validMWC is a valid, defaulted mutating configuration with one webhook.
func validMWC() *admissionregistrationv1.MutatingWebhookConfiguration {
	h := validValidatingWebhook("hook.example.com")
	c := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "config"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, SideEffects: h.SideEffects,
			AdmissionReviewVersions: h.AdmissionReviewVersions,
		}},
	}
	SetDefaultsMutatingWebhookConfiguration(c)
	return c
}
