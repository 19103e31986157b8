// Package protocol is the wire format of the oracle program: JSON lines on
// stdin and stdout, one Query per line in, one Answer per line out, in order.
//
// It depends on the standard library only, so that the differential tests
// (which link another k8s.io/apiserver and another cel-go) can import it.
package protocol

import "encoding/json"

// Ops.
const (
	// OpInfo asks which Kubernetes, k8s.io/apiserver and cel-go the oracle
	// was built from.
	OpInfo = "info"
	// OpCEL compiles and evaluates one CEL expression in kube-apiserver's
	// admission environment.
	OpCEL = "cel"
	// OpAuthzConfig loads and validates an AuthorizationConfiguration file
	// as kube-apiserver does at startup and on reload
	// (pkg/apis/apiserver/load.LoadFromData, then
	// pkg/apis/apiserver/validation.ValidateAuthorizationConfiguration with
	// pkg/authorization/cel.NewDefaultCompiler()).
	OpAuthzConfig = "authzconfig"
	// OpUnion asks a chain of scripted authorizers through kube-apiserver's
	// union authorizer (pkg/authorization/union).
	OpUnion = "union"
	// OpConditional asks a chain of scripted conditional authorizers
	// through kube-apiserver's union ConditionsAwareAuthorize, then has it
	// EvaluateConditions the decision with scripted condition results
	// (KEP-5681; the 1.38 oracle only).
	OpConditional = "conditional"
	// OpConditionalWebhook asks kube-apiserver's webhook authorizer
	// conditionally (gate ConditionalAuthorization on) against a server
	// that answers as scripted, then has it evaluate the decision (the 1.38
	// oracle only).
	OpConditionalWebhook = "conditionalwebhook"
	// OpVAP dispatches one admission request to ValidatingAdmissionPolicies
	// as kube-apiserver's policy/validating dispatcher does (VAPQuery).
	OpVAP = "vap"
	// OpPluginConfig reads an admission plugin's configuration (Plugin,
	// Data; no Data: the plugin has none) as the plugin does when
	// kube-apiserver builds it: the webhook plugins' config.LoadConfig,
	// the policy plugins' policy/config loaders (from 1.36; 1.35's policy
	// plugins ignore their configuration).
	OpPluginConfig = "pluginconfig"
	// OpConditionsEnforcer runs kube-apiserver 1.38's
	// AuthorizationConditionsEnforcer admission plugin (gate
	// ConditionalAuthorization on) on a CREATE of pods in default by alice,
	// authorized by OpConditional's chain (Conditional, ConditionResults):
	// its decision is attached to the request as the authorization filter
	// attaches it (or none, NoDecision), and Evaluation, when set, replaces
	// the chain's EvaluateConditions.
	OpConditionsEnforcer = "conditionsenforcer"
	// OpRESTValidation validates one admissionregistration.k8s.io/v1 object
	// as kube-apiserver's REST API does on create or update
	// (RESTValidationQuery). Its rules live in k8s.io/kubernetes, which this
	// program does not link: the oracle of ../kubernetes/oracle answers it.
	OpRESTValidation = "restvalidation"
)

// Decisions of OpUnion, as k8s.io/apiserver's authorizer.Decision prints
// them.
const (
	DecisionAllow     = "Allow"
	DecisionDeny      = "Deny"
	DecisionNoOpinion = "NoOpinion"
)

// Environments of OpCEL (k8s.io/apiserver/pkg/cel/environment.Type).
const (
	EnvStored = "stored" // StoredExpressions: what every runtime path compiles with
	EnvNew    = "new"    // NewExpressions: what REST validation of new expressions uses
)

