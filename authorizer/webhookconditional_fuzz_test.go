package authorizer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzConditionalAnswer reads any body as a conditional ask's answer, as
// AuthorizeConditionally does (decode in full, validate, build the
// decision): no panic, and an answer that decodes gives a decision whose
// String and PossibleDecisions are well formed.
func FuzzConditionalAnswer(f *testing.F) {
	f.Add(statusBody(`{"allowed":false,"conditionalDecision":{"type":"ConditionsMap","conditionsMap":{"denyConditions":[{"id":"example.com/d"}]}}}`))
	f.Add(statusBody(`{"conditionalDecision":{"type":"Union","union":[{"authorizerName":"a","decision":{"type":"Union","union":[{"authorizerName":"b","decision":{"type":"Allow","allow":{}}}]}}]}}`))
	f.Add(statusBody(`{"allowed":true,"reason":"r","evaluationError":"e"}`))
	f.Add([]byte("k8s\x00\n\x04\n\x02v1"))
	f.Add([]byte("status: {conditionalDecision: {type: Maybe}}"))
	w := &Webhook{decisionOnError: DecisionDeny}
	f.Fuzz(func(t *testing.T, body []byte) {
		st, err := decodeFullReview(body, false, true)
		if err != nil {
			return
		}
		d := w.conditionalAnswer(podGet("jane"), &st, true)
		require.NotEmpty(t, d.String())
		require.NotEmpty(t, d.PossibleDecisions())
		d.PartiallyEvaluate(context.Background(), script)
	})
}

// FuzzConditionsReviewAnswer reads any body as an AuthorizationConditionsReview
// answer and checks it as EvaluateConditions does: no panic; an outcome is
// one of the decision's possible ones, or its failure decision with an
// error.
func FuzzConditionsReviewAnswer(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"authorization.k8s.io/v1alpha1","kind":"AuthorizationConditionsReview","response":{"uid":"u","decision":{"type":"Allow","allow":{"reason":"x"}}}}`))
	f.Add([]byte(`{"response":{"uid":"u","decision":{"type":"Deny"}},"request":{"decision":{"type":"Allow"}}}`))
	f.Add([]byte(`{"metadata":{"labels":{}},"response":{"uid":"u","decision":{"type":"Union","union":[{"authorizerName":"x","decision":{}}]}}}`))
	f.Add([]byte("k8s\x00"))
	d := ConditionsMapDecision(nil, nil, conds("a"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeConditionsReview(body)
		if err != nil {
			return
		}
		x, _, err := evaluationOutcome(d, r, "u")
		if err != nil {
			require.Equal(t, d.FailureDecision(), x)
			return
		}
		require.Contains(t, d.PossibleDecisions(), x)
	})
}
