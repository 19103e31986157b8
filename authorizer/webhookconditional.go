package authorizer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// This file is the webhook authorizer's conditional authorization
// (kube-apiserver 1.38, gate ConditionalAuthorization): AuthorizeConditionally
// offers conditional decisions when the webhook has a conditions review
// endpoint, reads and validates the answer's status in full, and caches the
// decision; EvaluateConditions posts an AuthorizationConditionsReview to
// that endpoint.

var _ ConditionsAuthorizer = (*Webhook)(nil)

// conditionalStatus is a SubjectAccessReview answer's status, read in full.
type conditionalStatus struct {
	allowed, denied         bool
	reason, evaluationError string
	decision                *sarv1.ConditionsAwareDecision
}

// conditionsEndpoint is where a webhook's AuthorizationConditionsReviews
// go: its kubeconfig's conditions review context (or the caller's
// connection).
type conditionsEndpoint struct {
	client    *http.Client
	parsedURL *url.URL
	header    http.Header
}

func (e *conditionsEndpoint) newRequest(ctx context.Context, body []byte) *http.Request {
	return postRequest(ctx, e.parsedURL, e.header, body)
}

// handledDecisionTypes is the spec's authorizationOptions when the webhook
// offers conditional decisions (kube-apiserver's
// ConditionalAuthorizationDecisionTypesList, sorted).
const handledDecisionTypes = `,"authorizationOptions":{"handledDecisionTypes":["Allow","ConditionsMap","Deny","NoOpinion","Union"]}`

// offeredDecisionTypes is handledDecisionTypes as the match conditions see
// it (request.authorizationOptions.handledDecisionTypes). Never modified.
var offeredDecisionTypes = []string{"Allow", "ConditionsMap", "Deny", "NoOpinion", "Union"}

// appendConditionalSAR appends the SubjectAccessReview of a conditional
// ask: the spec ends with authorizationOptions when offered (v1beta1 cannot
// say it: kube-apiserver's conversion drops it).
func appendConditionalSAR(dst []byte, a *Attributes, v1beta1, offer bool) []byte {
	if !offer || v1beta1 {
		return appendSAR(dst, a, v1beta1)
	}
	dst = append(dst, sarPrefixV1...)
	dst = appendSpec(dst, a, false)
	dst = append(dst[:len(dst)-1], handledDecisionTypes...)
	dst = append(dst, '}')
	return append(dst, sarSuffix...)
}

// AuthorizeConditionally asks the webhook as kube-apiserver 1.38's
// ConditionsAwareAuthorize does when the ConditionalAuthorization gate is
// on (before 1.38, or with the gate off, it is Authorize's answer as an
// unconditional decision):
//   - match conditions as for Authorize (an error fails closed with the
//     failure policy's decision, reason "failed closed" and the error);
//   - the SubjectAccessReview offers conditional decisions
//     (spec.authorizationOptions.handledDecisionTypes) only if the webhook
//     has a conditions review endpoint to evaluate them later;
//   - the answer is validated as kube-apiserver validates it (the spec must
//     have a user or groups; a conditionalDecision needs the offer, must
//     be a ConditionsMap or Union, with allowed and denied false and no
//     reason nor evaluationError, and must be well formed): an invalid
//     answer fails closed with the aggregated errors;
//   - denied is Deny, a conditionalDecision is that decision as
//     ConditionalDecision's constructors fold it, allowed is Allow, else
//     NoOpinion, each with the reason and the status's evaluationError as
//     error (allowed and denied both is Deny with an error).
//
// The decision is cached with the authorized TTL when allowed or
// conditional, the unauthorized TTL otherwise; conditional asks have their
// own cache entries.
func (w *Webhook) AuthorizeConditionally(ctx context.Context, a *Attributes) ConditionalDecision {
	if !w.askConditional {
		return UnconditionalDecision(w.Authorize(ctx, a))
	}
	return w.authorizeConditionally(ctx, a, nil)
}

// failClosed is the decision of a conditional ask that failed: the failure
// policy's, reason "failed closed", and err.
func (w *Webhook) failClosed(err error) ConditionalDecision {
	if w.decisionOnError == DecisionNoOpinion {
		return ConditionalDecision{kind: kindNoOpinion, reason: "failed closed", err: err}
	}
	return ConditionalDecision{kind: kindDeny, reason: "failed closed", err: err}
}

