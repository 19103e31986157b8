package admissionwebhook

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// Trace tells what Explain's admission did with each webhook of a kind
// (mutating for ExplainAdmit, validating for ExplainValidate), in the
// dispatcher's order.
type Trace struct {
	// Reinvocation is true for the reinvocation pass of the mutating
	// webhooks.
	Reinvocation bool
	Webhooks     []WebhookTrace
}

// WebhookTrace is one webhook's part of a Trace.
type WebhookTrace struct {
	Webhook, Configuration string
	// Called is true when the webhook was called. Otherwise Reason says
	// why not: one of admissionmanifest's Reason constants (FailedCondition
	// names the false match condition), "not reinvoked" (the reinvocation
	// pass calls only the webhooks eligible for it), or "not reached" (an
	// earlier webhook refused the request).
	Called          bool
	Reason          string
	FailedCondition string
	// Err is the webhook's failure: its refusal, the error calling it, or
	// the match error that failed the request on its account. FailedOpen
	// is true when failurePolicy Ignore admitted the request despite it.
	Err        error
	FailedOpen bool
	// Status is the status the request fails with on this webhook's
	// account, as kube-apiserver forms it: the refusal's status, or the
	// internal error wrapping a failed call ("Internal error occurred:
	// failed calling webhook ..."); nil when the webhook allowed the
	// request or failed open. Validating webhooks are called concurrently
	// and kube-apiserver returns the first failure to arrive: each failed
	// webhook's Status is what the request gets when its failure is that
	// one.
	Status *apierrors.StatusError
	// Patched is true when a mutating webhook's patch changed the object;
	// Changed lists the fields it changed, as paths (".metadata.labels.a").
	Patched bool
	Changed []string
}

// String renders the trace, one line per webhook, for people.
func (t *Trace) String() string {
	var b strings.Builder
	if t.Reinvocation {
		b.WriteString("reinvocation pass\n")
	}
	for _, w := range t.Webhooks {
		fmt.Fprintf(&b, "webhook %s (%s): ", w.Webhook, w.Configuration)
		switch {
		case !w.Called && w.Err != nil:
			fmt.Fprintf(&b, "error: %v\n", w.Err)
		case !w.Called && w.FailedCondition != "":
			fmt.Fprintf(&b, "not called (match condition %q is false)\n", w.FailedCondition)
		case !w.Called:
			fmt.Fprintf(&b, "not called (%s)\n", w.Reason)
		case w.FailedOpen:
			fmt.Fprintf(&b, "failed open: %v\n", w.Err)
		case w.Err != nil:
			fmt.Fprintf(&b, "refused: %v\n", w.Err)
		case w.Patched:
			fmt.Fprintf(&b, "patched %s\n", strings.Join(w.Changed, ", "))
		default:
			b.WriteString("allowed\n")
		}
	}
	return b.String()
}

// notCalled records why a webhook was not called, from the matcher's
// explanation.
func notCalled(x admissionmanifest.WebhookExplanation) WebhookTrace {
	w := x.Webhook
	t := WebhookTrace{Webhook: w.Name(), Configuration: w.ConfigurationName, Reason: x.Reason, FailedCondition: x.FailedCondition}
	if x.Err != nil {
		t.Err, t.Status, t.Reason = x.Err, plainError(x.Err), admissionmanifest.ReasonError
	}
	return t
}
