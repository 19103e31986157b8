// Package admission runs kube-apiserver 1.37's admission chain over the
// plugins a user configures with objects — MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy and
// ValidatingAdmissionWebhook — in kube-apiserver's order, and gives one
// answer: the admitted object or the denial, the warnings and audit
// annotations of the whole request, and on request one trace across the
// engines ([Chain.Explain]).
//
// The order is kube-apiserver's: the mutating phase runs the mutating
// plugins that handle the operation, MutatingAdmissionPolicy (CREATE,
// UPDATE and CONNECT) then MutatingAdmissionWebhook (every operation); if
// one of them asked for a reinvocation (a policy or webhook with
// reinvocationPolicy IfNeeded, after the object changed), the mutating
// phase runs exactly once more, as kube-apiserver's reinvoker does, with the
// reinvocation state shared between the passes and the plugins. Then the
// validating phase runs, on the final object, PodSecurity when the caller
// brings one (Options.PodSecurity, a Validator: CREATE and UPDATE; the
// library does not implement it, contrib/podsecurity does), then
// ValidatingAdmissionPolicy, then, when the target's gate
// ConditionalAuthorization is on (1.38, alpha), the
// AuthorizationConditionsEnforcer — it evaluates the conditions of the
// authorization stage's conditional decision, Request.Authorization, on the
// admitted object through the authorizer that gave it, and denies with
// kube-apiserver's 403 what they do not allow —, then
// ValidatingAdmissionWebhook (every operation), as kube-apiserver's plugin
// order has them. The first plugin that
// denies ends the request with its status; warnings and audit annotations
// gathered until then are returned with it, an annotation key keeping its
// first value as kube-apiserver's attributes keep it.
//
// The chain records kube-apiserver's admission metrics: each plugin call's
// apiserver_admission_controller_admission_duration_seconds (labelled by
// plugin, admit or validate, operation and rejected), and each phase's
// apiserver_admission_step_admission_duration_seconds (both passes of the
// mutating phase in one observation), besides the engines' own.
//
// The engines share the collaborators of Options: one ParamSource, one
// NamespaceLookup, one Converter and one Authorizer serve them all; how
// webhooks are called (transport, TLS, service resolution) is
// Options.Webhooks. Chain.Mutate and Chain.Validate run the phases apart,
// for an admission chain that runs them itself (contrib/apiserver's
// plugin in k8s.io/apiserver's).
//
// A chain comes from API objects (New, Decode), from static manifests
// directories (KEP-5793), or from both, as kube-apiserver composes its two
// sources in each plugin: Config.Static holds the directories' content
// (ConfigOf gathers loaded directories); the static policies and webhooks
// run before those registered through the API (the mutating webhooks as
// Options.StaticOrder, kube-apiserver 1.38's staticOrder, says: first,
// last, or interleaved by configuration name), bindings bind only within
// their source, and only the static ones see requests on admission
// configuration objects (webhook configurations, admission policies and
// their bindings), which API ones never do. A Reloader follows the
// directories of an AdmissionConfiguration file (and MutatingAdmissionWebhook's
// staticOrder) as kube-apiserver's plugins do — each loaded at start (its error is kube-apiserver's startup error),
// read again every minute, its new content in force only if all of it loads
// and the chain builds, the last good content kept otherwise, with
// kube-apiserver's reload metrics — and enforces them with the API
// configuration it is given (ReloaderOptions.API, Reloader.SetAPI, as a
// server's informers deliver it).
package admission
