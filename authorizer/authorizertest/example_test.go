package authorizertest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

func ExampleNewServer() {
	srv, err := authorizertest.NewServer(authorizertest.Options{
		Decide: authorizertest.AllowIf(func(spec authorizationv1.SubjectAccessReviewSpec) bool {
			return spec.User == "alice"
		}),
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
		Name: "test", SubjectAccessReviewVersion: "v1beta1", FailurePolicy: authorizer.FailurePolicyDeny,
		KubeConfigFile: kubeconfig, Backoff: &authorizer.Backoff{Steps: 1},
	})
	if err != nil {
		panic(err)
	}
	ask := func(user string) {
		d, _, err := w.Authorize(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: user}, Verb: "get", Path: "/healthz"})
		fmt.Println(user, d, err)
	}
	ask("alice")
	ask("bob")
	srv.Inject(authorizertest.Fault{Status: 404})
	ask("carol")

	for _, r := range srv.Requests() {
		fmt.Println(r.APIVersion, r.Spec.User, r.Spec.NonResourceAttributes.Path)
	}
	// Output:
	// alice Allow <nil>
	// bob NoOpinion <nil>
	// carol Deny the server could not find the requested resource
	// authorization.k8s.io/v1beta1 alice /healthz
	// authorization.k8s.io/v1beta1 bob /healthz
	// authorization.k8s.io/v1beta1 carol /healthz
}
