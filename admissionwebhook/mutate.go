package admissionwebhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	"github.com/gatehouse-dev/gatehouse/internal/objectdiff"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Admit calls the mutating webhooks that match r, one after another in
// order, each on the object the previous one left, as kube-apiserver's
// MutatingAdmissionWebhook plugin does in a pass of its admission
// chain (r.Reinvocation carries the state between the two passes): each
// webhook is matched against the current object just before
// its call (the first that fails to match fails the request), its JSON
// patch applied with json-patch v4 and the result, for a built-in kind,
// decoded into its Go type (not strictly: unknown fields are dropped) and
// defaulted (Options.Defaulter). Failures are handled as Validate's; a
// patch that does not decode is a failure to call the webhook (ignored
// under failurePolicy Ignore), one that fails to apply or whose result does
// not decode fails the request with an internal error under either policy.
// Every call adds its mutation.webhook.admission.k8s.io annotation, every
// patch its patch.webhook.admission.k8s.io one. The error is always an
// *apierrors.StatusError; Result.Object is the final object (r.Object itself
// when no webhook was called), nil if the request was refused.
func (d *Dispatcher) Admit(ctx context.Context, r *Request) (Result, error) {
	return d.admit(ctx, r, nil)
}

// ExplainAdmit admits the request as Admit does, and tells what each
// mutating webhook did: why it was called or not, its answer, and the
// fields its patch changed.
func (d *Dispatcher) ExplainAdmit(ctx context.Context, r *Request) (Result, *Trace, error) {
	t := &Trace{}
	res, err := d.admit(ctx, r, t)
	return res, t, err
}

