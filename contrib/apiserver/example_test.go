package apiserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/contrib/apiserver"
)

// A gatehouse chain answers k8s.io/apiserver's attributes, selectors
// included.
func ExampleToKube() {
	onlyNarrowLists := authorizer.Func(func(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.Verb == "list" && len(a.LabelSelector) > 0 {
			return authorizer.DecisionAllow, "narrowed by " + a.LabelSelector[0].Key, nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	chain, err := authorizer.NewChain(authorizer.Named{Name: "narrow", Authorizer: onlyNarrowLists})
	if err != nil {
		panic(err)
	}
	kubeAuthorizer := apiserver.ToKube(chain)

	attrs := apiserver.ToKubeAttributes(&authorizer.Attributes{User: &authorizer.User{Name: "jane"}, Verb: "list", ResourceRequest: true, Resource: "pods"})
	d, reason, _ := kubeAuthorizer.Authorize(context.Background(), attrs)
	fmt.Printf("%s %q\n", d, reason)

	attrs.LabelSelectorRequirements = mustParseLabels("app=web")
	d, reason, _ = kubeAuthorizer.Authorize(context.Background(), attrs)
	fmt.Printf("%s %q\n", d, reason)
	// Output:
	// NoOpinion ""
	// Allow "narrowed by app"
}

// A k8s.io/apiserver authorizer takes a place in a gatehouse chain.
func ExampleFromKube() {
	kubeRBAC := kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
		if a.IsReadOnly() {
			return kauthorizer.DecisionAllow, "reads are allowed", nil
		}
		return kauthorizer.DecisionNoOpinion, "", nil
	})
	chain, err := authorizer.NewChain(
		authorizer.Named{Name: authorizer.PrivilegedGroupsName, Authorizer: authorizer.PrivilegedGroups(authorizer.SystemPrivilegedGroup)},
		authorizer.Named{Name: "rbac", Authorizer: apiserver.FromKube(kubeRBAC)},
	)
	if err != nil {
		panic(err)
	}
	for _, verb := range []string{"get", "delete"} {
		d, reason, _ := chain.Authorize(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: "jane"}, Verb: verb, ResourceRequest: true, Resource: "pods"})
		fmt.Printf("%s: %s %q\n", verb, d, reason)
	}
	// Output:
	// get: Allow "reads are allowed"
	// delete: NoOpinion ""
}

// A generic apiserver builds its authorizer from an --authorization-config
// file, with its own authorizer for the type RBAC, and the chain follows the
// file until the context ends.
func ExampleNewReloadingAuthorizer() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "authorization-config.yaml")
	config := `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: RBAC
  name: rbac
- type: AlwaysDeny
  name: alwaysdeny
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		panic(err)
	}
	readOnly := kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
		if a.IsReadOnly() {
			return kauthorizer.DecisionAllow, "", nil
		}
		return kauthorizer.DecisionNoOpinion, "only reads", nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops following the file
	az, err := apiserver.NewReloadingAuthorizer(ctx, apiserver.ReloadingOptions{
		ReloaderOptions: authorizer.ReloaderOptions{Path: path},
		KubeAuthorizers: map[string]kauthorizer.Authorizer{"RBAC": readOnly},
	})
	if err != nil {
		panic(err)
	}
	// In a generic apiserver: config.Authorization.Authorizer = az
	for _, u := range []*user.DefaultInfo{{Name: "jane"}, {Name: "root", Groups: []string{"system:masters"}}} {
		for _, verb := range []string{"get", "delete"} {
			d, reason, _ := az.Authorize(ctx, kauthorizer.AttributesRecord{User: u, Verb: verb, ResourceRequest: true, Resource: "pods"})
			fmt.Printf("%s %s: %s %q\n", u.Name, verb, d, reason)
		}
	}
	// Output:
	// jane get: Allow ""
	// jane delete: NoOpinion "rbac: only reads\nalwaysdeny: Everything is forbidden."
	// root get: Allow ""
	// root delete: Allow ""
}

func mustParseLabels(s string) labels.Requirements {
	sel, err := labels.Parse(s)
	if err != nil {
		panic(err)
	}
	reqs, _ := sel.Requirements()
	return reqs
}
