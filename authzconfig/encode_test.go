package authzconfig

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEncode(t *testing.T) {
	no := false
	cfg := &Configuration{Authorizers: []AuthorizerConfiguration{
		{Type: "Node", Name: "node"},
		{Type: "Webhook", Name: "opa", Webhook: &WebhookConfiguration{
			AuthorizedTTL:                            metav1.Duration{Duration: 30 * time.Second},
			CacheUnauthorizedRequests:                &no,
			Timeout:                                  metav1.Duration{Duration: 3 * time.Second},
			SubjectAccessReviewVersion:               "v1",
			MatchConditionSubjectAccessReviewVersion: "v1",
			FailurePolicy:                            "NoOpinion",
			ConnectionInfo:                           WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: ptr("/etc/opa.kubeconfig")},
			MatchConditions:                          []WebhookMatchCondition{{Expression: "!('system:masters' in request.groups)"}, {Expression: "yes"}},
		}},
		{Type: "Webhook", Name: "in-cluster", Webhook: &WebhookConfiguration{ConnectionInfo: WebhookConnectionInfo{Type: "InClusterConfig", KubeConfigFile: ptr("")}}},
		{Type: "Webhook", Name: "empty", Webhook: &WebhookConfiguration{}},
		{},
	}}
	out, err := Encode(cfg, "v1beta1")
	require.NoError(t, err)
	assert.Equal(t, `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthorizationConfiguration
authorizers:
- type: Node
  name: node
- type: Webhook
  name: opa
  webhook:
    authorizedTTL: 30s
    cacheUnauthorizedRequests: false
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: /etc/opa.kubeconfig
    matchConditions:
    - expression: '!(''system:masters'' in request.groups)'
    - expression: "yes"
- type: Webhook
  name: in-cluster
  webhook:
    connectionInfo:
      type: InClusterConfig
      kubeConfigFile: ""
- type: Webhook
  name: empty
  webhook: {}
- {}
`, string(out))

	back, err := Decode(out)
	require.NoError(t, err)
	assert.Equal(t, cfg.Authorizers[1].Webhook.MatchConditions, back.Authorizers[1].Webhook.MatchConditions)
	assert.Equal(t, ptr(""), back.Authorizers[2].Webhook.ConnectionInfo.KubeConfigFile)
	assert.Equal(t, 5*time.Minute, back.Authorizers[3].Webhook.AuthorizedTTL.Duration, "defaulted")
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, version := range []string{"v1alpha1", "v1beta1", "v1"} {
		for _, data := range []string{
			"apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n",
			"apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n",
			"apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  webhook:\n    matchConditions: []\n    connectionInfo: {kubeConfigFile: null}\n",
		} {
			first, err := Decode([]byte(data))
			require.NoError(t, err)
			out, err := Encode(first, version)
			require.NoError(t, err)
			second, err := Decode(out)
			require.NoError(t, err)
			assert.Equal(t, first, second, "%s", out)
		}
	}
}

func TestEncodeUnknownVersion(t *testing.T) {
	_, err := Encode(&Configuration{}, "v2")
	assert.EqualError(t, err, `cannot encode AuthorizationConfiguration version "v2": want v1alpha1, v1beta1 or v1`)
}
