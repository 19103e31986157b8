package authorizer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// pb builds protobuf messages: each argument a field number and a value, a
// string or []byte (length-delimited) or a uint64 (varint).
func pb(fields ...any) []byte {
	var b []byte
	for i := 0; i+1 < len(fields); i += 2 {
		num := protowire.Number(fields[i].(int))
		switch v := fields[i+1].(type) {
		case string:
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendString(b, v)
		case []byte:
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendBytes(b, v)
		case uint64:
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, v)
		}
	}
	return b
}

// protoAnswer is a protobuf SubjectAccessReview answer, allowed, with the
// extra status fields given (status merges field by field).
func protoAnswer(t *testing.T, extraStatus []byte) []byte {
	t.Helper()
	sar := authorizationv1.SubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "r"}}
	raw, err := sar.Marshal()
	require.NoError(t, err)
	raw = append(raw, pb(3, extraStatus)...)
	unk := runtime.Unknown{
		TypeMeta:    runtime.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Raw:         raw,
		ContentType: "application/vnd.kubernetes.protobuf",
	}
	env, err := unk.Marshal()
	require.NoError(t, err)
	return append([]byte("k8s\x00"), env...)
}

func TestProtobufConditionalDecision(t *testing.T) {
	denyCond := pb(1, "example.com/deny")
	allowCond := pb(1, "example.com/allow")
	cmDeny := pb(1, "ConditionsMap", 5, pb(1, denyCond, 3, allowCond))
	cmAllow := pb(1, "ConditionsMap", 5, pb(3, allowCond))
	on := conditionalReading{on: true, onError: DecisionNoOpinion}
	for _, tt := range []struct {
		name   string
		status []byte
		want   conditionalFailure
		err    string
	}{
		{"none", nil, noConditional, ""},
		{"deny conditions", pb(5, cmDeny), conditionalFailsDeny, ""},
		{"allow-only conditions", pb(5, cmAllow), conditionalFailsNoOpinion, ""},
		// Two occurrences merge: the second adds a deny condition.
		{"merged", pb(5, cmAllow, 5, pb(5, pb(1, denyCond))), conditionalFailsDeny, ""},
		{"last type wins", pb(5, pb(1, "Deny", 1, "Allow")), conditionalFailsNoOpinion, ""},
		{"union", pb(5, pb(1, "Union", 6, pb(1, "a", 2, cmAllow), 6, pb(1, "b", 2, cmDeny))), conditionalFailsDeny, ""},
		{"union after Allow", pb(5, pb(1, "Union", 6, pb(1, "a", 2, pb(1, "Allow")), 6, pb(1, "b", 2, cmDeny))), conditionalFailsNoOpinion, ""},
		{"unknown fields skipped", pb(5, pb(1, "Deny", 9, uint64(3))), conditionalFailsDeny, ""},
		{"wrong wire type", pb(5, pb(1, uint64(1))), 0, "proto: wrong wireType = 0 for field Type"},
		{"conditionalDecision not a message", pb(5, uint64(1)), 0, "proto: wrong wireType = 0 for field ConditionalDecision"},
		{"truncated", pb(5, []byte{0x0a, 0x05, 'D'}), 0, "unexpected EOF"},
		{"illegal tag", pb(5, []byte{0x00}), 0, "proto: ConditionsAwareDecision: illegal tag 0 (wire type 0)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := protoAnswer(t, tt.status)
			before, err := decodeReviewSlow(body, false, conditionalReading{})
			require.NoError(t, err, "1.37 skips the field")
			assert.Equal(t, reviewStatus{allowed: true, reason: "r"}, before)
			got, err := decodeReviewSlow(body, false, on)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, reviewStatus{allowed: true, reason: "r", conditional: tt.want}, got)
		})
	}

	// Through a webhook.
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Body: protoAnswer(t, pb(5, cmDeny)), ContentType: "application/vnd.kubernetes.protobuf"})
	for _, v := range []kube.Version{kube.V1_37, kube.V1_38} {
		w := newTestWebhook(t, kc, WebhookOptions{Kube: targetAt(t, v)})
		d, reason, err := w.Authorize(context.Background(), podGet("jane"))
		assert.Equal(t, "r", reason)
		if v == kube.V1_38 {
			assert.Equal(t, DecisionDeny, d)
			assert.EqualError(t, err, "webhook subject access review returned unrequested conditional decision")
		} else {
			assert.Equal(t, DecisionAllow, d)
			assert.NoError(t, err)
		}
	}
}

// FuzzProtobufConditionalDecision: no protobuf status crashes the reading.
func FuzzProtobufConditionalDecision(f *testing.F) {
	f.Add(pb(5, pb(1, "Union", 6, pb(1, "a", 2, pb(1, "ConditionsMap", 5, pb(1, pb(1, "example.com/d")))))))
	f.Add(pb(5, pb(1, uint64(1))))
	f.Fuzz(func(t *testing.T, status []byte) {
		cd, err := protoConditionalDecision(pb(3, status))
		if err == nil && cd != nil {
			_ = unrequestedFailure(cd, DecisionDeny)
		}
	})
}

// A protobuf answer to a conditional ask is read in full: its
// conditionalDecision (here with allowed true, which validation forbids,
// then without).
func TestProtobufConditionalAsk(t *testing.T) {
	cm := pb(1, "ConditionsMap", 5, pb(1, pb(1, "example.com/deny", 4, "no"), 3, pb(1, "example.com/allow")))
	raw, err := (&authorizationv1.SubjectAccessReview{}).Marshal() // not allowed, no reason
	require.NoError(t, err)
	raw = append(raw, pb(3, pb(5, cm))...)
	env, err := (&runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"}, Raw: raw}).Marshal()
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		body []byte
		want string
	}{
		{"allowed and conditional", protoAnswer(t, pb(5, cm)),
			`NoOpinion(reason="failed closed", err="[status.allowed: Forbidden: must be false when status.conditionalDecision.type=ConditionsMap, status.reason: Forbidden: must be empty when status.conditionalDecision.type=ConditionsMap]")`},
		{"conditional", append([]byte("k8s\x00"), env...), "ConditionsMap(denies=1, allows=1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{})
			srv.InjectAlways(authorizertest.Fault{Body: tt.body, ContentType: "application/vnd.kubernetes.protobuf"})
			target, err := targetAt(t, kube.V1_38).WithFeatureGate(kube.ConditionalAuthorization, true)
			require.NoError(t, err)
			w := newTestWebhook(t, kc, WebhookOptions{Kube: target, ConditionsReview: &WebhookConditionsReview{Version: "v1alpha1"}})
			assert.Equal(t, tt.want, w.AuthorizeConditionally(context.Background(), podGet("jane")).String())
		})
	}
}