// The cache key of a conditional ask ends with one of these (it offers
// conditions or not), so that it never meets a plain Authorize's.
const (
	keyMarkerUnoffered = "\xffunoffered"
	keyMarkerOffered   = "\xffoffered"
)

func (w *Webhook) authorizeConditionally(ctx context.Context, a *Attributes, t *WebhookStep) ConditionalDecision {
	if a == nil {
		a = &noAttributes
	}
	offer := w.conds != nil
	if w.matcher != nil {
		var sc scratch
		var handled []string
		if offer {
			handled = offeredDecisionTypes
		}
		res, err := w.explainMatchOffering(ctx, a, &sc, handled)
		if t != nil {
			t.traceMatch(res, err)
		}
		if err != nil {
			return w.failClosed(err)
		}
		if !res.matched {
			return ConditionalDecision{kind: kindNoOpinion}
		}
	}
	var key []byte
	if w.cache != nil {
		key = appendCacheKey(nil, a)
		if offer {
			key = append(key, keyMarkerOffered...)
		} else {
			key = append(key, keyMarkerUnoffered...)
		}
		if st, ok := w.cache.get(key); ok && st.cond != nil {
			if t != nil {
				t.Cache = CacheHit
			}
			return *st.cond
		}
		if t != nil {
			t.Cache = CacheMiss
		}
	}
	body := appendConditionalSAR(nil, a, w.v1beta1, offer)
	out, _, err := w.reviewAs(ctx, body, t, readFull)
	if err != nil {
		if t != nil {
			t.FailurePolicy = true
		}
		return w.failClosed(err)
	}
	st := out.full
	d := w.conditionalAnswer(a, st, offer)
	if w.cache != nil && cacheable(a) {
		ttl := w.unauthorizedTTL
		if st.allowed || (offer && st.decision != nil) {
			ttl = w.authorizedTTL
		}
		if ttl > 0 {
			w.cache.add(key, reviewStatus{allowed: st.allowed, denied: st.denied, reason: st.reason, cond: &d}, ttl)
		}
	}
	return d
}

// conditionalAnswer is the decision of a validated answer.
func (w *Webhook) conditionalAnswer(a *Attributes, st *conditionalStatus, offer bool) ConditionalDecision {
	if st.allowed && st.denied {
		return ConditionalDecision{kind: kindDeny, reason: st.reason, err: errAllowedAndDenied}
	}
	if errs := validateConditionalStatus(a, st, offer); len(errs) > 0 {
		return w.failClosed(errs.ToAggregate())
	}
	var evalErr error
	if st.evaluationError != "" {
		evalErr = errors.New(st.evaluationError)
	}
	switch {
	case st.denied:
		return ConditionalDecision{kind: kindDeny, reason: st.reason, err: evalErr}
	case st.decision != nil:
		return decisionFromWire(st.decision, w.failClosed)
	case st.allowed:
		return ConditionalDecision{kind: kindAllow, reason: st.reason, err: evalErr}
	}
	return ConditionalDecision{kind: kindNoOpinion, reason: st.reason, err: evalErr}
}

func (w *Webhook) readFullResponse(resp *http.Response) (int, *conditionalStatus, error) {
	body, ct, err := readBody(resp)
	if err != nil {
		return 0, nil, err
	}
	if err := checkResponse(resp.StatusCode, ct, resp.Header.Get("Retry-After"), body); err != nil {
		return responseCode(resp.StatusCode, ct, err), nil, err
	}
	st, err := decodeFullReview(body, w.v1beta1, !w.v1beta1)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, &st, nil
}

