package authorizer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

func ExampleNewChain() {
	readOnly := authorizer.Func(func(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.Verb == "get" || a.Verb == "list" || a.Verb == "watch" {
			return authorizer.DecisionAllow, "read-only access", nil
		}
		return authorizer.DecisionNoOpinion, "only reads are allowed", nil
	})
	chain, err := authorizer.NewChain(
		authorizer.Named{Name: authorizer.PrivilegedGroupsName, Authorizer: authorizer.PrivilegedGroups(authorizer.SystemPrivilegedGroup)},
		authorizer.Named{Name: "read-only", Authorizer: readOnly},
		authorizer.Named{Name: "deny", Authorizer: authorizer.AlwaysDeny()},
	)
	if err != nil {
		panic(err)
	}
	for _, a := range []*authorizer.Attributes{
		{User: &authorizer.User{Name: "jane"}, Verb: "list", ResourceRequest: true, Resource: "pods"},
		{User: &authorizer.User{Name: "jane"}, Verb: "delete", ResourceRequest: true, Resource: "pods"},
		{User: &authorizer.User{Name: "root", Groups: []string{"system:masters"}}, Verb: "delete", ResourceRequest: true, Resource: "pods"},
	} {
		d, reason, _ := chain.Authorize(context.Background(), a)
		fmt.Printf("%s %s: %s %q\n", a.User.Name, a.Verb, d, reason)
	}
	// Output:
	// jane list: Allow "read-only access"
	// jane delete: NoOpinion "read-only: only reads are allowed\ndeny: Everything is forbidden."
	// root delete: Allow ""
}

func ExampleNewWebhook() {
	srv, err := authorizertest.NewServer(authorizertest.Options{
		Decide: authorizertest.AllowIf(func(spec authorizationv1.SubjectAccessReviewSpec) bool { return spec.User == "alice" }),
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "webhook.kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		panic(err)
	}

	w, err := authorizer.NewWebhook(authorizer.WebhookOptions{
		Name:                       "my-webhook",
		SubjectAccessReviewVersion: "v1",
		FailurePolicy:              authorizer.FailurePolicyNoOpinion,
		MatchConditions:            []string{"request.resourceAttributes.namespace != 'kube-system'"},
		KubeConfigFile:             kubeconfig,
	})
	if err != nil {
		panic(err)
	}
	for _, user := range []string{"alice", "bob"} {
		d, _, err := w.Authorize(context.Background(), &authorizer.Attributes{
			User: &authorizer.User{Name: user}, Verb: "get", ResourceRequest: true, Namespace: "default", Resource: "pods",
		})
		fmt.Println(user, d, err)
	}
	// Output:
	// alice Allow <nil>
	// bob NoOpinion <nil>
}

func ExampleNew() {
	srv, err := authorizertest.NewServer(authorizertest.Options{
		Decide: authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "kube-system is protected"}),
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "webhook.kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		panic(err)
	}

	cfg, err := authzconfig.Decode([]byte(`apiVersion: apiserver.config.k8s.io/v1
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
      kubeConfigFile: ` + kubeconfig + `
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: request.resourceAttributes.namespace == 'kube-system'
- type: RBAC
  name: rbac
`))
	if err != nil {
		panic(err)
	}
	if errs := authzconfig.Validate(cfg, authzconfig.ValidateOptions{}); len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	rbac := authorizer.Func(func(context.Context, *authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil // a stand-in; package rbac has kube-apiserver's RBAC authorizer
	})
	chain, err := authorizer.New(cfg, authorizer.Options{Authorizers: map[string]authorizer.Authorizer{"RBAC": rbac}})
	if err != nil {
		panic(err)
	}
	fmt.Println(chain.Names())
	for _, ns := range []string{"default", "kube-system"} {
		d, reason, _ := chain.Authorize(context.Background(), &authorizer.Attributes{
			User: &authorizer.User{Name: "jane"}, Verb: "delete", ResourceRequest: true, Namespace: ns, Resource: "configmaps",
		})
		fmt.Printf("%s: %s %q\n", ns, d, reason)
	}
	// Output:
	// [system-privileged-group.authorizer.kubernetes.io protect-kube-system rbac]
	// default: Allow ""
	// kube-system: Deny "kube-system is protected"
}

func ExampleExplain() {
	chain, _ := authorizer.NewChain(
		authorizer.Named{Name: authorizer.PrivilegedGroupsName, Authorizer: authorizer.PrivilegedGroups(authorizer.SystemPrivilegedGroup)},
		authorizer.Named{Name: "deny", Authorizer: authorizer.AlwaysDeny()},
	)
	fmt.Println(authorizer.Explain(context.Background(), chain, &authorizer.Attributes{User: &authorizer.User{Name: "jane"}, Verb: "get", Path: "/metrics"}))
	// Output:
	// NoOpinion "deny: Everything is forbidden."
	//   system-privileged-group.authorizer.kubernetes.io: NoOpinion
	//   deny: NoOpinion "Everything is forbidden."
}

func ExampleNewReloader() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "authz.yaml")
	write := func(types ...string) {
		content := "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
		for _, t := range types {
			content += fmt.Sprintf("- {type: %s, name: %s}\n", t, strings.ToLower(t))
		}
		_ = os.WriteFile(path, []byte(content), 0o600)
	}
	write("AlwaysDeny")
	r, err := authorizer.NewReloader(authorizer.ReloaderOptions{
		Path:     path,
		OnReload: func(ev authorizer.ReloadEvent) { fmt.Println("reload:", ev.Status, ev.Err) },
	})
	if err != nil {
		panic(err)
	}
	// A server runs r.Run(ctx) in a goroutine; here one check at a time.
	ask := func() {
		d, _, _ := r.Authorize(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: "jane"}, Verb: "get", Path: "/"})
		fmt.Println(d)
	}
	ask()
	write("AlwaysDeny", "AlwaysAllow")
	r.Check(context.Background())
	ask()
	write("RBAC")
	r.Check(context.Background())
	ask()
	// Output:
	// NoOpinion
	// reload: success <nil>
	// Allow
	// reload: failure missing required types: [AlwaysDeny]
	// Allow
}
