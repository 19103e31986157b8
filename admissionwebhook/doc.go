// Package admissionwebhook calls validating and mutating admission webhooks
// as kube-apiserver 1.37's ValidatingAdmissionWebhook and
// MutatingAdmissionWebhook plugins do, without k8s.io/apiserver or
// client-go.
//
// A [Dispatcher] is built from webhooks (package admissionmanifest's
// [admissionmanifest.Webhook], loaded from static manifests or made from
// API objects with their defaults) and [Options]: the transport pieces
// (dialer, base TLS configuration, service resolver), the uid source, the
// metrics sink and the clock. [Dispatcher.Validate] and [Dispatcher.Admit]
// match each webhook with admissionmanifest's WebhookMatcher (rules,
// selectors, matchPolicy Equivalent, match conditions under their failure
// policy) and call the matched ones. [Dispatcher.ExplainAdmit] and
// [Dispatcher.ExplainValidate] also return a [Trace]: each webhook, called
// or why not, its answer, failing open, and the fields its patch changed.
// API webhook configurations become webhooks with
// admissionmanifest.WebhooksOf; package admission runs the dispatcher in
// kube-apiserver's chain with the admission policies.
//
// # The exchange
//
// The body is an AdmissionReview in the first version of the webhook's
// admissionReviewVersions that kube-apiserver supports (v1, v1beta1),
// encoded with apimachinery's legacy codec as kube-apiserver's client
// manager encodes it: uid, kind and resource (the matched ones),
// subResource, requestKind, requestResource, requestSubResource, name,
// namespace, operation, userInfo, object and oldObject (a built-in kind's
// through its Go type, so in its field order and with its non-omitempty
// fields: written from its content by internal/typednormal's plan of the
// type, json.Marshal of the typed object where the plan is unsure), dryRun
// and options (a review whose strings need no escaping is written without
// the codec, to the same bytes). It is posted with TLS (a
// webhook's caBundle as its only roots, the system's when empty; TLS 1.2
// at least; HTTP/1.1 but for a loopback URL), to the url, or for a service
// to
// https://<name>.<namespace>.svc:<port><path> (port 443 by default)
// connecting to the address the [ServiceResolver] gives, with user agent
// kube-apiserver-admission, within the webhook's timeoutSeconds and 30
// seconds at most, and the query ?timeout= of the time left, rounded up to
// the second; an answer 429 or 5xx with a Retry-After header in seconds is
// retried after that many seconds, 10 times at most, as kube-apiserver's REST
// client retries it. The answer is decoded and checked as kube-apiserver's request
// package checks it (in v1: the request's uid, kind AdmissionReview of
// admission.k8s.io/v1, patch and patchType together and only for mutating
// webhooks; in v1beta1 only the presence of a response). An answer of the
// usual shape (the review's apiVersion and kind, a response of known
// fields, each once, with values of their types) is read without the codec
// and to the same review; any other goes through the codec, with its
// errors.
//
// # Failures
//
// Errors are kube-apiserver's *apierrors.StatusError values, with its
// texts: a refusal keeps the webhook's status (code raised to 400 at
// least, message `admission webhook "<name>" denied the request: ...`); a
// failure to call the webhook (connection, TLS, timeout, non-2xx status,
// undecodable or invalid answer, undecodable patch) is an internal error
// (`failed calling webhook "<name>": ...`) under failurePolicy Fail and is
// ignored under Ignore, with a failed-open audit annotation and
// apiserver_admission_webhook_fail_open_count; a dry-run request to a
// webhook whose sideEffects is Unknown or Some (400), and a patch that
// fails to apply or whose result does not decode (500), fail the request
// under either policy.
//
// # Metrics
//
// apiserver_admission_webhook_admission_duration_seconds,
// apiserver_admission_webhook_request_total,
// apiserver_admission_webhook_rejection_count and
// apiserver_admission_webhook_fail_open_count, with kube-apiserver's
// labels; the matcher records the match conditions' metrics
// (apiserver_admission_match_condition_*) in the same sink.
//
// # Versions and kinds
//
// A webhook matched through an equivalent resource of another version
// (matchPolicy Equivalent) sees the objects converted to the matched
// version by Options.Converter (resources.NoneConverter converts custom
// resources of CRDs with conversion strategy None; resources.BuiltIn knows
// the built-in equivalent resources): its match conditions are evaluated on
// them, and it is sent them. The mutating webhooks hold the objects as
// kube-apiserver's dispatcher does: a patched built-in object is decoded as
// the kind its document names (a patch may change it, or remove its
// apiVersion and kind, which the next webhook then does not see), and when
// the next webhook matches in another version, or once all are called, the
// patched object is converted back to the request's kind, from the kind it
// is: a patch that turns a Pod into a ConfigMap, or a custom resource into
// another group, fails the request with the converter's error, which
// kube-apiserver returns as it is (500, no reason); a custom resource whose
// patch changed its kind within its group is converted to the request's
// version and keeps that kind, as kube-apiserver's CRD converter does. A conversion that fails
// before a call fails the request with an internal error (twice wrapped for
// the mutating webhooks, as kube-apiserver's).
//
// An object of a kind without metadata (the options of a CONNECT of
// pods/exec, pods/attach, pods/portforward or the proxies, which
// kube-apiserver holds typed) matches no objectSelector but an empty one;
// Request.WithoutMetadata says so of kinds that are not built in.
//
// Static webhooks (admissionmanifest.Webhook.Static, loaded from a static
// manifests directory) come before the API ones in a dispatcher's webhooks,
// as kube-apiserver orders them (the mutating ones as 1.38's staticOrder
// says: admissionmanifest.MergeWebhooks), and are the only ones called for requests
// on admission configuration objects when MatchOptions.API is set.
//
// # Reinvocation
//
// Admit is one pass of the mutating webhooks. A caller that runs
// kube-apiserver's admission chain, whose mutating plugins run a second time
// when one of them asks for it, shares a [Reinvocation] between the two
// passes of a request: webhooks with reinvocationPolicy IfNeeded are called
// again when the object changed after their call, as kube-apiserver does.
//
// # Kubernetes versions
//
// Options.Kube answers as kube-apiserver 1.35, 1.36, 1.37 (the zero
// Target) or 1.38's beta: webhooks are not called for the authentication
// and authorization reviews (TokenReview, SubjectAccessReview and the rest
// of kube-apiserver's excluded virtual resources) only where the gate
// ExcludeAdmissionWebhookVirtualResources is on (1.37's default; 1.35 and
// 1.36 call them), and match conditions compile in the version's
// environments (package matchcond). The exchange, matching and failure
// handling are the same in these versions.
//
// # Differences from kube-apiserver
//
// kube-apiserver defaults built-in objects after each patch with its
// scheme's defaulting functions; gatehouse runs Options.Defaulter, if any.
// Objects matched through an equivalent resource of another version are
// converted by Options.Converter (kube-apiserver has its scheme).
//
// When several validating webhooks fail, kube-apiserver returns the first
// failure to arrive, as gatehouse does; the trace (ExplainValidate) has each
// one's status (WebhookTrace.Status) as the request would get it. Their
// warnings reach the recorder in the order they arrive, where gatehouse
// lists them in the webhooks' order. The failures kube-apiserver only logs
// (webhooks failing open) are in Result.FailedOpen. The warning recorder itself (duplicates dropped, truncation of
// long warnings, Warning headers) belongs to the caller's HTTP layer.
package admissionwebhook
