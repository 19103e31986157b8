// Command gatehouse is one side of the binary size and build time comparison
// of conformance/authorizer_size: it reads an AuthorizationConfiguration
// with one webhook and RBAC, validates it, builds kube-apiserver's chain with
// gatehouse, and decides one request. The webhook is an in-process HTTP
// server; RBAC is a stand-in. kubeapiserver is the same program on
// kube-apiserver's packages.
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
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

	compiled, err := authzconfig.DecodeAndValidate([]byte(fmt.Sprintf(config, kubeconfig)), nil, authzconfig.ValidateOptions{})
	check(err)
	rbac := authorizer.Func(func(context.Context, *authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	chain, err := authorizer.NewFromCompiled(compiled, authorizer.Options{Authorizers: map[string]authorizer.Authorizer{"RBAC": rbac}})
	check(err)
	d, reason, err := chain.Authorize(context.Background(), &authorizer.Attributes{
		User: &authorizer.User{Name: "jane"}, Verb: "delete", ResourceRequest: true, Namespace: "kube-system", APIVersion: "v1", Resource: "secrets",
	})
	fmt.Println(d, reason, err)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
