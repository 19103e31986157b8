// Package authorizer is kube-apiserver 1.37's authorization engine as a
// library: the ordered chain of authorizers with system:masters first, any
// number of webhook authorizers (each pre-filtered by CEL match conditions,
// with its own failure policy, cache, retries and metrics), the chain built
// from an AuthorizationConfiguration (KEP-3221), and a chain that reloads
// itself when its file changes.
//
// # Pieces
//
//   - Decision, Attributes, Authorizer and Func: the vocabulary.
//   - NewChain: authorizers asked in order; the first Allow or Deny decides.
//     PrivilegedGroups, AlwaysAllow and AlwaysDeny are kube-apiserver's
//     built-ins; WithDecisionMetrics counts an authorizer's decisions.
//   - NewWebhook: a webhook authorizer. It posts SubjectAccessReviews (v1 or
//     v1beta1) byte for byte as kube-apiserver does, reads the answers as
//     kube-apiserver's client does, and reaches the webhook through a
//     kubeconfig file (ConnectionFromKubeconfig) or the caller's Connection.
//   - New: the chain of an authzconfig.Configuration, with the caller's
//     authorizers for RBAC (package rbac has kube-apiserver's), Node, ABAC
//     or its own types; NewFromCompiled
//     does the same with the match conditions authzconfig compiled when it
//     validated the configuration.
//   - NewReloader: that chain, following its configuration file and the
//     files the webhooks' kubeconfigs name, with kube-apiserver's reload
//     rules and metrics, keeping the last good chain.
//   - Explain: an account of one decision (each authorizer asked, match
//     conditions, cache, webhook attempts, and the details of authorizers
//     that implement Explainer, such as package rbac's binding, role and
//     rule), which Authorize does not pay for. ExplainConditionally and
//     ExplainEvaluation do the same for AuthorizeConditionally (each
//     authorizer's conditional decision, its String) and EvaluateConditions
//     (what evaluating each Union member decided).
//   - Package authorizertest: a fake webhook for tests.
//   - Conditional authorization (KEP-5681, 1.38, gate
//     ConditionalAuthorization): ConditionalDecision is kube-apiserver's
//     ConditionsAwareDecision (unconditional, ConditionsMap or Union, with
//     its folding, PossibleDecisions, FailureDecision, String and
//     PartiallyEvaluate); ConditionsAuthorizer answers conditionally and
//     evaluates its conditions later against ConditionsData (the admission
//     data); *Chain implements it with the union's semantics (1.37 and
//     later), and AsConditionsAuthorizer lifts any other Authorizer as
//     kube-apiserver lifts a conditions-unaware one.
//
// The caller supplies the clock (retries, timeouts, caches, polling and
// metrics all follow it, so tests step a fake clock instead of sleeping),
// the metrics sink and, when it wants, the transport.
//
// # Webhook behaviour, as in kube-apiserver
//
// A webhook evaluates its match conditions first: one false skips the
// webhook (NoOpinion, no error), an error that no false overrides gives the
// failure policy's decision and the error (even under NoOpinion: an HTTP
// server then answers 500 unless a later authorizer allows). Then the
// decision cache: 8192 entries, least recently used evicted, an allowed
// answer kept for the authorized TTL and any other for the unauthorized TTL,
// nothing kept for errors or for requests whose namespace, verb, group,
// version, resource, subresource, name and path add up to 10000 bytes or
// more; the cache tells requests apart exactly as kube-apiserver's (the JSON
// of the v1 spec) does, without building JSON; a hit takes no lock and
// reads the clock once. Then the call: up to 5 tries,
// waiting 0.5 s, 0.75 s, 1.125 s and 1.69 s (each plus up to 20%) after a
// connection reset, a 500, 504 or 429, or an answer with a Retry-After; a
// 429 or 5xx with Retry-After is also asked again within one try, up to 10
// times, after the delay it asks for; each try is bounded by the timeout.
// An answer that allows and denies is Deny with an error; otherwise denied
// is Deny, allowed Allow, neither NoOpinion, each with the webhook's reason.
// Any failure gives the failure policy's decision (Deny or NoOpinion), no
// reason, and the error.
//
// # Per version
//
// Options.Kube (WebhookOptions.Kube for NewWebhook) is the kube-apiserver
// the chain and its webhooks answer as; what differs:
//
//   - An unrequested conditional decision (1.38, not gated): an answer to
//     Authorize, or to a webhook that does not ask for conditions (no
//     conditionsReview, or the gate ConditionalAuthorization off). Up to
//     1.37 a v1 answer's
//     status.conditionalDecision is unknown and ignored: allowed and
//     denied decide. From 1.38 it is read: an answer that denies (or
//     allows and denies) decides as before; otherwise one with a
//     conditionalDecision, even with allowed true, gives the decision's
//     failure decision, the answer's reason and the error "webhook subject
//     access review returned unrequested conditional decision". The
//     failure decision is Deny if the decision is or could evaluate to
//     Deny, NoOpinion otherwise, on the decision kube-apiserver builds:
//     a ConditionsMap with a deny condition could deny (one without a map,
//     with no conditions, or with NoOpinion conditions only is NoOpinion);
//     a union could deny if a member could, counting members up to the
//     first with an unconditional Allow or Deny; an unknown type is the
//     failure policy's decision. A conditionalDecision of the wrong JSON
//     shape makes the answer unreadable (the failure policy decides). The
//     answer is cached by its allowed field as any other (the authorized
//     TTL if allowed) and fails closed again from the cache; Explain's
//     WebhookStep.UnrequestedConditional tells. v1beta1 has no such field.
//   - A NoOpinion reason is prefixed with its authorizer's name from 1.37
//     (NewChainFor, below).
//   - Conditional authorization (1.38, gate ConditionalAuthorization, off
//     by default). Chain.AuthorizeConditionally is the union's
//     ConditionsAwareAuthorize from 1.37 (before, Authorize's answer as an
//     unconditional decision); Union member names must be DNS-1123
//     subdomains from 1.38. A webhook's AuthorizeConditionally is kube's
//     with the gate on: a SubjectAccessReview offering conditional
//     decisions (spec.authorizationOptions.handledDecisionTypes) when the
//     webhook has a conditionsReview, the answer read in full and validated
//     with kube-apiserver's texts, the decision cached with the authorized
//     TTL when allowed or conditional; its EvaluateConditions posts an
//     authorization.k8s.io/v1alpha1 AuthorizationConditionsReview to the
//     conditionsReview's kubeconfig context and checks the echoed uid and
//     that the outcome was possible. With the gate off (or before 1.38) a
//     webhook's AuthorizeConditionally is its Authorize; EvaluateConditions
//     is "condition evaluation not supported" before 1.38. Plain Authorize
//     never offers conditions (the unrequested decision above). With the
//     gate on, match conditions may read request.authorizationOptions
//     (handledDecisionTypes), present when the review offers conditions;
//     otherwise the field is undefined and such a condition does not
//     compile.
//
// Metrics are kube-apiserver's: apiserver_authorization_webhook_* per try
// (result success, canceled, timeout or error) and fail-open,
// apiserver_authorization_match_condition_*, apiserver_authorization_decisions_total
// for each configured authorizer, apiserver_webhooks_x509_* for webhook
// certificates without SAN or signed with SHA-1, and
// apiserver_authorization_config_controller_* for reloads.
//
// # Differences from kube-apiserver
//
//   - A chain with a nil authorizer is an error; kube-apiserver crashes when
//     it asks it.
//   - A webhook whose connectionInfo.type is InClusterConfig needs a
//     connection from the caller; kube-apiserver dereferences the absent
//     kubeconfig path and crashes.
//   - Answers whose TTL is zero (caching off for that kind of answer) are not
//     stored; kube-apiserver stores them already expired, where they can
//     still push a live entry out of a full cache.
//   - A webhook's answer is read up to 4 MiB; kube-apiserver reads any size.
//   - An answer of another kind than SubjectAccessReview is an error in both;
//     for kinds of client-go's scheme other than the authorization kinds and
//     Status, the texts differ ("no kind ... is registered" here, "converting
//     ... unknown conversion" there).
//   - Kubeconfig files: exec credential plugins, auth providers and
//     impersonation are rejected with an error naming them; kube-apiserver's
//     client supports them. Other kubeconfig errors have texts close to, not
//     always equal to, clientcmd's.
//   - Client certificate files are read again at each new connection, so a
//     rotated certificate is used without a restart; the CA is read when the
//     webhook is built.
//   - A timeout reads "context deadline exceeded" where kube-apiserver's
//     client sometimes adds "(Client.Timeout exceeded while awaiting
//     headers)"; the outcome (timeout, not retried) is the same.
//   - The reloader also follows each webhook's kubeconfig file and the CA
//     and certificate files it names (a rotated CA or certificate is picked
//     up without touching the configuration), can health-check new webhooks
//     before switching (off by default), polls instead of using fsnotify
//     (call Trigger on file events), and calls back on each outcome.
//   - Nothing is logged: kube-apiserver logs "Failed to make webhook
//     authorizer request"; here the error is returned and Explain tells the
//     rest.
//   - At 1.38, an answer whose conditionalDecision and another field are
//     both malformed is an error in both, but the error names the other
//     field, where kube-apiserver's names the first in the answer. In a
//     protobuf answer, a malformed conditionalDecision has the generated
//     code's error texts for wrong wire types, illegal tags and truncation,
//     and protowire's for the rest; decisions nested more than 10000 unions
//     deep are an error here.
//   - Conditional authorization: with the gate off, kube-apiserver never asks
//     a chain conditionally; here a 1.38 webhook's AuthorizeConditionally
//     is then its Authorize. A webhook's conditional asks have cache
//     entries of their own (kube-apiserver shares them with Authorize when
//     no conditions are offered; only the number of calls can differ).
//     kube-apiserver checks the object and the old object of a conditions
//     review for apiVersion and kind in random (map) order; here the
//     object first, so the error names it when both lack them. A webhook
//     with connectionInfo.type InClusterConfig and a conditionsReview
//     crashes kube-apiserver (it reads the absent kubeconfig path); here
//     the conditions review uses Options.InClusterConnection. Left out: a
//     protobuf AuthorizationConditionsReview answer is an error; the
//     selector requirements of the spec are not revalidated with the
//     answer (kube-apiserver's validation of its own request); the texts for an answer of another kind are client-go's
//     for the authorization kinds only (as for SubjectAccessReviews).
//   - NewChainFor refuses an empty or duplicate authorizer name at every
//     version, with the texts of kube-apiserver 1.37's union.New. Before
//     1.37 union.New took no names and checked none; kube-apiserver's chain
//     was still unnamed-safe because its configuration validation requires
//     unique names, but an embedder building a chain by hand gets the error
//     at 1.35 and 1.36 too. Decisions, reasons and errors are the
//     version's own (a NoOpinion reason is prefixed with the authorizer's
//     name from 1.37 only).
package authorizer
