// Package kubeversions is the room that knows what differs between the
// Kubernetes versions gatehouse answers for, beyond the feature gates
// themselves (package kube): each behaviour is a row of one table, with the
// version that brought it, or the gate behind it, and where kube-apiserver
// has it. Engines ask Has; they never compare versions themselves. Adding a
// version adds rows here (and tests per version in the engines).
package kubeversions

import "github.com/gatehouse-dev/gatehouse/kube"

// Behaviour is a behaviour of kube-apiserver that some of the versions
// gatehouse answers for have.
type Behaviour int

// The behaviours. Each row's source is the package of k8s.io/apiserver
// (k8s.io/kubernetes) where the versions differ.
const (
	// UnionReasonPrefix: when no authorizer of the chain decides, each
	// reason is prefixed with its authorizer's name ("<name>: <reason>")
	// (pkg/authorization/union, 1.37).
	UnionReasonPrefix Behaviour = iota
	// AuditFailuresAggregated: ValidatingAdmissionPolicy's
	// validation_failure audit annotation holds every Audit failure of the
	// request (50 at most); before, the first only, the others refused as
	// overwrites (pkg/admission/plugin/policy/validating, 1.37).
	AuditFailuresAggregated
	// StoredListsIncludes: stored expressions (policies, match conditions,
	// AuthorizationConfiguration) have the lists library's includes()
	// (pkg/cel/environment, lists version 1, 1.37).
	StoredListsIncludes
	// NewListsIncludes: new expressions, checked at the compatibility
	// version (one minor version back), have it too (1.38).
	NewListsIncludes
	// StoredCIDRIsMask: stored expressions have the CIDR library at
	// version 1, with cidr(...).isMask(), declared after the other
	// libraries (pkg/cel/environment, CIDR version 1, 1.38). New
	// expressions, checked at the compatibility version, have it from 1.39.
	StoredCIDRIsMask
	// MutatingAdmissionPolicyPlugin: the MutatingAdmissionPolicy plugin
	// runs (its gate; beta and off in 1.35).
	MutatingAdmissionPolicyPlugin
	// WebhooksExcludeVirtualResources: admission webhooks skip the
	// authentication and authorization reviews, as the policies always did
	// (pkg/admission/plugin/webhook/generic, gate
	// ExcludeAdmissionWebhookVirtualResources, 1.37).
	WebhooksExcludeVirtualResources
	// CELGo029: kube-apiserver links cel-go 0.29 (1.37; 0.26 before):
	// duration(int) no longer type-checks, the global matches() and
	// startsWith/endsWith cost as cel-go 0.29 charges them.
	CELGo029
	// QuantityArithmeticCopies: the CEL quantity library's add and sub
	// copy their receiver deeply; before, a huge or very precise quantity
	// was changed by its own arithmetic (pkg/cel/library/quantity.go, 1.37).
	QuantityArithmeticCopies
	// StaticManifests: the plugins' staticManifestsDir is known
	// (pkg/admission/plugin/*/manifest, 1.36) and usable (gate
	// ManifestBasedAdmissionControlConfig: alpha and off in 1.36).
	StaticManifests
	// StaticManifestsDirKnown: the plugins' configurations have a
	// staticManifestsDir (1.36); before, it is ignored (the webhook
	// plugins' decoding is not strict, the policy plugins read no
	// configuration).
	StaticManifestsDirKnown
	// AuthorizationConditionsReview: AuthorizationConfiguration v1 has a
	// webhook's conditionsReview (conditional authorization, 1.38; usable
	// with the gate ConditionalAuthorization); before, an unknown field.
	AuthorizationConditionsReview
	// WebhookStaticOrder: the webhook plugins' configuration
	// (WebhookAdmissionConfiguration) has a staticOrder, where
	// MutatingAdmissionWebhook runs its static webhooks relative to the API
	// ones (pkg/admission/plugin/webhook/config, 1.38); before, the field
	// is unknown (a strict decoding error from 1.36, ignored in 1.35).
	WebhookStaticOrder
	// UnrequestedConditionalDecisionFails: a webhook authorizer's
	// SubjectAccessReview (v1) answer has status.conditionalDecision, and
	// one that carries it, though the request did not ask for conditions,
	// fails closed with the decision's failure decision, unless it denies
	// (plugin/pkg/authorizer/webhook, 1.38, not gated); before, the field
	// is unknown and ignored.
	UnrequestedConditionalDecisionFails
	// TypeCheckParamsWithoutSchema: ValidatingAdmissionPolicy type checking
	// declares params (as dyn) whenever the policy has a paramKind; before,
	// only when the paramKind's schema resolved, so an expression using
	// params of a kind without a schema got "undeclared reference to
	// 'params'" (pkg/admission/plugin/policy/validating/typechecking.go,
	// 1.36).
	TypeCheckParamsWithoutSchema
	// PluginConfigurationsStrict: the admission plugins read their
	// configurations as 1.36 does: the webhook plugins decode theirs
	// strictly, in apiserver.config.k8s.io/v1 only, and take an empty
	// kubeConfigFile; the policy plugins decode and check theirs. Before
	// (1.35), the webhook plugins' decoding is not strict (an unknown
	// field is dropped), v1alpha1 (kind WebhookAdmission) is served, and
	// kubeConfigFile must be an absolute path even when empty; the policy
	// plugins ignore their configuration (NewPlugin(_ io.Reader))
	// (pkg/admission/plugin/webhook/config/kubeconfig.go,
	// pkg/admission/plugin/policy/config, 1.36).
	PluginConfigurationsStrict
	// SchemeNamedLine110: kube-apiserver links k8s.io/apimachinery v0.38,
	// whose runtime.NewScheme names a scheme "pkg/runtime/scheme.go:110"
	// (":111" before); decoding errors quote the name ("no kind ... is
	// registered for version ... in scheme ...").
	SchemeNamedLine110
	// ConditionsAwareUnion: the union authorizer has ConditionsAwareAuthorize
	// and EvaluateConditions (KEP-5681's interfaces,
	// pkg/authorization/union, 1.37); before, only Authorize.
	ConditionsAwareUnion
	// ConditionalUnionNamesChecked: a Union decision's member names must be
	// DNS-1123 subdomains, and the builder's errors say "authorizerName"
	// (pkg/authorization/authorizer/conditionsunion.go, 1.38); before, only
	// empty and repeated names are errors, saying
	// "conditionalAuthorizerName".
	ConditionalUnionNamesChecked
	// ConditionalWebhooks: a webhook authorizer with a conditionsReview asks
	// for and evaluates conditional decisions
	// (plugin/pkg/authorizer/webhook, gate ConditionalAuthorization, 1.38).
	ConditionalWebhooks
	// AuthorizationMatchOptions: an authorization webhook's match conditions
	// see request.authorizationOptions (type
	// kubernetes.AuthorizationOptions, handledDecisionTypes), set when the
	// review offers conditional decisions (pkg/authorization/cel, gate
	// ConditionalAuthorization, 1.38); without it the field is undefined
	// ("undefined field 'authorizationOptions'").
	AuthorizationMatchOptions
	// ConditionsEnforcerPlugin: the admission chain has the
	// AuthorizationConditionsEnforcer validating plugin, after
	// ValidatingAdmissionPolicy (pkg/admission/plugin/authorizer/
	// conditionsenforcer, gate ConditionalAuthorization, 1.38).
	ConditionsEnforcerPlugin
	// RESTDeclarativeValidation: the registry runs the declarative
	// validation after the strategy's (rest.BeforeCreate, BeforeUpdate:
	// every admission strategy embeds rest.DeclarativeValidation, 1.37).
	// The strategy's errors pass through ErrorList.Filter, which reports
	// identical errors once, and the errors of the declarative validation
	// come after them: a ValidatingAdmissionPolicyBinding's empty
	// policyName and validationActions are its Required (no detail), last,
	// and not on an update that keeps them (it ratchets; the strategy's own
	// errors then stand in 1.37).
	RESTDeclarativeValidation
	// RESTDeclarativeBindingPolicyName: a ValidatingAdmissionPolicyBinding's
	// empty policyName and validationActions are the declarative
	// validation's alone (the handwritten checks are gone, 1.38): an update
	// that keeps them has no error for them.
	RESTDeclarativeBindingPolicyName
	// RESTDeclarativeGeneration: a negative metadata.generation is the
	// declarative validation's error (1.38), first of its errors, after
	// the strategy's; an update that keeps the generation keeps the
	// strategy's error in its place.
	RESTDeclarativeGeneration
)

