package admissionmanifest_test

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// WebhooksOf takes the webhook configurations of the API as kube-apiserver
// does: a webhook whose objectSelector does not parse is kept, with its
// Err, which kube-apiserver reports as an internal error on each request
// the webhook's rules match.
func ExampleWebhooksOf() {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "policy"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{Name: "good.example.com"},
			{Name: "bad.example.com", ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: "Equals", Values: []string{"web"}},
			}}},
		},
	}
	for _, w := range admissionmanifest.WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{c}, nil) {
		fmt.Printf("%s: %v\n", w.UID, w.Err)
	}
	// Output:
	// policy/good.example.com/0: <nil>
	// policy/bad.example.com/0: invalid objectSelector: "Equals" is not a valid label selector operator
}
