// Command kubeapiserver is the other side of the comparison of
// conformance/authorizer_size: the program of ../gatehouse on
// kube-apiserver's own packages (k8s.io/apiserver v0.37.2), assembled as
// kube-apiserver's pkg/kubeapiserver/authorizer does: load and validate the
// configuration, build the webhook from its kubeconfig, put system:masters
// first, instrument each configured authorizer, and decide one request.
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/load"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	authzmetrics "k8s.io/apiserver/pkg/authorization/metrics"
	"k8s.io/apiserver/pkg/authorization/union"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"
)

const config = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: protect-kube-system
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: request.resourceAttributes.namespace == 'kube-system'
    - expression: "!('system:serviceaccounts:kube-system' in request.groups)"
- type: RBAC
  name: rbac
`

func main() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"denied":true,"reason":"kube-system is protected"}}`)
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "size")
	check(err)
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	check(os.WriteFile(kubeconfig, []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {server: %q}\ncontexts:\n- name: w\n  context: {cluster: w}\ncurrent-context: w\n", srv.URL)), 0o600))

	cfg, err := load.LoadFromData([]byte(fmt.Sprintf(config, kubeconfig)))
	check(err)
	compiler := authorizationcel.NewDefaultCompiler()
	types := sets.New("AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node")
	check(validation.ValidateAuthorizationConfiguration(compiler, nil, cfg, types, sets.New("Webhook")).ToAggregate())

	rbac := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	named := []union.NamedAuthorizer{{AuthorizerName: "system-privileged-group.authorizer.kubernetes.io",
		Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)}}
	for _, a := range cfg.Authorizers {
		var az authorizer.Authorizer = rbac
		if a.Type == apiserver.TypeWebhook {
			clientConfig, err := webhookutil.LoadKubeconfig(*a.Webhook.ConnectionInfo.KubeConfigFile, nil)
			check(err)
			clientConfig.Timeout = a.Webhook.Timeout.Duration
			decisionOnError := authorizer.DecisionNoOpinion
			if a.Webhook.FailurePolicy == apiserver.FailurePolicyDeny {
				decisionOnError = authorizer.DecisionDeny
			}
			w, err := webhook.New(clientConfig, a.Webhook.SubjectAccessReviewVersion, a.Webhook.AuthorizedTTL.Duration, a.Webhook.UnauthorizedTTL.Duration,
				*webhook.DefaultRetryBackoff(), decisionOnError, a.Webhook.MatchConditions, a.Name, webhookAuthorizerMetrics{
					WebhookMetrics: webhookmetrics.NewWebhookMetrics(), MatcherMetrics: authorizationcel.NewMatcherMetrics(),
				}, compiler)
			check(err)
			az = w
		}
		named = append(named, union.NamedAuthorizer{AuthorizerName: a.Name, Authorizer: authzmetrics.InstrumentedAuthorizer(string(a.Type), a.Name, az)})
	}
	chain, err := union.New(named...)
	check(err)
	d, reason, err := chain.Authorize(context.Background(), authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: "jane"}, Verb: "delete", ResourceRequest: true, Namespace: "kube-system", APIVersion: "v1", Resource: "secrets",
	})
	fmt.Println(d, reason, err)
}

// webhookAuthorizerMetrics is what kube-apiserver gives its webhooks: the
// webhook and match condition metrics, and no request metrics.
type webhookAuthorizerMetrics struct {
	noRequestMetrics
	webhookmetrics.WebhookMetrics
	authorizationcel.MatcherMetrics
}

type noRequestMetrics struct{}

func (noRequestMetrics) RecordRequestTotal(context.Context, string)            {}
func (noRequestMetrics) RecordRequestLatency(context.Context, string, float64) {}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
