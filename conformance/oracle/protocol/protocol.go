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
