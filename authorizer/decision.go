package authorizer

import "strconv"

// Decision is the answer of an authorizer. The zero value is DecisionDeny, so
// that a Decision nobody set never allows anything.
type Decision int

// The decisions, with kube-apiserver's values and meaning.
const (
	// DecisionDeny rejects the request; the chain stops here.
	DecisionDeny Decision = iota
	// DecisionAllow admits the request; the chain stops here.
	DecisionAllow
	// DecisionNoOpinion leaves the request to the next authorizer; a chain in
	// which every authorizer has no opinion forbids the request.
	DecisionNoOpinion
)

// String returns "Deny", "Allow" or "NoOpinion".
func (d Decision) String() string {
	switch d {
	case DecisionDeny:
		return "Deny"
	case DecisionAllow:
		return "Allow"
	case DecisionNoOpinion:
		return "NoOpinion"
	}
	return "Decision(" + strconv.Itoa(int(d)) + ")"
}
