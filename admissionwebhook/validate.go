package admissionwebhook

import (
	"context"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Validate calls the validating webhooks that match r, as kube-apiserver's
// ValidatingAdmissionWebhook plugin does: it matches every webhook first
// (the first one that fails to match fails the request), then calls the
// matched ones concurrently and waits for all. A webhook that refuses
// refuses the request with its status (code at least 400, message
// `admission webhook "<name>" denied the request: <message>`); a webhook
// that cannot be called (connection, timeout, HTTP status, invalid answer)
// fails the request with an internal error under failurePolicy Fail, and
// is ignored under Ignore, which adds a failed-open audit annotation;
// a dry-run request to a webhook with side effects fails with 400 under
// either policy. When several webhooks fail, the error is the first to
// arrive, as in kube-apiserver. The error is always an
// *apierrors.StatusError; the Result has the warnings and annotations of
// every webhook called, also when the request is refused.
func (d *Dispatcher) Validate(ctx context.Context, r *Request) (Result, error) {
	return d.validateAll(ctx, r, nil)
}

// ExplainValidate validates the request as Validate does, and tells what
// each validating webhook did: why it was called or not, and its answer.
func (d *Dispatcher) ExplainValidate(ctx context.Context, r *Request) (Result, *Trace, error) {
	t := &Trace{}
	res, err := d.validateAll(ctx, r, t)
	return res, t, err
}

func (d *Dispatcher) validateAll(ctx context.Context, r *Request, t *Trace) (Result, error) {
	ann := &annotations{}
	// The objects in each kind a webhook is matched or called in, converted
	// once per kind, as kube-apiserver's validating dispatcher keeps them.
	type versioned struct{ object, old *unstructured.Unstructured }
	objects := map[schema.GroupVersionKind]versioned{}
	inKind := func(kind schema.GroupVersionKind) (versioned, error) {
		if v, ok := objects[kind]; ok {
			return v, nil
		}
		var v versioned
		var err error
		if v.old, err = d.convert(r.OldObject, r.Kind, kind); err != nil {
			return v, err
		}
		if v.object, err = d.convert(r.Object, r.Kind, kind); err != nil {
			return v, err
		}
		objects[kind] = v
		return v, nil
	}
	mreq := matchRequest(r, r.Object)
	mreq.Versioned = func(kind schema.GroupVersionKind) (runtime.Object, runtime.Object, error) {
		v, err := inKind(kind)
		return objectOrNil(v.object), objectOrNil(v.old), err
	}
	matches := d.validating.Match(ctx, mreq)
	// called[i] is the trace entry of the i-th match.
	var called []*WebhookTrace
	if t != nil {
		for _, x := range d.validating.Explain(ctx, mreq) {
			if x.Called || x.Err != nil {
				wt := WebhookTrace{Webhook: x.Webhook.Name(), Configuration: x.Webhook.ConfigurationName, Reason: x.Reason, Err: x.Err}
				if x.Err != nil {
					wt.Status = plainError(x.Err)
				}
				t.Webhooks = append(t.Webhooks, wt)
				continue
			}
			t.Webhooks = append(t.Webhooks, notCalled(x))
		}
		for i := range t.Webhooks {
			if w := &t.Webhooks[i]; w.Reason == admissionmanifest.ReasonMatched || w.Err != nil {
				called = append(called, w)
			}
		}
	}
	if len(matches) == 0 {
		return Result{}, nil
	}
	invocations := make([]*invocation, 0, len(matches))
	// The webhooks called in one kind are sent the same objects: each is
	// encoded once for all of them.
	encoded := map[schema.GroupVersionKind]*encodedObjects{}
	for i := range matches {
		m := &matches[i]
		if m.Err != nil {
			return Result{}, m.Err
		}
		v, err := inKind(m.Kind)
		if err != nil {
			return Result{}, apierrors.NewInternalError(err)
		}
		if encoded[m.Kind] == nil {
			encoded[m.Kind] = &encodedObjects{}
		}
		inv := &invocation{kind: m.Kind, resource: m.Resource, encoded: encoded[m.Kind]}
		if v.object != nil {
			inv.object = v.object.Object
		}
		if v.old != nil {
			inv.old = v.old.Object
		}
		invocations = append(invocations, inv)
	}
	select {
	case <-ctx.Done():
		return Result{}, requestTimeout()
	default:
	}
	warnings := make([][]string, len(matches))
	outcomes := make([]callOutcome, len(matches))
	errs := make(chan error, len(matches))
	if len(matches) == 1 {
		// One webhook: called on this goroutine, which spares starting
		// (and growing the stack of) another; validate recovers its panics
		// and errs has room for its error, as in the parallel case.
		warnings[0] = d.validate(ctx, matches[0].Webhook, 0, r, invocations[0], ann, errs, &outcomes[0])
	} else {
		var wg sync.WaitGroup
		for i := range matches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				warnings[i] = d.validate(ctx, matches[i].Webhook, i, r, invocations[i], ann, errs, &outcomes[i])
			}()
		}
		wg.Wait()
	}
	if len(called) == len(matches) {
		for i, o := range outcomes {
			called[i].Called, called[i].Err, called[i].Status, called[i].FailedOpen = true, o.err, o.status, o.failedOpen
		}
	}
	close(errs)
	res := result(ann)
	for _, w := range warnings {
		res.Warnings = append(res.Warnings, w...)
	}
	for i, o := range outcomes {
		if o.failedOpen {
			w := matches[i].Webhook
			res.FailedOpen = append(res.FailedOpen, WebhookError{Webhook: w.Name(), Configuration: w.ConfigurationName, Err: o.err})
		}
	}
	if err, ok := <-errs; ok {
		return res, err
	}
	return res, nil
}

