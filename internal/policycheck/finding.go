package policycheck

// Severity is how sure a finding is that kube-apiserver fails.
type Severity string

const (
	// Error: kube-apiserver fails every request the finding is about (or
	// rejects the object), whatever the object. Every rule of this
	// severity has a differential test against kube-apiserver's packages.
	Error Severity = "error"
	// Warning: kube-apiserver can fail, depending on the object, or the
	// policy does not do what it seems to (a rule that matches nothing).
	Warning Severity = "warning"
)

// Rule names of the findings.
const (
	RuleUnknownResource   = "unknown-resource"
	RuleUnboundPolicy     = "unbound-policy"
	RuleMissingPolicy     = "binding-of-missing-policy"
	RuleMissingParams     = "missing-params"
	RuleUnguardedField    = "unguarded-field"
	RuleNoSuchField       = "no-such-field"
	RuleAtomicWrite       = "atomic-write"
	RuleWrongType         = "wrong-type"
	RuleCostNearLimit     = "cost-near-limit"
	RuleNotIdempotent     = "not-idempotent"
	RuleUncompilable      = "compile-error"
	RuleUnknownParamKind  = "unknown-param-kind"
	RuleUnknownObjectKind = "unknown-kind"
	RuleNullObject        = "null-object"
)

// Finding is one admission-time failure found before any request.
type Finding struct {
	Severity Severity `json:"severity"`
	// Rule names the check (one of the Rule constants).
	Rule string `json:"rule"`
	// Kind and Name are the policy's or binding's.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Index is the index of the policy in the policies checked, or of the
	// binding in the bindings.
	Index int `json:"-"`
	// Field is the path of the finding in the object, as kube-apiserver
	// writes field paths: spec.validations[0].expression.
	Field   string `json:"field"`
	Message string `json:"message"`
	// Fix is a suggested change, when one is clear.
	Fix string `json:"fix,omitempty"`
}
