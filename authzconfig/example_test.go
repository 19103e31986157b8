package authzconfig_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"testing/fstest"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

func ExampleDecode() {
	cfg, err := authzconfig.Decode([]byte(`
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: opa
  webhook:
    authorizedTTL: 0s # zero means the default, 5m
    timeout: 3s
    subjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: /etc/kubernetes/opa.kubeconfig
- type: RBAC
  name: rbac
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	w := cfg.Authorizers[0].Webhook
	fmt.Println(cfg.Authorizers[0].Name, w.AuthorizedTTL.Duration, w.UnauthorizedTTL.Duration, w.CachesAuthorized())

	_, err = authzconfig.Decode([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorzers: []\n"))
	fmt.Println(err)
	// Output:
	// opa 5m0s 30s true
	// strict decoding error: unknown field "authorzers"
}

func ExampleValidate() {
	cfg, err := authzconfig.Decode([]byte(`
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: Policy_Engine
  webhook:
    timeout: 45s
    subjectAccessReviewVersion: v1
    failurePolicy: Allow
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: /etc/kubernetes/policy.kubeconfig
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	// A fake file system in which the kubeconfig file exists.
	files := fstest.MapFS{"etc/kubernetes/policy.kubeconfig": {Data: []byte("kind: Config\n")}}
	errs := authzconfig.Validate(cfg, authzconfig.ValidateOptions{
		KnownTypes: []string{authzconfig.TypeWebhook}, // a generic apiserver
		Stat:       func(name string) (fs.FileInfo, error) { return files.Stat(name[1:]) },
	})
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// authorizers[0].name: Invalid value: "Policy_Engine": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
	// authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s
	// authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"
}

func ExampleDecodeAndValidate() {
	data := []byte(`
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: Node, name: node}
- {type: RBAC, name: rbac}
`)
	startup, err := authzconfig.DecodeAndValidate(data, nil, authzconfig.ValidateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A reload that drops Node and renames RBAC's authorizer.
	_, err = authzconfig.DecodeAndValidate([]byte(`
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: RBAC, name: roles}
`), startup.Configuration, authzconfig.ValidateOptions{})
	fmt.Println(err)
	// Output:
	// [expected name rbac for authorizer RBAC instead of roles, missing required types: [Node]]
}

func ExampleValidateReload() {
	startup := &authzconfig.Configuration{Authorizers: []authzconfig.AuthorizerConfiguration{{Type: "RBAC", Name: "rbac"}}}
	next := &authzconfig.Configuration{Authorizers: []authzconfig.AuthorizerConfiguration{
		{Type: "AlwaysDeny", Name: "alwaysdeny"}, {Type: "RBAC", Name: "rbac"}, {Type: "Node", Name: "node"},
	}}
	fmt.Println(authzconfig.ValidateReload(startup, next))
	// Output:
	// authorizer type Node is not allowed if it was not enabled at initial server startup
}

func ExampleFromFlags() {
	flags, err := authzconfig.ParseFlags([]string{
		"--authorization-mode=Node,Webhook,RBAC",
		"--authorization-webhook-config-file=/etc/kubernetes/authz-webhook.kubeconfig",
		"--authorization-webhook-cache-unauthorized-ttl=0s",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	flags.Complete()
	if errs := flags.Validate(); len(errs) > 0 {
		fmt.Println(errs)
		return
	}
	cfg, err := authzconfig.FromFlags(flags)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := authzconfig.Encode(cfg, authzconfig.VersionV1)
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(out)
	// Output:
	// apiVersion: apiserver.config.k8s.io/v1
	// kind: AuthorizationConfiguration
	// authorizers:
	// - type: Node
	//   name: node
	// - type: Webhook
	//   name: default
	//   webhook:
	//     authorizedTTL: 5m0s
	//     cacheAuthorizedRequests: true
	//     cacheUnauthorizedRequests: false
	//     timeout: 30s
	//     subjectAccessReviewVersion: v1beta1
	//     failurePolicy: NoOpinion
	//     connectionInfo:
	//       type: KubeConfigFile
	//       kubeConfigFile: /etc/kubernetes/authz-webhook.kubeconfig
	// - type: RBAC
	//   name: rbac
}

func ExampleDecodeSingleDocument() {
	data := []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: RBAC, name: rbac}
---
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: AlwaysAllow, name: alwaysallow}
`)
	cfg, _ := authzconfig.Decode(data)
	fmt.Println(len(cfg.Authorizers), cfg.Authorizers[0].Type)
	_, err := authzconfig.DecodeSingleDocument(data)
	fmt.Println(err)
	// Output:
	// 1 RBAC
	// the data holds more than one YAML document (document 2 is not empty); kube-apiserver would read only the first and ignore the others
}

func ExampleValidateAndCompile() {
	cfg, err := authzconfig.Decode([]byte(`
apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: kube-system-guard
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: /etc/kubernetes/guard.kubeconfig
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: request.resourceAttributes.namespace == 'kube-system'
- type: RBAC
  name: rbac
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Build the compiler once and keep it: it costs about a millisecond.
	compiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		fmt.Println(err)
		return
	}
	compiled, errs := authzconfig.ValidateAndCompile(cfg, authzconfig.ValidateOptions{Compiler: compiler, SkipFileChecks: true})
	if len(errs) > 0 {
		fmt.Println(errs.ToAggregate())
		return
	}
	guard := compiled.MatchConditions[0]
	for _, ns := range []string{"kube-system", "default"} {
		matched, err := guard.Match(context.Background(), &authorizationv1.SubjectAccessReviewSpec{
			User:               "jane",
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "secrets"},
		})
		fmt.Println(ns, matched, err)
	}
	fmt.Println(compiled.MatchConditions[1] == nil)
	// Output:
	// kube-system true <nil>
	// default false <nil>
	// true
}