func (d *Dispatcher) admit(ctx context.Context, r *Request, t *Trace) (Result, error) {
	ann := &annotations{}
	var warnings []string
	fail := func(err error) (Result, error) {
		res := result(ann)
		res.Warnings = warnings
		return res, err
	}
	// The object as kube-apiserver holds it, in the version of the last
	// webhook called; taken through its Go type (normalized) before the
	// first call, so that a request no webhook matches costs no conversion.
	kind := r.Kind
	object := r.Object
	normalized := false
	normalize := func() error {
		if normalized || object == nil {
			return nil
		}
		o, err := d.wire.normalize(object.Object, kind)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		object, normalized = &unstructured.Unstructured{Object: o}, true
		return nil
	}
	old := r.OldObject
	rc := r.Reinvocation
	reinvoke := false
	if rc != nil {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.Flags != nil && rc.Flags.IsReinvoke() {
			if err := normalize(); err != nil {
				return fail(err)
			}
		}
		reinvoke = rc.start(admissionpolicy.Content(object))
		// The pass's output, for the next (after a failure there is none).
		defer func() { rc.end(admissionpolicy.Content(object)) }()
	}
	round := 0
	if reinvoke {
		round = 1
	}
	if t != nil {
		t.Reinvocation = reinvoke
		// The webhooks the request does not reach are recorded as such.
		defer func() {
			for i := len(t.Webhooks); i < len(d.mutating); i++ {
				mh := &d.mutating[i]
				t.Webhooks = append(t.Webhooks, WebhookTrace{Webhook: mh.webhook.Name, Configuration: mh.config, Reason: "not reached"})
			}
		}()
	}
	mreq := matchRequest(r, object)
	var matches []admissionmanifest.WebhookMatch
	for i := range d.mutating {
		mh := &d.mutating[i]
		if object != nil {
			// The webhooks are matched against the current object.
			mreq.Object = object
		}
		matches = mh.matcher.AppendMatches(ctx, matches[:0], mreq)
		if len(matches) == 0 {
			if t != nil {
				t.Webhooks = append(t.Webhooks, notCalled(mh.matcher.Explain(ctx, mreq)[0]))
			}
			continue
		}
		m := matches[0]
		if m.Err != nil {
			if t != nil {
				t.Webhooks = append(t.Webhooks, WebhookTrace{Webhook: mh.webhook.Name, Configuration: mh.config, Reason: admissionmanifest.ReasonError, Err: m.Err})
			}
			return fail(m.Err)
		}
		// During the reinvocation only the eligible webhooks are called.
		if reinvoke && !rc.shouldReinvoke(d.uids[i]) {
			if t != nil {
				t.Webhooks = append(t.Webhooks, WebhookTrace{Webhook: mh.webhook.Name, Configuration: mh.config, Reason: "not reinvoked"})
			}
			continue
		}
		if err := normalize(); err != nil {
			return fail(err)
		}
		if m.Kind != kind {
			if object != nil {
				o, err := d.convert(object, kind, m.Kind)
				if err != nil {
					return fail(apierrors.NewInternalError(err))
				}
				if o, err = d.wire.normalize(o, m.Kind); err != nil {
					return fail(apierrors.NewInternalError(err))
				}
				object = &unstructured.Unstructured{Object: o}
			}
			if r.OldObject != nil {
				o, err := d.convert(r.OldObject, r.Kind, m.Kind)
				if err != nil {
					return fail(apierrors.NewInternalError(err))
				}
				old = &unstructured.Unstructured{Object: o}
			}
			kind = m.Kind
		}
		inv := &invocation{kind: m.Kind, resource: m.Resource}
		if object != nil {
			inv.object = object.Object
		}
		if old != nil {
			inv.old = old.Object
		}
		w := mh.webhook
		h := &hook{
			name:                    w.Name,
			clientConfig:            &w.ClientConfig,
			timeoutSeconds:          w.TimeoutSeconds,
			sideEffects:             w.SideEffects,
			admissionReviewVersions: w.AdmissionReviewVersions,
			ignore:                  w.FailurePolicy != nil && *w.FailurePolicy == admissionregistrationv1.Ignore,
		}
		start := d.clock.Now()
		out, changed, ws, err := d.mutate(ctx, h, mh.config, round, i, r, inv, ann)
		warnings = append(warnings, ws...)
		d.observe(h.name, typeAdmit, string(r.Operation), d.clock.Since(start), err, h.ignore)
		if t != nil {
			wt := WebhookTrace{Webhook: h.name, Configuration: mh.config, Called: true, Reason: admissionmanifest.ReasonMatched, Err: err, Patched: changed}
			if changed {
				wt.Changed = objectdiff.ChangedPaths(inv.object, out)
			}
			var ce *callError
			wt.FailedOpen = err != nil && h.ignore && errors.As(err, &ce)
			t.Webhooks = append(t.Webhooks, wt)
		}
		if out != nil {
			object = &unstructured.Unstructured{Object: out}
		}
		if rc != nil {
			if changed {
				rc.requirePrevious()
				if rc.Flags != nil {
					rc.Flags.SetShouldReinvoke()
				}
			}
			if w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy {
				rc.addPrevious(d.uids[i])
			}
		}
		if err == nil {
			continue
		}
		var ce *callError
		var rj *rejection
		switch {
		case errors.As(err, &ce):
			if !h.ignore {
				return fail(apierrors.NewInternalError(ce))
			}
			if !errors.Is(ce.reason, context.Canceled) {
				d.sink.Add(metrics.AdmissionWebhookFailOpen, 1, h.name, typeAdmit)
				ann.add(failedOpenKey(mutationPrefix, round, i), h.name, false)
			}
			select {
			case <-ctx.Done():
				return fail(requestTimeout())
			default:
			}
		case errors.As(err, &rj):
			return fail(rj.status)
		default:
			return fail(err)
		}
	}
	if object != nil && kind != r.Kind {
		o, err := d.convert(object, kind, r.Kind)
		if err != nil {
			return fail(apierrors.NewInternalError(err))
		}
		object = &unstructured.Unstructured{Object: o}
	}
	res := result(ann)
	res.Warnings = warnings
	res.Object = object
	return res, nil
}

// mutationAnnotation and patchAnnotation are the values of kube-apiserver's
// mutation and patch audit annotations.
type mutationAnnotation struct {
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook"`
	Mutated       bool   `json:"mutated"`
}

type patchAnnotation struct {
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook"`
	Patch         any    `json:"patch,omitempty"`
	PatchType     string `json:"patchType,omitempty"`
}