// Query is one line of input. Op selects the fields that matter.
type Query struct {
	Op string `json:"op"`

	// OpCEL.

	// Env is EnvStored or EnvNew.
	Env string `json:"env,omitempty"`
	// Compat is the compatibility version given to
	// environment.MustBaseEnvSet ("1.35"); empty means the oracle's
	// environment.DefaultCompatibilityVersion() (its Kubernetes minor - 1).
	Compat string `json:"compat,omitempty"`
	// Vars declares variables besides the admission ones, by type: dyn,
	// string, int, uint, double, bool, bytes, duration, timestamp, list(T),
	// map(K,V). "object", "oldObject" and "params" may be listed only as
	// dyn (the admission declarations); listing "params" declares it, as a
	// policy with a paramKind does. "request" and "namespaceObject" are
	// always declared with the admission types and may not be listed.
	Vars map[string]string `json:"vars,omitempty"`
	// Expression is the CEL source.
	Expression string `json:"expression,omitempty"`
	// Activation holds the variables' values, in the value encoding below.
	// object, oldObject, params, request and namespaceObject default to
	// null, as in admission; other variables left out are absent.
	Activation map[string]json.RawMessage `json:"activation,omitempty"`
	// CostLimit is the runtime cost budget the evaluation is checked
	// against as admission checks a binding's remaining budget; 0 means
	// RuntimeCELCostBudget (10,000,000). The per-call limit (1,000,000) is
	// the environment's own and always applies.
	CostLimit int64 `json:"costLimit,omitempty"`

	// OpAuthzConfig.

	// Data is the AuthorizationConfiguration file, any bytes (JSON encodes
	// them as base64). Kubeconfig files it names are looked up on the
	// oracle's own file system, as kube-apiserver's validation does (it
	// checks that each exists and is a regular file).
	Data []byte `json:"data,omitempty"`
	// Plugin is OpPluginConfig's admission plugin: ValidatingAdmissionWebhook,
	// MutatingAdmissionWebhook, ValidatingAdmissionPolicy or
	// MutatingAdmissionPolicy. NoData says the plugin has no configuration
	// (a nil reader), as against empty Data.
	Plugin string `json:"plugin,omitempty"`
	NoData bool   `json:"noData,omitempty"`
	// KnownTypes are the authorizer types the validation accepts; nil
	// means kube-apiserver's (AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC,
	// Node).
	KnownTypes []string `json:"knownTypes,omitempty"`
	// RepeatableTypes are the types that may appear more than once; nil
	// means kube-apiserver's (Webhook).
	RepeatableTypes []string `json:"repeatableTypes,omitempty"`

	// OpUnion.

	// Authorizers is the chain, in order, given to union.New (named with
	// their Name from v0.37, which checks the names; before, unnamed). The
	// request's attributes are fixed (user "x"): every authorizer answers
	// its script whatever it is asked.
	Authorizers []ScriptedAuthorizer `json:"authorizers,omitempty"`
	// ConditionsAware also asks the union's ConditionsAwareAuthorize
	// (v0.37 and later; an error before), whose decision's String() is
	// Answer.ConditionsAware.
	ConditionsAware bool `json:"conditionsAware,omitempty"`

	// OpConditional.

	// Conditional is the chain, in order, given to union.New: each
	// authorizer answers ConditionsAwareAuthorize with its decision, and
	// evaluates a decision with ConditionResults.
	Conditional []ScriptedConditional `json:"conditional,omitempty"`
	// ConditionResults is what each condition (by ID) evaluates to: "true",
	// "false", "error" (an error without a text: the evaluation's default
	// one), "error:<text>", anything else (or absent) unevaluatable.
	ConditionResults map[string]string `json:"conditionResults,omitempty"`

	// OpConditionalWebhook.
	ConditionalWebhook *ConditionalWebhookQuery `json:"conditionalWebhook,omitempty"`

	// OpConditionsEnforcer (with Conditional and ConditionResults).
	NoDecision bool                `json:"noDecision,omitempty"`
	Evaluation *ScriptedEvaluation `json:"evaluation,omitempty"`

	// OpVAP.

	// VAP is the world and the request.
	VAP *VAPQuery `json:"vap,omitempty"`

	// OpRESTValidation.
	REST *RESTValidationQuery `json:"rest,omitempty"`
}

// RESTValidationQuery is one admission object sent to the REST API:
// ValidatingWebhookConfiguration, MutatingWebhookConfiguration,
// ValidatingAdmissionPolicy(Binding) or MutatingAdmissionPolicy(Binding),
// admissionregistration.k8s.io/v1. The oracle decodes it, applies the
// scheme's defaults, converts it to the internal type and validates it as
// the registry strategy's Validate (create) or ValidateUpdate does.
type RESTValidationQuery struct {
	// Object is the object, JSON with apiVersion and kind.
	Object json.RawMessage `json:"object"`
	// OldObject is the stored object of an update; absent for a create.
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	// Gates overrides the version's defaults of the feature gates the
	// strategies read (ManifestBasedAdmissionControlConfig,
	// ExcludeAdmissionWebhookVirtualResources); a gate the version does not
	// have is an error.
	Gates map[string]bool `json:"gates,omitempty"`
}

