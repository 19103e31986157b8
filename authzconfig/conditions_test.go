package authzconfig

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

func withConditions(exprs ...string) *Configuration {
	return webhookWith(func(w *WebhookConfiguration) {
		w.MatchConditionSubjectAccessReviewVersion = "v1"
		for _, e := range exprs {
			w.MatchConditions = append(w.MatchConditions, WebhookMatchCondition{Expression: e})
		}
	})
}

func TestValidateMatchConditions(t *testing.T) {
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(t, err)
	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprintf("request.user == 'u%d'", i)
	}
	tests := []struct {
		name  string
		exprs []string
		want  []string
	}{
		{"valid", []string{"has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'kube-system'", "!('system:serviceaccounts:kube-system' in request.groups)"}, nil},
		{"64 is the most", many[:64], nil},
		{"too many, nothing compiled", append(many[:64:64], "bad bad"), []string{"authorizers[0].matchConditions: Too many: 65: must have at most 64 items"}},
		{"empty after trimming", []string{"", " \t\n", "true"}, []string{
			"authorizers[0].matchConditions[0].expression: Required value",
			"authorizers[0].matchConditions[1].expression: Required value",
		}},
		{"duplicate", []string{"request.user == 'a'", "request.user == 'a'"}, []string{`authorizers[0].matchConditions[1].expression: Duplicate value: "request.user == 'a'"`}},
		{"undefined field", []string{"request.foo == 1"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"request.foo == 1\": compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 1\n | .......^",
		}},
		{"not a bool", []string{"request.user"}, []string{`authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string`}},
		{"undeclared reference", []string{"test"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"test\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'test' (in container '')\n | test\n | ^",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(withConditions(tt.exprs...), ValidateOptions{Stat: fakeStat, Compiler: compiler}) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateAndCompile(t *testing.T) {
	cfg := authorizers(
		AuthorizerConfiguration{Type: "RBAC", Name: "rbac"},
		AuthorizerConfiguration{Type: "Webhook", Name: "plain", Webhook: validWebhook()},
		withConditions("request.user == 'alice'", "'admins' in request.groups").Authorizers[0],
	)
	compiled, errs := ValidateAndCompile(cfg, ValidateOptions{Stat: fakeStat})
	require.Empty(t, errs)
	assert.Same(t, cfg, compiled.Configuration)
	require.Len(t, compiled.MatchConditions, 3)
	assert.Nil(t, compiled.MatchConditions[0])
	assert.Nil(t, compiled.MatchConditions[1])
	m := compiled.MatchConditions[2]
	require.NotNil(t, m)
	assert.Equal(t, 2, m.Len())
	ok, err := m.Match(context.Background(), &authorizationv1.SubjectAccessReviewSpec{User: "alice", Groups: []string{"admins"}})
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = m.Match(context.Background(), &authorizationv1.SubjectAccessReviewSpec{User: "bob", Groups: []string{"admins"}})
	require.NoError(t, err)
	assert.False(t, ok)

	compiled, errs = ValidateAndCompile(withConditions("request.user"), ValidateOptions{Stat: fakeStat})
	assert.Nil(t, compiled)
	assert.Len(t, errs, 1)
}

func TestDecodeAndValidateCompiles(t *testing.T) {
	data := strings.Join([]string{
		"apiVersion: apiserver.config.k8s.io/v1",
		"kind: AuthorizationConfiguration",
		"authorizers:",
		"- type: Webhook",
		"  name: w",
		"  webhook:",
		"    timeout: 3s",
		"    subjectAccessReviewVersion: v1",
		"    matchConditionSubjectAccessReviewVersion: v1",
		"    failurePolicy: Deny",
		"    connectionInfo: {type: KubeConfigFile, kubeConfigFile: /etc/kubernetes/kc.yaml}",
		"    matchConditions:",
		"    - expression: has(request.resourceAttributes)",
		"",
	}, "\n")
	compiled, err := DecodeAndValidate([]byte(data), nil, ValidateOptions{Stat: fakeStat})
	require.NoError(t, err)
	assert.Equal(t, 1, compiled.MatchConditions[0].Len())
}
