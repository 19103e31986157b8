package admissionwebhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/internal/randuid"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Converter converts an object to another version of its kind. It is needed
// only for webhooks that match a request through an equivalent resource of
// another version (matchPolicy Equivalent): kube-apiserver sends them the
// objects in the matched version. It must be safe for concurrent use and
// must not modify obj. It is the same type as the admission policies'
// (mutation.Converter, validatingpolicy.Converter): one serves them all.
type Converter = admissionpolicy.Converter

// ConverterFunc adapts a function to a Converter.
type ConverterFunc = admissionpolicy.ConverterFunc

// Options are what a Dispatcher needs beside the webhooks. The zero value
// calls webhooks over the network with the system's roots and kube-apiserver's
// default service resolver (the service's DNS name).
type Options struct {
	// Match is what the webhook matcher needs: the namespace lookup for
	// namespaceSelectors, the equivalent resources, the match conditions'
	// authorizer, whether the webhooks come from the API. Its Metrics and
	// Clock default to the Dispatcher's.
	Match admissionmanifest.MatchOptions
	// DialContext opens the connections; nil is a net.Dialer's.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLSConfig is the base of every webhook's TLS configuration (for
	// example the client certificate kube-apiserver presents); a webhook's
	// caBundle replaces its RootCAs, a service sets its ServerName if
	// empty. nil: no client certificate, the system's roots.
	TLSConfig *tls.Config
	// WrapTransport wraps each webhook's transport (for instrumentation, or
	// to replace it in tests); nil leaves it as it is.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// ServiceResolver resolves service references; nil resolves
	// <name>.<namespace>.svc:<port> through DNS, as kube-apiserver's
	// default resolver does.
	ServiceResolver ServiceResolver
	// UID gives each call's AdmissionReview uid; nil is a random UUID, as
	// kube-apiserver's.
	UID func() types.UID
	// Converter converts objects to the version of a webhook matched
	// through an equivalent resource; nil fails such requests with an
	// internal error.
	Converter Converter
	// Defaulter runs on each object a mutating webhook's patch produced,
	// as kube-apiserver defaults it; nil defaults nothing (a library
	// cannot embed every type's defaulting).
	Defaulter func(obj *unstructured.Unstructured)
	// Metrics receives kube-apiserver's admission webhook metrics; nil
	// records nothing. Clock times the calls; nil is the real clock.
	Metrics metrics.Sink
	Clock   clock.PassiveClock
	// Kube is the kube-apiserver the dispatcher answers as (its matcher's
	// too: Match.Kube is set to it); the zero Target is the newest release.
	Kube kube.Target
	// Clients, if set, holds the webhooks' HTTP clients (and so their
	// connections) for every Dispatcher given it, as kube-apiserver's
	// webhook plugins keep one client manager across configuration
	// changes: a Dispatcher rebuilt for a new configuration reuses the
	// clients of the clientConfigs it shares with the one before. nil: the
	// Dispatcher's own. Dispatchers that share Clients must share the
	// transport options above (DialContext, TLSConfig, WrapTransport,
	// ServiceResolver), which a client keeps from the Dispatcher that built
	// it.
	Clients *ClientCache
}

// Dispatcher calls admission webhooks as kube-apiserver's
// ValidatingAdmissionWebhook and MutatingAdmissionWebhook plugins do. It is
// immutable and safe for concurrent use.
type Dispatcher struct {
	o          Options
	wire       *wire
	clients    *clients
	validating *admissionmanifest.WebhookMatcher
	mutating   []mutatingHook
	// uids identify the mutating webhooks across the passes of a request.
	uids  []string
	sink  metrics.Sink
	clock clock.PassiveClock
}

type mutatingHook struct {
	webhook *admissionregistrationv1.MutatingWebhook
	config  string
	matcher *admissionmanifest.WebhookMatcher
}