func readBody(resp *http.Response) ([]byte, string, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	if len(body) > maxResponseBytes {
		return nil, "", fmt.Errorf("the webhook's response is larger than %d bytes", maxResponseBytes)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

func responseCode(code int, ct string, err error) int {
	if isContentTypeError(ct, err) {
		return 0
	}
	return code
}

func (w *Webhook) readConditionsResponse(resp *http.Response) (int, *sarv1.AuthorizationConditionsReview, error) {
	body, ct, err := readBody(resp)
	if err != nil {
		return 0, nil, err
	}
	if err := checkResponse(resp.StatusCode, ct, resp.Header.Get("Retry-After"), body); err != nil {
		return responseCode(resp.StatusCode, ct, err), nil, err
	}
	r, err := decodeConditionsReview(body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, r, nil
}

var conditionsReviewKind = schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1alpha1", Kind: sarv1.ConditionsReviewKind}

// errConditionsReviewProtobuf: a protobuf answer to a conditions review is
// not read (see the package documentation).
var errConditionsReviewProtobuf = errors.New("a protobuf AuthorizationConditionsReview answer is not supported")

// decodeConditionsReview reads a 2xx AuthorizationConditionsReview answer
// (JSON, or YAML) as client-go decodes it: apiVersion and kind may be
// omitted, keys are case-sensitive, unknown keys are ignored.
func decodeConditionsReview(body []byte) (*sarv1.AuthorizationConditionsReview, error) {
	p, err := readPayload(body)
	if err != nil {
		return nil, err
	}
	if p.proto {
		return nil, errConditionsReviewProtobuf
	}
	if err := p.checkKind(body, conditionsReviewKind); err != nil {
		return nil, err
	}
	var r sarv1.AuthorizationConditionsReview
	if err := kjson.UnmarshalCaseSensitivePreserveInts(p.data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// EvaluateConditions evaluates a conditional decision this webhook returned
// against data, as kube-apiserver 1.38's webhook authorizer (before 1.38:
// Deny with ErrConditionEvaluationNotSupported). It fails closed (d's
// failure decision, reason "failed closed", an error) for an unconditional
// d, nil data, a webhook without a conditions review endpoint, an object
// without apiVersion and kind, a failed call, and an answer without a
// response, invalid, with another uid than the request's
// admissionRequest.uid, or with a decision d could not evaluate to.
// Otherwise the answer's decision, reason and evaluationError decide.
func (w *Webhook) EvaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData) (Decision, string, error) {
	return w.evaluateConditions(ctx, d, data, nil)
}

func (w *Webhook) evaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData, t *WebhookStep) (Decision, string, error) {
	if !w.evaluates {
		return DecisionDeny, "", ErrConditionEvaluationNotSupported
	}
	if _, ok := d.Unconditional(); ok {
		return d.FailureDecision(), "failed closed", errors.New("got unconditional decisionToEvaluate in EvaluateConditions")
	}
	if data == nil {
		return d.FailureDecision(), "failed closed", errors.New("data must be non-nil in EvaluateConditions")
	}
	if w.conds == nil {
		return d.FailureDecision(), "failed closed", errors.New("no authorization conditions review client configured for the webhook authorizer, cannot evaluate conditions")
	}
	for _, o := range [...]struct {
		name string
		obj  runtime.Object
	}{{"object", data.Object}, {"oldObject", data.OldObject}} {
		if isNilObject(o.obj) {
			continue
		}
		if gvk := o.obj.GetObjectKind().GroupVersionKind(); gvk.Version == "" || gvk.Kind == "" {
			return d.FailureDecision(), "failed closed", fmt.Errorf("%s of type %T must have apiVersion and kind set to be sent to the webhook authorizer", o.name, o.obj)
		}
	}
	uid := w.newUID()
	body, err := conditionsReviewBody(d, data, uid)
	if err != nil {
		return d.FailureDecision(), "failed closed", err
	}
	out, _, err := w.reviewAs(ctx, body, t, readConditions)
	if err != nil {
		if t != nil {
			t.FailurePolicy = true
		}
		return d.FailureDecision(), "failed closed", err
	}
	return evaluationOutcome(d, out.conditions, uid)
}

// evaluationOutcome checks a conditions review's answer as kube-apiserver
// does and returns its decision.
func evaluationOutcome(d ConditionalDecision, r *sarv1.AuthorizationConditionsReview, uid types.UID) (Decision, string, error) {
	if r.Response == nil {
		return d.FailureDecision(), "failed closed", field.Required(field.NewPath("response"), "must be set in AuthorizationConditionsReview responses")
	}
	if errs := validateConditionsReview(r); len(errs) > 0 {
		return d.FailureDecision(), "failed closed", errs.ToAggregate()
	}
	if r.Response.UID != uid {
		return d.FailureDecision(), "failed closed", field.Invalid(field.NewPath("response", "uid"), r.Response.UID,
			fmt.Sprintf("mismatch, expected %q that was given in request.admissionRequest.uid", string(uid)))
	}
	rd := &r.Response.Decision
	var (
		x Decision
		u *sarv1.UnconditionalDecision
	)
	switch rd.Type {
	case sarv1.ConditionsAwareDecisionTypeDeny:
		x, u = DecisionDeny, rd.Deny
	case sarv1.ConditionsAwareDecisionTypeNoOpinion:
		x, u = DecisionNoOpinion, rd.NoOpinion
	case sarv1.ConditionsAwareDecisionTypeAllow:
		x, u = DecisionAllow, rd.Allow
	default:
		// Unreachable: validation accepts only the three.
		return d.FailureDecision(), "failed closed", fmt.Errorf("unrecognized decisionToEvaluate type %q", string(rd.Type))
	}
	if possible := d.possible(); !possible.has(x) {
		return d.FailureDecision(), "failed closed", fmt.Errorf("webhook authorizer tried to return %s from EvaluateConditions, but the possible outcomes were %v", x, possible)
	}
	return x, wireReason(u), wireError(u)
}

// validateConditionsReview is kube-apiserver 1.38's validation of a
// conditions review's answer (CombinedValidateAuthorizationConditionsReviewCreate):
// the handwritten rules (an echoed request's decision must be conditional,
// the response's unconditional, metadata empty), then the declarative ones
// (decisions well formed, an echoed request with its admissionRequest, the
// response's uid set).
func validateConditionsReview(r *sarv1.AuthorizationConditionsReview) field.ErrorList {
	var errs field.ErrorList
	if q := r.Request; q != nil {
		switch q.Decision.Type {
		case sarv1.ConditionsAwareDecisionTypeAllow, sarv1.ConditionsAwareDecisionTypeNoOpinion, sarv1.ConditionsAwareDecisionTypeDeny:
			errs = append(errs, field.Invalid(field.NewPath("request", "decision", "type"), q.Decision.Type, "must be a conditional decision"))
		}
	}
	if s := r.Response; s != nil {
		switch s.Decision.Type {
		case sarv1.ConditionsAwareDecisionTypeConditionsMap, sarv1.ConditionsAwareDecisionTypeUnion:
			errs = append(errs, field.Invalid(field.NewPath("response", "decision", "type"), s.Decision.Type, "currently must evaluate to an unconditional decision"))
		}
	}
	if !emptyMeta(r.ObjectMeta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty"))
	}
	if q := r.Request; q != nil {
		errs = append(errs, validateWireDecision(field.NewPath("request", "decision"), &q.Decision)...)
		if q.AdmissionRequest == nil {
			errs = append(errs, field.Required(field.NewPath("request", "admissionRequest"), ""))
		}
	}
	if s := r.Response; s != nil {
		if s.UID == "" {
			errs = append(errs, field.Required(field.NewPath("response", "uid"), ""))
		}
		errs = append(errs, validateWireDecision(field.NewPath("response", "decision"), &s.Decision)...)
	}
	return errs
}

// emptyMeta is apimachinery's semantic equality of m (without managed
// fields) with the empty ObjectMeta: empty and nil lists and maps are
// equal.
func emptyMeta(m metav1.ObjectMeta) bool {
	m.ManagedFields = nil
	if len(m.Labels) == 0 {
		m.Labels = nil
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
	if len(m.OwnerReferences) == 0 {
		m.OwnerReferences = nil
	}
	if len(m.Finalizers) == 0 {
		m.Finalizers = nil
	}
	if m.CreationTimestamp.IsZero() {
		m.CreationTimestamp = metav1.Time{}
	}
	return reflect.DeepEqual(m, metav1.ObjectMeta{})
}

func isNilObject(o runtime.Object) bool {
	if o == nil {
		return true
	}
	v := reflect.ValueOf(o)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// conditionsReviewBody is the AuthorizationConditionsReview kube-apiserver
// posts: the decision, and the admission data as an AdmissionRequest whose
// uid the answer must echo.
func conditionsReviewBody(d ConditionalDecision, data *ConditionsData, uid types.UID) ([]byte, error) {
	kind := metav1.GroupVersionKind(data.Kind)
	resource := metav1.GroupVersionResource(data.Resource)
	dryRun := data.DryRun
	var extra map[string]authenticationv1.ExtraValue
	if data.User.Extra != nil {
		extra = make(map[string]authenticationv1.ExtraValue, len(data.User.Extra))
		for k, v := range data.User.Extra {
			extra[k] = authenticationv1.ExtraValue(v)
		}
	}
	r := sarv1.AuthorizationConditionsReview{
		TypeMeta: metav1.TypeMeta{Kind: sarv1.ConditionsReviewKind, APIVersion: sarv1.ConditionsReviewAPIVersion},
		Request: &sarv1.AuthorizationConditionsRequest{
			Decision: decisionToWire(d),
			AdmissionRequest: &admissionv1.AdmissionRequest{
				UID:                uid,
				Kind:               kind,
				Resource:           resource,
				SubResource:        data.Subresource,
				RequestKind:        &kind,
				RequestResource:    &resource,
				RequestSubResource: data.Subresource,
				Name:               data.Name,
				Namespace:          data.Namespace,
				Operation:          admissionv1.Operation(data.Operation),
				UserInfo: authenticationv1.UserInfo{
					Username: data.User.Name,
					UID:      data.User.UID,
					Groups:   data.User.Groups,
					Extra:    extra,
				},
				Object:    runtime.RawExtension{Object: data.Object},
				OldObject: runtime.RawExtension{Object: data.OldObject},
				DryRun:    &dryRun,
				Options:   runtime.RawExtension{Object: data.Options},
			},
		},
	}
	b, err := json.Marshal(&r)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// setConditionsReview sets the webhook's conditions review endpoint, as
// kube-apiserver builds it: the context of the kubeconfig file (or the
// caller's connection), with the webhook's timeout.
func (w *Webhook) setConditionsReview(cr *WebhookConditionsReview, opts WebhookOptions) error {
	if cr.Version != "v1alpha1" {
		return fmt.Errorf("unsupported webhook conditions review version %q, supported versions are %v", cr.Version, []string{"v1alpha1"})
	}
	var conn Connection
	switch {
	case opts.KubeConfigFile != "":
		c, err := loadKubeconfigContext(opts.KubeConfigFile, cr.KubeConfigContext, w.clock)
		if err != nil {
			return fmt.Errorf("failed to load conditions review kubeconfig context %q: %w", cr.KubeConfigContext, err)
		}
		conn = c
	case cr.Connection != nil:
		conn = *cr.Connection
	case opts.Connection != nil:
		conn = *opts.Connection
	default:
		return errors.New("a webhook's conditions review needs a kubeconfig file or a connection")
	}
	e, err := newConditionsEndpoint(conn, w, opts.UserAgent)
	if err != nil {
		return err
	}
	w.conds = e
	w.files = slices.Clone(w.files)
	for _, f := range conn.files {
		if !slices.Contains(w.files, f) {
			w.files = append(w.files, f)
		}
	}
	return nil
}

// newConditionsEndpoint is the conditions review endpoint of conn, with the
// webhook's timeout and user agent.
func newConditionsEndpoint(conn Connection, w *Webhook, userAgent string) (*conditionsEndpoint, error) {
	u, err := requestURL(conn.Server, conn.defaultTLS, w.timeout)
	if err != nil {
		return nil, err
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	parsed.Host = strings.TrimSuffix(parsed.Host, ":")
	rt := conn.Transport
	if rt == nil {
		rt = newTransport(nil)
	}
	e := &conditionsEndpoint{
		client:    &http.Client{Transport: rt},
		parsedURL: parsed,
		header:    http.Header{"Accept": {"application/json, */*"}, "Content-Type": {"application/json"}},
	}
	if userAgent != "" {
		e.header.Set("User-Agent", userAgent)
	}
	return e, nil
}
