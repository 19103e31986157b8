package metrics

import (
	"slices"
	"strings"
)

// Authorization: the chain and each configured authorizer.
var (
	// AuthorizationDecisions counts the Allow and Deny decisions of each
	// configured authorizer (not of the system:masters one). Labels: type,
	// name, decision (allowed, denied, unknown).
	AuthorizationDecisions = counter("apiserver_authorization_decisions_total",
		"Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
		Alpha, "type", "name", "decision")

	// AuthorizationAttempts counts the outcomes of the HTTP authorization
	// filter. Labels: result (allowed, denied, no-opinion, error).
	AuthorizationAttempts = counter("authorization_attempts_total",
		"Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
		Alpha, "result")

	// AuthorizationDuration is the time the HTTP authorization filter spent
	// deciding. Labels: result.
	AuthorizationDuration = histogram("authorization_duration_seconds",
		"Authorization duration in seconds broken out by result.",
		Alpha, exponentialBuckets(0.001, 2, 15), "result")
)

// Authorization webhooks.
var (
	// AuthorizationWebhookEvaluations counts every HTTP attempt to an
	// authorization webhook. Labels: name, result (success, canceled, timeout,
	// error).
	AuthorizationWebhookEvaluations = counter("apiserver_authorization_webhook_evaluations_total",
		"Round-trips to authorization webhooks.",
		Alpha, "name", "result")

	// AuthorizationWebhookDuration is the latency of every HTTP attempt.
	// Labels: name, result.
	AuthorizationWebhookDuration = histogram("apiserver_authorization_webhook_duration_seconds",
		"Request latency in seconds.",
		Alpha, defaultBuckets(), "name", "result")

	// AuthorizationWebhookFailOpen counts the calls that finally failed under
	// failurePolicy NoOpinion. Labels: name, result (timeout, error).
	AuthorizationWebhookFailOpen = counter("apiserver_authorization_webhook_evaluations_fail_open_total",
		"NoOpinion results due to webhook timeout or error.",
		Alpha, "name", "result")

	// DelegatedAuthzRequests counts the SubjectAccessReview calls of delegated
	// authorization. Labels: code (an HTTP status code or "<error>").
	DelegatedAuthzRequests = counter("apiserver_delegated_authz_request_total",
		"Number of HTTP requests partitioned by status code.",
		Alpha, "code")

	// DelegatedAuthzRequestDuration is the latency of those calls. Labels: code.
	DelegatedAuthzRequestDuration = histogram("apiserver_delegated_authz_request_duration_seconds",
		"Request latency in seconds. Broken down by status code.",
		Alpha, []float64{0.25, 0.5, 0.7, 1, 1.5, 3, 5, 10}, "code")

	// WebhookX509MissingSAN counts webhook servers whose certificate has no
	// subject alternative name.
	WebhookX509MissingSAN = counter("apiserver_webhooks_x509_missing_san_total",
		"Counts the number of requests to servers missing SAN extension in their serving certificate OR the number of connection failures due to the lack of x509 certificate SAN extension missing (either/or, based on the runtime environment)",
		Beta)

	// WebhookX509InsecureSHA1 counts webhook servers whose certificate is
	// signed with SHA-1.
	WebhookX509InsecureSHA1 = counter("apiserver_webhooks_x509_insecure_sha1_total",
		"Counts the number of requests to servers with insecure SHA1 signatures in their serving certificate OR the number of connection failures due to the insecure SHA1 signatures (either/or, based on the runtime environment)",
		Beta)
)

// Authorization match conditions.
var (
	// AuthorizationMatchConditionErrors counts the Authorize calls in which at
	// least one match condition failed to evaluate. Labels: type, name.
	AuthorizationMatchConditionErrors = counter("apiserver_authorization_match_condition_evaluation_errors_total",
		"Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.",
		Alpha, "type", "name")

	// AuthorizationMatchConditionExclusions counts the Authorize calls in which
	// a match condition was false. Labels: type, name.
	AuthorizationMatchConditionExclusions = counter("apiserver_authorization_match_condition_exclusions_total",
		"Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.",
		Alpha, "type", "name")

	// AuthorizationMatchConditionDuration is the time spent on all the match
	// conditions of one Authorize call. Labels: type, name.
	AuthorizationMatchConditionDuration = histogram("apiserver_authorization_match_condition_evaluation_seconds",
		"Authorization match condition evaluation time in seconds, split by authorizer type and name.",
		Alpha, []float64{0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25}, "type", "name")
)