// NewDispatcher compiles webhooks (validating and mutating ones, in
// kube-apiserver's order: their configurations sorted by name, each one's
// webhooks in order). The webhooks must have their API defaults and must
// not change afterwards.
func NewDispatcher(webhooks []admissionmanifest.Webhook, o Options) (*Dispatcher, error) {
	w, err := newWire()
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{o: o, wire: w, sink: metrics.OrNoop(o.Metrics), clock: o.Clock}
	if d.clock == nil {
		d.clock = clock.RealClock{}
	}
	d.clients = newClients(&d.o)
	if o.Match.Metrics == nil {
		o.Match.Metrics = o.Metrics
	}
	if o.Match.Clock == nil {
		o.Match.Clock = o.Clock
	}
	o.Match.Kube = o.Kube
	var validating []admissionmanifest.Webhook
	for i := range webhooks {
		wh := webhooks[i]
		switch {
		case wh.Validating != nil:
			validating = append(validating, wh)
		case wh.Mutating != nil:
			m, err := admissionmanifest.NewWebhookMatcher([]admissionmanifest.Webhook{wh}, o.Match)
			if err != nil {
				return nil, err
			}
			d.mutating = append(d.mutating, mutatingHook{webhook: wh.Mutating, config: wh.ConfigurationName, matcher: m})
			d.uids = append(d.uids, wh.UID)
		default:
			return nil, fmt.Errorf("webhook %d is neither validating nor mutating", i)
		}
	}
	webhookUIDs(d.mutating, d.uids)
	if d.validating, err = admissionmanifest.NewWebhookMatcher(validating, o.Match); err != nil {
		return nil, err
	}
	return d, nil
}

// Result is what the webhooks did to a request, admitted or not.
type Result struct {
	// Object is the object after the mutating webhooks (Admit), nil when
	// the request has none or it was refused; Validate leaves it nil.
	Object *unstructured.Unstructured
	// Warnings are the webhooks' warnings, in the order of the webhooks,
	// as kube-apiserver hands them to the request's warning recorder
	// (which drops duplicates and truncates them when it writes the
	// Warning headers).
	Warnings []string
	// AuditAnnotations are the audit annotations at level Metadata: each
	// webhook's own as "<webhook>/<key>" (a key that is not a qualified
	// name is dropped, as is one that would overwrite another value),
	// mutation.webhook.admission.k8s.io/round_<r>_index_<i> of each mutating
	// call (r is 1 in the reinvocation, i counts all the dispatcher's
	// mutating webhooks), and
	// failed-open.*.webhook.admission.k8s.io/round_<r>_index_<i> of each
	// webhook that failed open (i counts the matched validating webhooks).
	AuditAnnotations map[string]string
	// PatchAnnotations are the audit annotations at level Request (logged
	// only at that level and above): patch.webhook.admission.k8s.io/round_<r>_index_<i>
	// of each mutating call that returned a patch.
	PatchAnnotations map[string]string
	// FailedOpen are the webhooks whose call failed under failurePolicy
	// Ignore, in the webhooks' order, with the error: the request went on,
	// and kube-apiserver only logs these errors ("Failed calling webhook,
	// failing open"), which a server may want to log too.
	FailedOpen []WebhookError
}

// WebhookError is a webhook's failure.
type WebhookError struct {
	Webhook, Configuration string
	Err                    error
}

// fate is what a webhook's failure does to the request, as kube-apiserver's
// dispatchers decide: a failure to call the webhook fails open under
// failurePolicy Ignore (no status), and otherwise fails the request with an
// internal error wrapping it (`Internal error occurred: failed calling
// webhook "<name>": ...`); a refusal fails it with the webhook's status;
// anything else (a dry run the webhook cannot take, a patch that does not
// apply) with its own status.
func fate(err error, ignore bool) (status *apierrors.StatusError, failedOpen bool) {
	var ce *callError
	var rj *rejection
	switch {
	case errors.As(err, &ce):
		if ignore {
			return nil, true
		}
		return apierrors.NewInternalError(ce), false
	case errors.As(err, &rj):
		return rj.status, false
	default:
		return plainError(err), false
	}
}

// canceled tells a call failure whose context was canceled, which
// kube-apiserver neither counts nor annotates when it fails open.
func canceled(err error) bool {
	var ce *callError
	return errors.As(err, &ce) && errors.Is(ce.reason, context.Canceled)
}