// callOutcome is what one call gave, for the trace and the Result.
type callOutcome struct {
	err        error
	status     *apierrors.StatusError
	failedOpen bool
}

// validate calls one validating webhook, the idx-th of those matched, and
// sends its failure to errs. It returns its warnings.
func (d *Dispatcher) validate(ctx context.Context, w *admissionmanifest.Webhook, idx int, r *Request, inv *invocation, ann *annotations, errs chan<- error, out *callOutcome) (warnings []string) {
	v := w.Validating
	h := &hook{
		name:                    v.Name,
		clientConfig:            &v.ClientConfig,
		timeoutSeconds:          v.TimeoutSeconds,
		sideEffects:             v.SideEffects,
		admissionReviewVersions: v.AdmissionReviewVersions,
		ignore:                  v.FailurePolicy != nil && *v.FailurePolicy == admissionregistrationv1.Ignore,
	}
	defer func() {
		if p := recover(); p != nil {
			out.err = fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.name, p)
			if h.ignore {
				out.failedOpen = true
				d.sink.Add(metrics.AdmissionWebhookFailOpen, 1, h.name, typeValidating)
				ann.add(failedOpenKey(validatingPrefix, 0, idx), h.name, false)
				return
			}
			out.status = apierrors.NewInternalError(out.err)
			errs <- out.status
		}
	}()
	start := d.clock.Now()
	_, warnings, err := d.call(ctx, h, r, inv, false, ann)
	d.observe(h.name, typeValidating, string(r.Operation), d.clock.Since(start), err, h.ignore)
	if err == nil {
		return warnings
	}
	out.err = err
	if out.status, out.failedOpen = fate(err, h.ignore); out.failedOpen {
		if !canceled(err) {
			d.sink.Add(metrics.AdmissionWebhookFailOpen, 1, h.name, typeValidating)
			ann.add(failedOpenKey(validatingPrefix, 0, idx), h.name, false)
		}
		return warnings
	}
	errs <- out.status
	return warnings
}