// Automatic reload of the authorization configuration file.
var (
	// AuthorizationConfigReloads counts reloads. Labels: status (success,
	// failure), apiserver_id_hash.
	AuthorizationConfigReloads = counter("apiserver_authorization_config_controller_automatic_reloads_total",
		"Total number of automatic reloads of authorization configuration split by status and apiserver identity.",
		Beta, "status", "apiserver_id_hash")

	// AuthorizationConfigReloadTimestamp is the Unix time of the last reload.
	// Labels: status, apiserver_id_hash.
	AuthorizationConfigReloadTimestamp = gauge("apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds",
		"Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.",
		Beta, "status", "apiserver_id_hash")

	// AuthorizationConfigInfo is 1 for the configuration in force, and only
	// for it. Labels: apiserver_id_hash, hash.
	AuthorizationConfigInfo = infoGauge("apiserver_authorization_config_controller_last_config_info",
		"Information about the last applied authorization configuration with hash as label, split by apiserver identity.",
		Alpha, 0, "apiserver_id_hash", "hash")
)

// Admission: match conditions, controllers, MutatingAdmissionPolicy.
var (
	// AdmissionMatchConditionErrors counts match condition evaluation errors of
	// admission webhooks and policies. Labels: name, kind (webhook, policy),
	// type (validate, admit), operation.
	AdmissionMatchConditionErrors = counter("apiserver_admission_match_condition_evaluation_errors_total",
		"Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
		Alpha, "name", "kind", "type", "operation")

	// AdmissionMatchConditionExclusions counts requests that a match condition
	// excluded. Labels: name, kind, type, operation.
	AdmissionMatchConditionExclusions = counter("apiserver_admission_match_condition_exclusions_total",
		"Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
		Alpha, "name", "kind", "type", "operation")

	// AdmissionMatchConditionDuration is the time spent evaluating match
	// conditions. Labels: name, kind, type, operation.
	AdmissionMatchConditionDuration = histogram("apiserver_admission_match_condition_evaluation_seconds",
		"Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).",
		Alpha, []float64{0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25}, "name", "kind", "type", "operation")

	// AdmissionControllerDuration is the latency of one admission plugin.
	// Labels: name, type, operation, rejected.
	AdmissionControllerDuration = histogram("apiserver_admission_controller_admission_duration_seconds",
		"Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
		Stable, []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5}, "name", "type", "operation", "rejected")

	// AdmissionStepDuration is the latency of the mutating or validating step
	// of admission. Labels: type, operation, rejected.
	AdmissionStepDuration = histogram("apiserver_admission_step_admission_duration_seconds",
		"Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
		Stable, []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5}, "type", "operation", "rejected")

	// MutatingAdmissionPolicyChecks counts mutations applied by
	// MutatingAdmissionPolicies. Labels: policy, policy_binding, error_type
	// (no_error, compile_error, invalid_error, out_of_budget).
	MutatingAdmissionPolicyChecks = counter("apiserver_mutating_admission_policy_check_total",
		"Mutation admission policy check total, labeled by policy and further identified by binding.",
		Alpha, "policy", "policy_binding", "error_type")

	// MutatingAdmissionPolicyCheckDuration is the latency of each mutation.
	// Labels: policy, policy_binding, error_type.
	MutatingAdmissionPolicyCheckDuration = histogram("apiserver_mutating_admission_policy_check_duration_seconds",
		"Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
		Alpha, []float64{0.0000005, 0.001, 0.01, 0.1, 1.0}, "policy", "policy_binding", "error_type")

	// ValidatingAdmissionPolicyChecks counts the decisions of
	// ValidatingAdmissionPolicies that kube-apiserver records: every
	// validation action taken on a failed validation, and errors ignored by
	// failurePolicy Ignore. Labels: policy, policy_binding, error_type
	// (no_error, compile_error, invalid_error, out_of_budget),
	// enforcement_action (allow, deny, warn, audit).
	ValidatingAdmissionPolicyChecks = counter("apiserver_validating_admission_policy_check_total",
		"Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.",
		Beta, "policy", "policy_binding", "error_type", "enforcement_action")

	// ValidatingAdmissionPolicyCheckDuration is the latency of the
	// validation of each recorded decision. Labels as
	// ValidatingAdmissionPolicyChecks.
	ValidatingAdmissionPolicyCheckDuration = histogram("apiserver_validating_admission_policy_check_duration_seconds",
		"Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.",
		Beta, []float64{0.0000005, 0.001, 0.01, 0.1, 1.0}, "policy", "policy_binding", "error_type", "enforcement_action")
)

