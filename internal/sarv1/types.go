// Package v1 mirrors the fields of authorization.k8s.io/v1's
// SubjectAccessReview that kube-apiserver's newer versions read and the
// k8s.io/api version gatehouse builds with does not have: 1.38's
// status.conditionalDecision. The types have the names and JSON shapes of
// k8s.io/api v0.38's, and their package is named v1, so that a value of the
// wrong JSON type gets the error text kube-apiserver's decoder gives.
//
// Only the wire shape is mirrored; what a decision means is the webhook
// authorizer's business (package authorizer).
package v1

// SubjectAccessReview is the part of a SubjectAccessReview answer read
// here: its status.
type SubjectAccessReview struct {
	Status SubjectAccessReviewStatus `json:"status"`
}

// SubjectAccessReviewStatus holds the status fields that k8s.io/api v0.37
// lacks.
type SubjectAccessReviewStatus struct {
	// ConditionalDecision is set by a webhook that answers with conditions
	// (1.38).
	ConditionalDecision *ConditionsAwareDecision `json:"conditionalDecision,omitempty"`
}

// ConditionsAwareDecisionType is the kind of a ConditionsAwareDecision.
type ConditionsAwareDecisionType string

// The decision types.
const (
	ConditionsAwareDecisionTypeDeny          ConditionsAwareDecisionType = "Deny"
	ConditionsAwareDecisionTypeAllow         ConditionsAwareDecisionType = "Allow"
	ConditionsAwareDecisionTypeNoOpinion     ConditionsAwareDecisionType = "NoOpinion"
	ConditionsAwareDecisionTypeConditionsMap ConditionsAwareDecisionType = "ConditionsMap"
	ConditionsAwareDecisionTypeUnion         ConditionsAwareDecisionType = "Union"
)

// ConditionsAwareDecision is one authorizer's decision: unconditional, a
// map of conditions, or a union of named decisions.
type ConditionsAwareDecision struct {
	Type          ConditionsAwareDecisionType    `json:"type"`
	Deny          *UnconditionalDecision         `json:"deny,omitempty"`
	NoOpinion     *UnconditionalDecision         `json:"noOpinion,omitempty"`
	Allow         *UnconditionalDecision         `json:"allow,omitempty"`
	ConditionsMap *ConditionsMap                 `json:"conditionsMap,omitempty"`
	Union         []NamedConditionsAwareDecision `json:"union,omitempty"`
}

// NamedConditionsAwareDecision is a member of a union.
type NamedConditionsAwareDecision struct {
	AuthorizerName string                  `json:"authorizerName"`
	Decision       ConditionsAwareDecision `json:"decision"`
}

// UnconditionalDecision is the reason and error of an unconditional
// decision.
type UnconditionalDecision struct {
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// ConditionsMap holds conditions by effect.
type ConditionsMap struct {
	DenyConditions      []Condition `json:"denyConditions,omitempty"`
	NoOpinionConditions []Condition `json:"noOpinionConditions,omitempty"`
	AllowConditions     []Condition `json:"allowConditions,omitempty"`
}

// Condition is one condition of a ConditionsMap.
type Condition struct {
	ID          string `json:"id"`
	Condition   string `json:"condition,omitempty"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}