// RESTValidationAnswer is the strategy's verdict.
type RESTValidationAnswer struct {
	// Errors is the field.ErrorList, in order; empty when valid.
	Errors []FieldError `json:"errors,omitempty"`
	// Warnings are the strategy's warnings (WarningsOnCreate or
	// WarningsOnUpdate), in order.
	Warnings []string `json:"warnings,omitempty"`
}

// ConditionalWebhookQuery is a webhook authorizer (v1, no match
// conditions, no cache, one try) and its server's answers. The request is a
// get of pods/web in default by User and Groups; the evaluation's data a
// CREATE of that pod (apiVersion v1, kind Pod, name web) with empty
// CreateOptions, by the same user.
type ConditionalWebhookQuery struct {
	// FailurePolicy is Deny or NoOpinion.
	FailurePolicy string `json:"failurePolicy"`
	// ConditionsReview gives the webhook a conditions review (v1alpha1, the
	// same server).
	ConditionsReview bool     `json:"conditionsReview,omitempty"`
	User             string   `json:"user,omitempty"`
	Groups           []string `json:"groups,omitempty"`
	// SARAnswer is the body of the answer to a SubjectAccessReview,
	// ACRAnswer to an AuthorizationConditionsReview, in which {{uid}} is the
	// request's admissionRequest.uid (application/json, status 200).
	SARAnswer []byte `json:"sarAnswer"`
	ACRAnswer []byte `json:"acrAnswer,omitempty"`
	// Evaluate calls EvaluateConditions on the decision.
	Evaluate bool `json:"evaluate,omitempty"`
	// MatchConditions are the webhook's match conditions (none when empty).
	MatchConditions []string `json:"matchConditions,omitempty"`
	// GateOff builds the webhook with the gate ConditionalAuthorization off
	// and stops there: the answer is NewError alone (the match conditions'
	// compilation without request.authorizationOptions).
	GateOff bool `json:"gateOff,omitempty"`
}

// ConditionalWebhookAnswer is OpConditionalWebhook's answer.
type ConditionalWebhookAnswer struct {
	// NewError is the webhook constructor's error (its match conditions did
	// not compile); the other fields are then empty.
	NewError string `json:"newError,omitempty"`
	// SARRequest is the SubjectAccessReview posted.
	SARRequest string `json:"sarRequest"`
	// String, Possible and Failure are ConditionsAwareAuthorize's decision's.
	String   string   `json:"string"`
	Possible []string `json:"possible"`
	Failure  string   `json:"failure"`
	// ACRRequest is the AuthorizationConditionsReview posted, its uid
	// replaced by {{uid}}, as in Error; empty when none was.
	ACRRequest string `json:"acrRequest,omitempty"`
	// Decision, Reason, Error and HasError are EvaluateConditions' answer.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Error    string `json:"error,omitempty"`
	HasError bool   `json:"hasError,omitempty"`
}

// ScriptedEvaluation is what EvaluateConditions answers, whatever the
// decision: Decision is Allow, Deny or NoOpinion; Error, if set, an error
// with that text.
type ScriptedEvaluation struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	Error    string `json:"error,omitempty"`
}