// annotations records audit annotations as kube-apiserver's admission
// attributes do: keys must be qualified names with a prefix, and a key keeps
// its first value.
type annotations struct {
	mu       sync.Mutex
	metadata map[string]string
	request  map[string]string
}

// annotationKey tells whether key is a prefixed qualified name, as
// kube-apiserver checks the keys of audit annotations
// (len(strings.Split(key, "/")) == 2 && len(validation.IsQualifiedName(key))
// == 0), without regular expressions: a DNS-1123 subdomain of at most 253
// characters, a slash, and a name of at most 63 alphanumeric characters,
// '-', '_' or '.', starting and ending alphanumeric.
func annotationKey(key string) bool {
	prefix, name, ok := strings.Cut(key, "/")
	if !ok || len(prefix) == 0 || len(prefix) > 253 || len(name) == 0 || len(name) > 63 {
		return false
	}
	// The subdomain: labels of [a-z0-9-], separated by dots, each starting
	// and ending with [a-z0-9].
	start := 0
	for i := 0; i <= len(prefix); i++ {
		if i < len(prefix) && prefix[i] != '.' {
			c := prefix[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		if i == start || prefix[start] == '-' || prefix[i-1] == '-' {
			return false
		}
		start = i + 1
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func (a *annotations) add(key, value string, requestLevel bool) {
	if !annotationKey(key) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.metadata[key]; ok {
		return
	}
	if _, ok := a.request[key]; ok {
		return
	}
	m := &a.metadata
	if requestLevel {
		m = &a.request
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[key] = value
}

// hook is what calling one webhook needs.
type hook struct {
	name                    string
	clientConfig            *admissionregistrationv1.WebhookClientConfig
	timeoutSeconds          *int32
	sideEffects             *admissionregistrationv1.SideEffectClass
	admissionReviewVersions []string
	ignore                  bool
}

// call calls one webhook, as kube-apiserver's dispatchers' callHook do: it
// records the webhook's audit annotations and returns its warnings, then its
// answer, a *callError, a *rejection or another *apierrors.StatusError.
func (d *Dispatcher) call(ctx context.Context, h *hook, r *Request, inv *invocation, mutating bool, ann *annotations) (*response, []string, error) {
	if r.DryRun {
		if h.sideEffects == nil {
			//lint:ignore ST1005 kube-apiserver's exact text
			return nil, nil, &callError{webhook: h.name, reason: errors.New("Webhook SideEffects is nil"), status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
		}
		if *h.sideEffects != admissionregistrationv1.SideEffectClassNone && *h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
			return nil, nil, dryRunUnsupported(h.name)
		}
	}
	uid := randuid.New()
	if d.o.UID != nil {
		uid = d.o.UID()
	}
	request, into, err := d.wire.review(h.admissionReviewVersions, uid, r, inv)
	if err != nil {
		return nil, nil, &callError{webhook: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), status: apierrors.NewBadRequest("error creating admission objects")}
	}
	cl, err := d.clients.clientFor(h.name, h.clientConfig)
	if err != nil {
		return nil, nil, &callError{webhook: h.name, reason: fmt.Errorf("could not get REST client: %w", err), status: apierrors.NewInternalError(err)}
	}
	if h.timeoutSeconds != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*h.timeoutSeconds)*time.Second)
		defer cancel()
	}
	body, err := d.wire.encode(request)
	if err == nil {
		err = cl.post(ctx, d.wire, body, into)
	}
	if err != nil {
		status, ok := err.(*apierrors.StatusError)
		if !ok {
			status = apierrors.NewServiceUnavailable("error calling webhook")
		}
		return nil, nil, &callError{webhook: h.name, reason: fmt.Errorf("failed to call webhook: %w", err), status: status}
	}
	res, err := verifyResponse(uid, mutating, into)
	if err != nil {
		return nil, nil, &callError{webhook: h.name, reason: fmt.Errorf("received invalid webhook response: %w", err), status: apierrors.NewServiceUnavailable("error validating webhook response")}
	}
	for k, v := range res.auditAnnotations {
		ann.add(h.name+"/"+k, v, false)
	}
	warnings := res.warnings
	if !res.allowed {
		return res, warnings, &rejection{status: rejectionStatus(h.name, res.result)}
	}
	return res, warnings, nil
}

// Metric label values.
const (
	typeValidating = "validating"
	typeAdmit      = "admit"
)

// observe records a call's metrics as kube-apiserver's dispatchers do.
func (d *Dispatcher) observe(name, stepType, operation string, elapsed time.Duration, err error, ignore bool) {
	code, rejected := 200, false
	rejectionType, rejectionCode := "", 0
	var ce *callError
	var rj *rejection
	switch {
	case err == nil:
	case errors.As(err, &ce):
		code = int(ce.status.ErrStatus.Code)
		if !ignore {
			rejected = true
			if !errors.Is(ce.reason, context.Canceled) {
				rejectionType, rejectionCode = "calling_webhook_error", code
			}
		}
	case errors.As(err, &rj):
		code, rejected = int(rj.status.ErrStatus.Code), true
		rejectionType, rejectionCode = "no_error", code
	default:
		code, rejected = 0, true
		rejectionType = "apiserver_internal_error"
	}
	if rejectionType != "" {
		d.sink.Add(metrics.AdmissionWebhookRejections, 1, name, stepType, operation, rejectionType, strconv.Itoa(min(rejectionCode, 600)))
	}
	d.sink.Add(metrics.AdmissionWebhookRequests, 1, name, stepType, operation, strconv.Itoa(min(code, 600)), strconv.FormatBool(rejected))
	d.sink.Observe(metrics.AdmissionWebhookDuration, elapsed.Seconds(), name, stepType, operation, strconv.FormatBool(rejected))
}

// matchRequest is r as the webhook matcher reads it, with object as its
// object.
func matchRequest(r *Request, object *unstructured.Unstructured) *admissionmanifest.Request {
	m := &admissionmanifest.Request{
		Operation:   r.Operation,
		Kind:        r.Kind,
		Resource:    r.Resource,
		SubResource: r.SubResource,
		Name:        r.Name,
		Namespace:   r.Namespace,
		UserInfo:    r.UserInfo,
		DryRun:      r.DryRun,
		Options:     r.Options,
		// WithoutMetadata: the predicates know the built-in kinds.
		WithoutMetadata: r.WithoutMetadata,
	}
	if object != nil {
		m.Object = object
	}
	if r.OldObject != nil {
		m.OldObject = r.OldObject
	}
	return m
}

// convert returns obj in the version of to, through the Converter when
// the kind obj says it is (from, where it says none) differs, as
// kube-apiserver converts an object only when its kind is not the one
// wanted. obj is not modified; the result may be obj itself.
func (d *Dispatcher) convert(obj *unstructured.Unstructured, from, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	if obj == nil {
		return nil, nil
	}
	return d.convertFrom(obj, ownKind(obj, from), to)
}

// convertFrom converts obj, of kind from, to the version of to.
func (d *Dispatcher) convertFrom(obj *unstructured.Unstructured, from, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	if from == to {
		return obj, nil
	}
	if d.o.Converter == nil {
		return nil, errNoConverter(from, to)
	}
	return d.o.Converter.Convert(obj, to)
}

func failedOpenKey(prefix string, round, index int) string {
	return fmt.Sprintf("failed-open.%sround_%d_index_%d", prefix, round, index)
}

const (
	validatingPrefix = "validating.webhook.admission.k8s.io/"
	mutationPrefix   = "mutation.webhook.admission.k8s.io/"
	patchPrefix      = "patch.webhook.admission.k8s.io/"
)

// requestTimeout is kube-apiserver's error for a request whose context
// ended before the webhooks answered.
func requestTimeout() *apierrors.StatusError {
	return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
}

func result(ann *annotations) Result {
	return Result{AuditAnnotations: ann.metadata, PatchAnnotations: ann.request}
}
