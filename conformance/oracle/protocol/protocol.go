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

// Answer is one line of output.
type Answer struct {
	// Error says the query could not be answered (bad query, internal
	// failure of the oracle). It is never a CEL outcome.
	Error string `json:"error,omitempty"`

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