// EnforcerAnswer is OpConditionsEnforcer's answer: Validate's error (its
// text; Code and Reason when it is an API status) and the audit
// annotations the request's audit event has after it.
type EnforcerAnswer struct {
	Decision    string            `json:"decision"`
	HasError    bool              `json:"hasError,omitempty"`
	Error       string            `json:"error,omitempty"`
	Code        int32             `json:"code,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ScriptedConditional is an authorizer of OpConditional.
type ScriptedConditional struct {
	Name     string           `json:"name"`
	Decision ScriptedDecision `json:"decision"`
}

// ScriptedDecision is a ConditionsAwareDecision, built with k8s.io/apiserver's
// constructors (which fold it as they do).
type ScriptedDecision struct {
	// Type is Allow, Deny, NoOpinion (with Reason and Error), ConditionsMap
	// (with DenyConditions, NoOpinionConditions, AllowConditions) or Union
	// (with Union, added in order to a ConditionsAwareDecisionUnion).
	Type                string              `json:"type"`
	Reason              string              `json:"reason,omitempty"`
	Error               string              `json:"error,omitempty"`
	DenyConditions      []ScriptedCondition `json:"denyConditions,omitempty"`
	NoOpinionConditions []ScriptedCondition `json:"noOpinionConditions,omitempty"`
	AllowConditions     []ScriptedCondition `json:"allowConditions,omitempty"`
	Union               []ScriptedMember    `json:"union,omitempty"`
}

// ScriptedMember is a named member of a scripted Union.
type ScriptedMember struct {
	Name     string           `json:"name"`
	Decision ScriptedDecision `json:"decision"`
}

// ScriptedCondition is a condition (a GenericCondition without an
// evaluation function of its own).
type ScriptedCondition struct {
	ID          string `json:"id"`
	Condition   string `json:"condition,omitempty"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

// ConditionalAnswer is OpConditional's answer.
type ConditionalAnswer struct {
	// String is the String() of ConditionsAwareAuthorize's decision,
	// Possible its sets.List(PossibleDecisions()) and Failure its
	// FailureDecision().
	String   string   `json:"string"`
	Possible []string `json:"possible"`
	Failure  string   `json:"failure"`
	// Decision, Reason and Error are EvaluateConditions' answer on that
	// decision; HasError tells a nil error from an empty text.
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	Error    string `json:"error,omitempty"`
	HasError bool   `json:"hasError,omitempty"`
}

// ScriptedAuthorizer is an authorizer of OpUnion that always gives the
// same answer.
type ScriptedAuthorizer struct {
	// Name is its name in the union (v0.37 and later: union.NamedAuthorizer
	// AuthorizerName; the names must be non-empty and unique). Ignored
	// before v0.37.
	Name string `json:"name,omitempty"`
	// Decision is DecisionAllow, DecisionDeny or DecisionNoOpinion.
	Decision string `json:"decision"`
	// Reason is the reason it returns ("" for none).
	Reason string `json:"reason,omitempty"`
	// Error is the text of the error it returns ("" for a nil error).
	Error string `json:"error,omitempty"`
}

// FieldError is one error of a field.ErrorList.
type FieldError struct {
	// Type is the field.ErrorType ("FieldValueInvalid",
	// "FieldValueRequired", ...).
	Type string `json:"type"`
	// Field is the field path ("authorizers[0].webhook.timeout").
	Field string `json:"field"`
	// BadValue is the bad value as JSON (encoding/json of
	// field.Error.BadValue; "null" when there is none).
	BadValue string `json:"badValue"`
	// Detail is the error's detail.
	Detail string `json:"detail"`
	// Text is field.Error.Error(), as kube-apiserver prints it.
	Text string `json:"text"`
}

// VAPQuery is a ValidatingAdmissionPolicy dispatch: the cluster's
// policies, bindings, namespaces and params, and one request. The oracle
// builds each policy's validator as the plugin's compilePolicy does (the
// default compatibility version's base environment, stored expressions),
// gives the hooks to validating.NewDispatcher with an authorizer that
// allows everything, namespaces and params served from in-memory listers
// (already synced), and applies the generic plugin's exclusions first.
// Objects are JSON; the kinds client-go's scheme knows are decoded into
// their Go types, the others stay unstructured.
type VAPQuery struct {
	// Policies and Bindings are admissionregistration.k8s.io/v1
	// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
	// objects, in the order the policy source lists them. A policy without a
	// binding is left out; a policy whose paramKind's apiVersion does not
	// parse is left out, as the policy source leaves it out.
	Policies []json.RawMessage `json:"policies,omitempty"`
	Bindings []json.RawMessage `json:"bindings,omitempty"`
	// Namespaces are the v1 Namespaces the namespace lister (and the
	// client's GET behind it) knows.
	Namespaces []json.RawMessage `json:"namespaces,omitempty"`
	// ParamKinds are the kinds the REST mapper knows for params: a policy
	// whose paramKind is not one of them gets the policy source's
	// configuration error ("failed to find resource referenced by
	// paramKind: ..."). The direct GET that 1.37 tries on a cache miss is
	// not made (the cache holds every param, so it would find nothing more).
	ParamKinds []VAPParamKind `json:"paramKinds,omitempty"`
	// Params are the param objects (with apiVersion and kind), served by
	// the informer of their kind as the informer holds them: a kind of
	// client-go's scheme typed and without apiVersion and kind, another
	// unstructured.
	Params []json.RawMessage `json:"params,omitempty"`
	// CustomResources are resources served at several versions that are
	// equivalent (matchPolicy Equivalent), with their conversion. They are
	// the only equivalences the dispatcher knows.
	CustomResources []VAPCustomResource `json:"customResources,omitempty"`
	// Static says the policies come from a static manifests directory: they
	// then also see the admission policies and bindings themselves.
	Static bool `json:"static,omitempty"`
	// Request is the admission request.
	Request VAPRequest `json:"request"`
}

// VAPParamKind is a kind params may have.
type VAPParamKind struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespaced says whether the kind is namespaced (its REST scope).
	Namespaced bool `json:"namespaced,omitempty"`
}