// mutate calls one mutating webhook, the idx-th of the dispatcher's, and
// applies its patch: it returns the patched object (nil when the webhook
// did not patch it), whether it changed, the webhook's warnings and its
// failure.
func (d *Dispatcher) mutate(ctx context.Context, h *hook, config string, round, idx int, r *Request, inv *invocation, ann *annotations) (out map[string]any, changed bool, warnings []string, err error) {
	defer func() {
		v, _ := json.Marshal(mutationAnnotation{Configuration: config, Webhook: h.name, Mutated: changed})
		ann.add(fmt.Sprintf("%sround_%d_index_%d", mutationPrefix, round, idx), string(v), false)
	}()
	res, warnings, err := d.call(ctx, h, r, inv, true, ann)
	if err != nil {
		return nil, false, warnings, err
	}
	if len(res.patch) == 0 {
		return nil, false, warnings, nil
	}
	patch, err := jsonpatch.DecodePatch(res.patch)
	if err != nil {
		return nil, false, warnings, &callError{webhook: h.name, reason: fmt.Errorf("received undecodable patch in webhook response: %w", err), status: apierrors.NewServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(patch) == 0 {
		return nil, false, warnings, nil
	}
	if inv.object == nil {
		return nil, false, warnings, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if res.patchType != admissionv1.PatchTypeJSONPatch {
		return nil, false, warnings, &callError{webhook: h.name, reason: fmt.Errorf("unsupported patch type %q", res.patchType), status: rejectionStatus(h.name, res.result)}
	}
	out, err = d.applyPatch(res.patch, patch, inv.object, inv.kind)
	if err != nil {
		return nil, false, warnings, err
	}
	changed = !apiequality.Semantic.DeepEqual(inv.object, out)
	v, _ := json.Marshal(patchAnnotation{Configuration: config, Webhook: h.name, Patch: patch, PatchType: string(admissionv1.PatchTypeJSONPatch)})
	ann.add(fmt.Sprintf("%sround_%d_index_%d", patchPrefix, round, idx), string(v), true)
	if d.o.Defaulter != nil {
		u := &unstructured.Unstructured{Object: out}
		d.o.Defaulter(u)
		if out, err = d.wire.normalize(u.Object, inv.kind); err != nil {
			return nil, false, warnings, apierrors.NewInternalError(err)
		}
	}
	return out, changed, warnings, nil
}

// applyPatch applies a webhook's JSON patch to object, of kind gvk, as
// kube-apiserver's mutating dispatcher does: with json-patch v4 (through
// mutationpatch, which bounds copies as kube-apiserver does), then decoded
// as the kind's Go type for a built-in kind (not strictly), as unstructured
// content otherwise. Its errors are internal errors.
func (d *Dispatcher) applyPatch(ops []byte, patch jsonpatch.Patch, object map[string]any, gvk schema.GroupVersionKind) (map[string]any, error) {
	out, err := mutationpatch.JSONPatch(ops, object, gvk, false)
	if err != nil {
		var status *apierrors.StatusError
		if errors.As(err, &status) {
			return nil, status
		}
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, apierrors.NewInternalError(err)
	}
	if reflect.ValueOf(out).UnsafePointer() == reflect.ValueOf(object).UnsafePointer() {
		// mutationpatch leaves the object as it is when a test operation
		// fails, as MutatingAdmissionPolicy does; a webhook's patch fails.
		doc, err := json.Marshal(object)
		if err == nil {
			_, err = patch.Apply(doc)
		}
		if err == nil {
			err = jsonpatch.ErrTestFailed
		}
		return nil, apierrors.NewInternalError(err)
	}
	if !d.wire.builtins.Recognizes(gvk) {
		return out, nil
	}
	// The decoding through the Go type without reflection when the
	// Normalizer can; the decoding itself (and its errors) otherwise.
	if u, ok := d.wire.normal.NormalizeDecoded(gvk, out); ok {
		return u, nil
	}
	doc, err := json.Marshal(out)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	into, err := d.wire.builtins.New(gvk)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	typed, _, err := d.wire.objects.Decode(doc, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return u, nil
}