// Admission webhooks.
var (
	// AdmissionWebhookDuration is the latency of each admission webhook
	// call. Labels: name, type (validating, admit), operation, rejected.
	AdmissionWebhookDuration = histogram("apiserver_admission_webhook_admission_duration_seconds",
		"Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
		Stable, []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}, "name", "type", "operation", "rejected")

	// AdmissionWebhookRequests counts admission webhook calls. Labels: name,
	// type, operation, code (the HTTP status, 0 for an apiserver error,
	// capped at 600), rejected.
	AdmissionWebhookRequests = counter("apiserver_admission_webhook_request_total",
		"Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
		Alpha, "name", "type", "operation", "code", "rejected")

	// AdmissionWebhookRejections counts the requests an admission webhook
	// rejected or failed. Labels: name, type, operation, error_type
	// (calling_webhook_error, apiserver_internal_error, no_error),
	// rejection_code. kube-apiserver's name has no _total suffix.
	AdmissionWebhookRejections = counter("apiserver_admission_webhook_rejection_count",
		"Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
		Alpha, "name", "type", "operation", "error_type", "rejection_code")

	// AdmissionWebhookFailOpen counts the admission webhook calls that failed
	// under failurePolicy Ignore. Labels: name, type. kube-apiserver's name
	// has no _total suffix.
	AdmissionWebhookFailOpen = counter("apiserver_admission_webhook_fail_open_count",
		"Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
		Alpha, "name", "type")
)

// Automatic reload of manifest-based admission configuration.
var (
	// ManifestAdmissionConfigReloads counts reloads of a plugin's static
	// manifests directory. Labels: status, plugin, apiserver_id_hash.
	ManifestAdmissionConfigReloads = counter("apiserver_manifest_admission_config_controller_automatic_reloads_total",
		"Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.",
		Alpha, "status", "plugin", "apiserver_id_hash")

	// ManifestAdmissionConfigReloadTimestamp is the Unix time of the last
	// reload. Labels: status, plugin, apiserver_id_hash.
	ManifestAdmissionConfigReloadTimestamp = gauge("apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds",
		"Timestamp of the last automatic reload of admission manifest configuration split by status, plugin, and apiserver identity.",
		Alpha, "status", "plugin", "apiserver_id_hash")

	// ManifestAdmissionConfigInfo is 1 for the manifests in force, one series
	// per plugin. Labels: plugin, apiserver_id_hash, hash.
	ManifestAdmissionConfigInfo = infoGauge("apiserver_manifest_admission_config_controller_last_config_info",
		"Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.",
		Alpha, 1, "plugin", "apiserver_id_hash", "hash")
)

// CEL.
var (
	// CELCompilationDuration is the time taken to compile one CEL expression.
	CELCompilationDuration = histogram("apiserver_cel_compilation_duration_seconds",
		"CEL compilation time in seconds.", Beta, defaultBuckets())

	// CELEvaluationDuration is the time taken to evaluate one CEL expression.
	CELEvaluationDuration = histogram("apiserver_cel_evaluation_duration_seconds",
		"CEL evaluation time in seconds.", Beta, defaultBuckets())
)

// All returns every descriptor, ordered by name.
func All() []*Desc {
	all := []*Desc{
		AdmissionControllerDuration,
		AdmissionMatchConditionErrors,
		AdmissionMatchConditionDuration,
		AdmissionMatchConditionExclusions,
		AdmissionStepDuration,
		AdmissionWebhookDuration,
		AdmissionWebhookFailOpen,
		AdmissionWebhookRejections,
		AdmissionWebhookRequests,
		AuthorizationConfigReloadTimestamp,
		AuthorizationConfigReloads,
		AuthorizationConfigInfo,
		AuthorizationDecisions,
		AuthorizationMatchConditionErrors,
		AuthorizationMatchConditionDuration,
		AuthorizationMatchConditionExclusions,
		AuthorizationWebhookDuration,
		AuthorizationWebhookFailOpen,
		AuthorizationWebhookEvaluations,
		CELCompilationDuration,
		CELEvaluationDuration,
		DelegatedAuthzRequestDuration,
		DelegatedAuthzRequests,
		ManifestAdmissionConfigReloadTimestamp,
		ManifestAdmissionConfigReloads,
		ManifestAdmissionConfigInfo,
		MutatingAdmissionPolicyCheckDuration,
		MutatingAdmissionPolicyChecks,
		ValidatingAdmissionPolicyCheckDuration,
		ValidatingAdmissionPolicyChecks,
		WebhookX509InsecureSHA1,
		WebhookX509MissingSAN,
		AuthorizationAttempts,
		AuthorizationDuration,
	}
	slices.SortFunc(all, func(a, b *Desc) int { return strings.Compare(a.name, b.name) })
	return all
}