// VAPCustomResource is a custom resource served in equivalent versions.
// Converting an object between versions sets its apiVersion and renames
// fields: Renames gives, per version, the dotted paths of the first
// version's fields and their names in that version ({"v2":
// {"spec.replicas": "spec.size"}}); the last segment alone is renamed.
type VAPCustomResource struct {
	Group    string                       `json:"group"`
	Kind     string                       `json:"kind"`
	Resource string                       `json:"resource"`
	Versions []string                     `json:"versions"`
	Renames  map[string]map[string]string `json:"renames,omitempty"`
}

// VAPRequest is an admission request (admission.NewAttributesRecord).
type VAPRequest struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation string `json:"operation"`
	// Kind and Resource are the request's group, version and kind, and
	// group, version and resource; SubResource its subresource.
	Kind        GroupVersionKind     `json:"kind"`
	Resource    GroupVersionResource `json:"resource"`
	SubResource string               `json:"subResource,omitempty"`
	Name        string               `json:"name,omitempty"`
	Namespace   string               `json:"namespace,omitempty"`
	// Object and OldObject are the objects (null or absent: none).
	Object    json.RawMessage `json:"object,omitempty"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	// UserInfo is the requesting user.
	UserInfo UserInfo `json:"userInfo"`
	DryRun   bool     `json:"dryRun,omitempty"`
	// Options is the operation's options object (CreateOptions, ...,
	// PodExecOptions for a CONNECT), with apiVersion and kind.
	Options json.RawMessage `json:"options,omitempty"`
}

// GroupVersionKind is schema.GroupVersionKind.
type GroupVersionKind struct {
	Group   string `json:"group,omitempty"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// GroupVersionResource is schema.GroupVersionResource.
type GroupVersionResource struct {
	Group    string `json:"group,omitempty"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// UserInfo is user.DefaultInfo.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// VAPAnswer is what the dispatcher did with the request.
type VAPAnswer struct {
	// Status is the metav1.Status of the error when it is an
	// apierrors.StatusError; Error the text of another error. Neither:
	// admitted.
	Status json.RawMessage `json:"status,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Warnings are the warnings recorded, in order.
	Warnings []string `json:"warnings,omitempty"`
	// AuditAnnotations are the annotations the attributes record accepted
	// (a key refused as an overwrite keeps its first value).
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
}

