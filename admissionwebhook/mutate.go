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
	var failed []WebhookError
	fail := func(err error) (Result, error) {
		res := result(ann)
		res.Warnings, res.FailedOpen = warnings, failed
		return res, err
	}
	// The objects as kube-apiserver holds them, in the request's kind and in
	// the kind of the last webhook matched; taken through their Go type
	// (normalized) when first needed, so that a request no webhook matches
	// costs no conversion.
	v := newVersions(d, r)
	rc := r.Reinvocation
	reinvoke := false
	if rc != nil {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.Flags != nil && rc.Flags.IsReinvoke() {
			if err := v.normalize(); err != nil {
				return fail(err)
			}
		}
		reinvoke = rc.start(admissionpolicy.Content(v.object))
		// The pass's output, for the next (after a failure there is none).
		defer func() { rc.end(admissionpolicy.Content(v.object)) }()
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
	mreq := matchRequest(r, r.Object)
	mreq.Versioned = v.conditionObjects
	var matches []admissionmanifest.WebhookMatch
	for i := range d.mutating {
		mh := &d.mutating[i]
		// Each webhook is matched against the current object: the versioned
		// one once there is one, the request's otherwise.
		if obj := v.current(); obj != nil {
			mreq.Object = obj
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
				t.Webhooks = append(t.Webhooks, WebhookTrace{Webhook: mh.webhook.Name, Configuration: mh.config, Reason: admissionmanifest.ReasonError, Err: m.Err, Status: plainError(m.Err)})
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
		// The objects in the matched kind: kube-apiserver wraps the
		// conversion's internal error once more here.
		if err := v.normalize(); err != nil {
			return fail(err)
		}
		if err := v.to(m.Kind); err != nil {
			return fail(apierrors.NewInternalError(err))
		}
		inv := &invocation{kind: m.Kind, resource: m.Resource, as: v.as}
		if v.versioned != nil {
			inv.object = v.versioned.Object
		}
		if v.versionedOld != nil {
			inv.old = v.versionedOld.Object
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
		out, as, changed, ws, err := d.mutate(ctx, h, mh.config, round, i, r, inv, ann)
		warnings = append(warnings, ws...)
		d.observe(h.name, typeAdmit, string(r.Operation), d.clock.Since(start), err, h.ignore)
		var status *apierrors.StatusError
		failedOpen := false
		if err != nil {
			status, failedOpen = fate(err, h.ignore)
		}
		if t != nil {
			wt := WebhookTrace{Webhook: h.name, Configuration: mh.config, Called: true, Reason: admissionmanifest.ReasonMatched,
				Err: err, Status: status, FailedOpen: failedOpen, Patched: changed}
			if changed {
				wt.Changed = objectdiff.ChangedPaths(inv.object, out)
			}
			t.Webhooks = append(t.Webhooks, wt)
		}
		if out != nil {
			v.patched(&unstructured.Unstructured{Object: out}, as)
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
		if !failedOpen {
			return fail(status)
		}
		failed = append(failed, WebhookError{Webhook: h.name, Configuration: mh.config, Err: err})
		if !canceled(err) {
			d.sink.Add(metrics.AdmissionWebhookFailOpen, 1, h.name, typeAdmit)
			ann.add(failedOpenKey(mutationPrefix, round, i), h.name, false)
		}
		select {
		case <-ctx.Done():
			return fail(requestTimeout())
		default:
		}
	}
	// The patched object back in the request's kind.
	object, err := v.result()
	if err != nil {
		return fail(err)
	}
	v.object = object
	res := result(ann)
	res.Warnings, res.FailedOpen = warnings, failed
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
// did not patch it) and the kind it is held as, whether it changed, the
// webhook's warnings and its failure.
func (d *Dispatcher) mutate(ctx context.Context, h *hook, config string, round, idx int, r *Request, inv *invocation, ann *annotations) (out map[string]any, as schema.GroupVersionKind, changed bool, warnings []string, err error) {
	defer func() {
		v, _ := json.Marshal(mutationAnnotation{Configuration: config, Webhook: h.name, Mutated: changed})
		ann.add(fmt.Sprintf("%sround_%d_index_%d", mutationPrefix, round, idx), string(v), false)
	}()
	res, warnings, err := d.call(ctx, h, r, inv, true, ann)
	if err != nil {
		return nil, as, false, warnings, err
	}
	if len(res.patch) == 0 {
		return nil, as, false, warnings, nil
	}
	patch, err := jsonpatch.DecodePatch(res.patch)
	if err != nil {
		return nil, as, false, warnings, &callError{webhook: h.name, reason: fmt.Errorf("received undecodable patch in webhook response: %w", err), status: apierrors.NewServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(patch) == 0 {
		return nil, as, false, warnings, nil
	}
	if inv.object == nil {
		return nil, as, false, warnings, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if res.patchType != admissionv1.PatchTypeJSONPatch {
		return nil, as, false, warnings, &callError{webhook: h.name, reason: fmt.Errorf("unsupported patch type %q", res.patchType), status: rejectionStatus(h.name, res.result)}
	}
	out, as, err = d.applyPatch(res.patch, patch, inv.object, inv.kind, inv.objectKind())
	if err != nil {
		return nil, as, false, warnings, err
	}
	changed = !apiequality.Semantic.DeepEqual(inv.object, out)
	v, _ := json.Marshal(patchAnnotation{Configuration: config, Webhook: h.name, Patch: patch, PatchType: string(admissionv1.PatchTypeJSONPatch)})
	ann.add(fmt.Sprintf("%sround_%d_index_%d", patchPrefix, round, idx), string(v), true)
	if d.o.Defaulter != nil {
		u := &unstructured.Unstructured{Object: out}
		d.o.Defaulter(u)
		if out, err = d.wire.normalize(u.Object, as); err != nil {
			return nil, as, false, warnings, apierrors.NewInternalError(err)
		}
	}
	return out, as, changed, warnings, nil
}

// applyPatch applies a webhook's JSON patch to object, the versioned object
// of kind gvk held as kind as, as kube-apiserver's mutating dispatcher does: with
// json-patch v4 (through mutationpatch, which bounds copies as
// kube-apiserver does), then, when gvk is a built-in kind (kube-apiserver
// holds the object typed), decoded not strictly into the Go type of the
// kind the patched document names (gvk filling what it leaves out: a patch
// may change the kind), as unstructured content otherwise. Its errors are
// internal errors.
func (d *Dispatcher) applyPatch(ops []byte, patch jsonpatch.Patch, object map[string]any, gvk, as schema.GroupVersionKind) (map[string]any, schema.GroupVersionKind, error) {
	var none schema.GroupVersionKind
	typed := d.wire.builtins.Recognizes(gvk)
	out, err := mutationpatch.JSONPatch(ops, object, gvk, false)
	if err != nil && !typed {
		var status *apierrors.StatusError
		if errors.As(err, &status) {
			return nil, none, status
		}
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, none, apierrors.NewInternalError(err)
	}
	if err == nil && reflect.ValueOf(out).UnsafePointer() == reflect.ValueOf(object).UnsafePointer() {
		// mutationpatch leaves the object as it is when a test operation
		// fails, as MutatingAdmissionPolicy does; a webhook's patch fails.
		err = jsonpatch.ErrTestFailed
	}
	if !typed {
		if err != nil {
			return nil, none, apierrors.NewInternalError(err)
		}
		// Unstructured: exactly the kind it says, empty parts included.
		return out, (&unstructured.Unstructured{Object: out}).GroupVersionKind(), nil
	}
	// The decoding through the Go type without reflection when the patched
	// content is certain: the kind it names, a Normalizer's.
	if err == nil {
		if actual := decodedKind(out, gvk); d.wire.builtins.Recognizes(actual) {
			if u, ok := d.wire.normal.NormalizeDecoded(actual, out); ok {
				return u, actual, nil
			}
		}
	}
	// kube-apiserver's way: the patch applied to the object's JSON, the
	// result decoded into the Go type of gvk or of the kind it names.
	doc, err := d.wire.encodeObject(object, gvk, as)
	if err != nil {
		return nil, none, apierrors.NewInternalError(err)
	}
	if doc, err = mutationpatch.ApplyJSON(patch, doc); err != nil {
		var status *apierrors.StatusError
		if errors.As(err, &status) {
			return nil, none, status
		}
		return nil, none, apierrors.NewInternalError(err)
	}
	into, err := d.wire.builtins.New(gvk)
	if err != nil {
		return nil, none, apierrors.NewInternalError(err)
	}
	typedOut, actual, err := d.wire.objects.Decode(doc, nil, into)
	if err != nil {
		return nil, none, apierrors.NewInternalError(mutationpatch.KubeSchemeError(err, d.wire.builtins))
	}
	// The content as decoded (kube-apiserver's typed object keeps the
	// apiVersion and kind the document says, none if a patch removed them),
	// and the kind of its Go type.
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typedOut)
	if err != nil {
		return nil, none, apierrors.NewInternalError(err)
	}
	return u, *actual, nil
}

// decodedKind is the kind kube-apiserver's JSON serializer decodes content
// as when it decodes into an object of kind into: the content's apiVersion
// and kind, into's filling what it leaves out.
func decodedKind(content map[string]any, into schema.GroupVersionKind) schema.GroupVersionKind {
	apiVersion, _ := content["apiVersion"].(string)
	kind, _ := content["kind"].(string)
	actual := schema.FromAPIVersionAndKind(apiVersion, kind)
	if actual.Kind == "" {
		actual.Kind = into.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = into.Group, into.Version
	}
	if actual.Version == "" && actual.Group == into.Group {
		actual.Version = into.Version
	}
	return actual
}