// row is a behaviour's: the version from which kube-apiserver has it, or
// the gate that turns it on (the gate's absence at a version means off).
type row struct {
	since kube.Version
	gate  kube.Gate
}

var table = [...]row{
	UnionReasonPrefix:                   {since: kube.V1_37},
	AuditFailuresAggregated:             {since: kube.V1_37},
	StoredListsIncludes:                 {since: kube.V1_37},
	NewListsIncludes:                    {since: kube.V1_38},
	CELGo029:                            {since: kube.V1_37},
	QuantityArithmeticCopies:            {since: kube.V1_37},
	MutatingAdmissionPolicyPlugin:       {gate: kube.MutatingAdmissionPolicy},
	WebhooksExcludeVirtualResources:     {gate: kube.ExcludeAdmissionWebhookVirtualResources},
	StaticManifests:                     {gate: kube.ManifestBasedAdmissionControlConfig},
	StaticManifestsDirKnown:             {since: kube.V1_36},
	AuthorizationConditionsReview:       {since: kube.V1_38},
	WebhookStaticOrder:                  {since: kube.V1_38},
	UnrequestedConditionalDecisionFails: {since: kube.V1_38},
	TypeCheckParamsWithoutSchema:        {since: kube.V1_36},
	StoredCIDRIsMask:                    {since: kube.V1_38},
	PluginConfigurationsStrict:          {since: kube.V1_36},
	SchemeNamedLine110:                  {since: kube.V1_38},
	ConditionsAwareUnion:                {since: kube.V1_37},
	ConditionalUnionNamesChecked:        {since: kube.V1_38},
	ConditionalWebhooks:                 {gate: kube.ConditionalAuthorization},
	AuthorizationMatchOptions:           {gate: kube.ConditionalAuthorization},
	ConditionsEnforcerPlugin:            {gate: kube.ConditionalAuthorization},
	RESTDeclarativeValidation:           {since: kube.V1_37},
	RESTDeclarativeBindingPolicyName:    {since: kube.V1_38},
	RESTDeclarativeGeneration:           {since: kube.V1_38},
}

// Has tells whether kube-apiserver as t has behaviour b.
func Has(t kube.Target, b Behaviour) bool {
	r := table[b]
	if r.gate != "" {
		return t.Enabled(r.gate)
	}
	return t.Version().AtLeast(r.since)
}

// SchemeName is the name kube-apiserver as t gives a scheme of its own
// (runtime.NewScheme names it by the line of k8s.io/apimachinery's
// scheme.go that calls it), which its decoding errors quote: "no kind ...
// is registered for version ... in scheme ...".
func SchemeName(t kube.Target) string {
	if Has(t, SchemeNamedLine110) {
		return "pkg/runtime/scheme.go:110"
	}
	return "pkg/runtime/scheme.go:111"
}