// Answer is one line of output.
type Answer struct {
	// Error says the query could not be answered (bad query, internal
	// failure of the oracle). It is never a CEL outcome.
	Error string `json:"error,omitempty"`

	// OpPluginConfig: the configuration read, or ConfigError.
	PluginConfig *PluginConfig `json:"pluginConfig,omitempty"`
	ConfigError  string        `json:"configError,omitempty"`

	// OpInfo.
	Kubernetes    string `json:"kubernetes,omitempty"`    // component-base's DefaultKubeBinaryVersion, "1.36"
	Apiserver     string `json:"apiserver,omitempty"`     // k8s.io/apiserver module version linked
	CELGo         string `json:"celGo,omitempty"`         // cel-go module path@version linked
	DefaultCompat string `json:"defaultCompat,omitempty"` // environment.DefaultCompatibilityVersion()
	GoVersion     string `json:"goVersion,omitempty"`

	// OpCEL.

	// CompileError is the admission compiler's error
	// (CompilationResult.Error), "compilation failed: ERROR: ...".
	CompileError string `json:"compileError,omitempty"`
	// OutputType is the checked type of the expression.
	OutputType string `json:"outputType,omitempty"`
	// EstimatedMin and EstimatedMax are the static cost estimate
	// (library.CostEstimator); EstimateError replaces them if it fails.
	EstimatedMin  *uint64 `json:"estimatedMin,omitempty"`
	EstimatedMax  *uint64 `json:"estimatedMax,omitempty"`
	EstimateError string  `json:"estimateError,omitempty"`
	// Result is the value, in the value encoding below; ResultType its CEL
	// type name.
	Result     json.RawMessage `json:"result,omitempty"`
	ResultType string          `json:"resultType,omitempty"`
	// EvalError is the evaluation error as cel-go words it, or admission's
	// out-of-budget text when Cost exceeds the query's CostLimit.
	EvalError string `json:"evalError,omitempty"`
	// Cost is the actual runtime cost.
	Cost *uint64 `json:"cost,omitempty"`

	// OpAuthzConfig.

	// LoadError is LoadFromData's error (decoding, conversion, defaulting),
	// as its text; validation does not run after it.
	LoadError string `json:"loadError,omitempty"`
	// Loaded says the file loaded, so that Validation was run.
	Loaded bool `json:"loaded,omitempty"`
	// Validation is ValidateAuthorizationConfiguration's errors, in order;
	// empty when the configuration is valid.
	Validation []FieldError `json:"validation,omitempty"`
	// ValidationAggregate is the error list's ToAggregate() text, as
	// kube-apiserver reports it ("" when valid).
	ValidationAggregate string `json:"validationAggregate,omitempty"`

	// OpUnion.

	// NewError is union.New's error (v0.37 and later: empty or duplicate
	// names); the chain is not asked after it.
	NewError string `json:"newError,omitempty"`
	// Decision is the union's decision (DecisionAllow, ...).
	Decision string `json:"decision,omitempty"`
	// Reason is the union's reason.
	Reason string `json:"reason,omitempty"`
	// AuthorizeError is the text of the union's error; HasAuthorizeError
	// tells a nil error from one with an empty text.
	AuthorizeError    string `json:"authorizeError,omitempty"`
	HasAuthorizeError bool   `json:"hasAuthorizeError,omitempty"`
	// ConditionsAware is the String() of ConditionsAwareAuthorize's
	// decision (Query.ConditionsAware).
	ConditionsAware string `json:"conditionsAware,omitempty"`

	// OpVAP.
	VAP *VAPAnswer `json:"vap,omitempty"`

	// OpConditional.
	Conditional *ConditionalAnswer `json:"conditional,omitempty"`
	// OpConditionalWebhook.
	ConditionalWebhook *ConditionalWebhookAnswer `json:"conditionalWebhook,omitempty"`
	// OpConditionsEnforcer.
	Enforcer *EnforcerAnswer `json:"enforcer,omitempty"`
	// OpRESTValidation.
	REST *RESTValidationAnswer `json:"rest,omitempty"`
}

// The value encoding of activations and results is JSON, canonical (object
// keys sorted), where:
//   - null, bool, string, list and string-keyed map are themselves;
//   - an int is a JSON integer; a double is a JSON number that always has a
//     '.' or an exponent (1.0), and {"@double":"NaN"|"+Inf"|"-Inf"|"-0"};
//   - other values are an object of one key naming the kind:
//     {"@uint":"7"}, {"@bytes":"<base64>"}, {"@duration":"1h0m0s"} (Go's
//     time.Duration text), {"@timestamp":"<RFC 3339, UTC>"},
//     {"@type":"int"}, {"@optional.none":true}, {"@optional.of":v},
//     {"@map":[[k,v],...]} (a map with a key that is not a string), and for
//     library values {"@<CEL type name>":"<its text>"}, for example
//     {"@kubernetes.Quantity":"1Gi"}, {"@net.IP":"::1"};
//   - a result whose encoding exceeds MaxResultBytes is replaced by
//     {"@digest":"sha256:<hex>","@size":N}.
//
// Activations use the same encoding; plain JSON numbers decode as the
// apimachinery JSON decoder does (int64 when integral, float64 otherwise).
const MaxResultBytes = 1 << 20

// PluginConfig is what an admission plugin takes from its configuration.
type PluginConfig struct {
	KubeConfigFile     string `json:"kubeConfigFile,omitempty"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
	StaticOrder        string `json:"staticOrder,omitempty"`
}
