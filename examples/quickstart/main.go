// Command quickstart is the main example of gatehouse: kube-apiserver's
// authorization chain, built from the sample configuration of KEP-3221, in a
// few dozen lines, with two fake webhooks standing in for real ones.
//
//	go run ./examples/quickstart
//
// It starts the two webhooks on the loopback interface, writes the
// configuration (kep-sample.yaml) and the first webhook's kubeconfig to a
// temporary directory, builds the chain with the RBAC authorizer of package
// authorizer/rbac over the objects of rbac.yaml and a small stand-in for
// Node, and asks it about a dozen requests that walk through the stories of
// the KEP: protected kube-system resources, a webhook skipped by its match
// conditions, a decision from the cache, the failure policies Deny and
// NoOpinion when a webhook is down, and system:masters, which nothing can
// deny. For each it prints the decision, the answer kube-apiserver would
// give over HTTP, and the trace of how the chain got there; then the
// metrics, in the Prometheus text format.
//
// Everything runs on a frozen clock, so that the output, durations
// included, is the same on every run.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

//go:embed kep-sample.yaml
var kepSample string

//go:embed rbac.yaml
var rbacObjects string

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	ctx := context.Background()

	// 1. Two fake webhooks. The first protects kube-system; the second,
	// reached "in cluster", is the organisation's catch-all policy.
	protector, err := authorizertest.NewServer(authorizertest.Options{Decide: protectKubeSystem})
	if err != nil {
		return err
	}
	defer protector.Close()
	inCluster, err := authorizertest.NewServer(authorizertest.Options{Decide: catchAll})
	if err != nil {
		return err
	}
	defer inCluster.Close()

	// 2. The configuration file and the kubeconfig it points at.
	dir, err := os.MkdirTemp("", "gatehouse-quickstart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "kube-system-authz-webhook.yaml")
	if err := protector.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	data := []byte(strings.Replace(kepSample, "kubeConfigFile: KUBECONFIG_PATH", "kubeConfigFile: "+kubeconfig, 1))

	// 3. Decode and validate it as kube-apiserver does, then build the chain.
	compiled, err := authzconfig.DecodeAndValidate(data, nil, authzconfig.ValidateOptions{})
	if err != nil {
		return err
	}
	// RBAC over the Roles and bindings of rbac.yaml, as kube-apiserver's RBAC
	// authorizer would decide over them in a cluster (in a server, over its
	// informers' listers: rbac.New).
	objs, err := rbac.Decode([]byte(rbacObjects))
	if err != nil {
		return err
	}
	rbacAuthorizer, err := rbac.FromObjects(objs, rbac.Options{})
	if err != nil {
		return err
	}
	sink := metrics.NewMemory()
	chain, err := authorizer.NewFromCompiled(compiled, authorizer.Options{
		Authorizers: map[string]authorizer.Authorizer{
			authzconfig.TypeNode: authorizer.Func(node),
			authzconfig.TypeRBAC: rbacAuthorizer,
		},
		// kube-apiserver cannot call a webhook "in cluster"; a library
		// can, given the connection.
		InClusterConnection: &authorizer.Connection{Server: inCluster.URL(), Transport: inCluster.Transport()},
		Clock:               testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		Metrics:             sink,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "The chain of KEP-3221's sample configuration: %s\n", strings.Join(chain.Names(), " → "))

	// 4. The stories.
	jane := &authorizer.User{Name: "jane", Groups: []string{"developers", "system:authenticated"}}
	root := &authorizer.User{Name: "root", Groups: []string{"system:masters", "system:authenticated"}}
	coreDNS := &authorizer.User{Name: "system:serviceaccount:kube-system:coredns",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}
	kubelet := &authorizer.User{Name: "system:node:worker-1", Groups: []string{"system:nodes", "system:authenticated"}}
	bob := &authorizer.User{Name: "bob", Groups: []string{"team-b", "system:authenticated"}}
	eve := &authorizer.User{Name: "eve", Groups: []string{"system:authenticated"}}

	steps := []struct {
		story string
		attrs *authorizer.Attributes
		setup func()
	}{
		{"Protected kube-system resources: the webhook denies jane's change in kube-system.",
			resource(jane, "update", "kube-system", "apps", "deployments", "coredns"), nil},
		{"The same request again: the webhook's answer comes from its cache (unauthorizedTTL 30s).",
			resource(jane, "update", "kube-system", "apps", "deployments", "coredns"), nil},
		{"A skipped webhook: kube-system's own service accounts are excluded by the third match condition; RBAC decides.",
			resource(coreDNS, "update", "kube-system", "", "configmaps", "coredns"), nil},
		{"Outside kube-system the webhook is skipped by the second match condition; RBAC lets jane read.",
			resource(jane, "list", "default", "", "pods", ""), nil},
		{"A non-resource request is skipped by the first match condition.",
			&authorizer.Attributes{User: jane, Verb: "get", Path: "/healthz"}, nil},
		{"The Node authorizer lets a kubelet read pods.",
			resource(kubelet, "get", "default", "", "pods", "web-1"), nil},
		{"Nobody before it has an opinion: the in-cluster webhook allows bob in his team's namespace.",
			resource(bob, "create", "team-b", "apps", "deployments", ""), nil},
		{"Nobody allows eve: NoOpinion everywhere is a refusal, with every reason.",
			resource(eve, "delete", "default", "", "secrets", "db"), nil},
		{"The kube-system webhook is down: failurePolicy Deny refuses, and the error makes it HTTP 500.",
			resource(jane, "delete", "kube-system", "", "secrets", "token"),
			func() { protector.InjectAlways(authorizertest.Fault{Status: 503}) }},
		{"The in-cluster webhook is down too: failurePolicy NoOpinion lets the chain go on, but nobody else allows.",
			resource(bob, "create", "team-b", "", "configmaps", ""),
			func() { inCluster.InjectAlways(authorizertest.Fault{Status: 503}) }},
		{"With it down, what RBAC allows is still allowed: the webhook is never asked.",
			resource(jane, "get", "default", "", "pods", "web-1"), nil},
		{"system:masters comes first: nothing can deny root, webhooks down or not.",
			resource(root, "delete", "kube-system", "", "secrets", "token"), nil},
	}
	for i, s := range steps {
		if s.setup != nil {
			s.setup()
		}
		fmt.Fprintf(out, "\n%2d. %s\n    %s\n", i+1, s.story, describe(s.attrs))
		trace := authorizer.Explain(ctx, chain, s.attrs)
		fmt.Fprintf(out, "    → %s\n", httpOutcome(trace))
		for _, line := range strings.Split(trace.String(), "\n")[1:] {
			fmt.Fprintf(out, "    %s\n", line)
		}
	}

	// 5. What the metrics say, named and labelled as kube-apiserver's. The
	// histograms (durations) are recorded too; WriteText without names
	// prints everything.
	fmt.Fprintln(out, "\nThe counters, in the Prometheus text format, as kube-apiserver exposes them:")
	return sink.WriteText(out,
		metrics.AuthorizationDecisions.Name(),
		metrics.AuthorizationMatchConditionExclusions.Name(),
		metrics.AuthorizationMatchConditionErrors.Name(),
		metrics.AuthorizationWebhookEvaluations.Name(),
		metrics.AuthorizationWebhookFailOpen.Name(),
	)
}

// protectKubeSystem is the first webhook's policy: only cluster admins may
// change kube-system (the match conditions already let its service
// accounts through without asking).
func protectKubeSystem(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
	ra := spec.ResourceAttributes
	if ra != nil && ra.Verb != "get" && ra.Verb != "list" && ra.Verb != "watch" {
		return authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "only cluster admins may change kube-system"}
	}
	return authorizationv1.SubjectAccessReviewStatus{}
}

// catchAll is the in-cluster webhook's policy: teams own the namespace named
// after them.
func catchAll(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
	if ra := spec.ResourceAttributes; ra != nil {
		for _, g := range spec.Groups {
			if g == ra.Namespace {
				return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "team " + g + " owns namespace " + ra.Namespace}
			}
		}
	}
	return authorizationv1.SubjectAccessReviewStatus{Reason: "no team owns this"}
}

// node stands in for the Node authorizer: kubelets may read pods. The real
// one stays the caller's: it decides from the graph of the pods, volumes,
// secrets, configmaps, resource claims and volume attachments bound to each
// node, which a server keeps from those objects' informers; RBAC's objects
// say nothing of it.
func node(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.User == nil || !strings.HasPrefix(a.User.Name, "system:node:") || a.Resource != "pods" || a.Verb != "get" {
		return authorizer.DecisionNoOpinion, "", nil
	}
	return authorizer.DecisionAllow, "", nil
}

func resource(u *authorizer.User, verb, namespace, group, resource, name string) *authorizer.Attributes {
	version := "v1"
	return &authorizer.Attributes{User: u, Verb: verb, ResourceRequest: true, Namespace: namespace,
		APIGroup: group, APIVersion: version, Resource: resource, Name: name}
}

func describe(a *authorizer.Attributes) string {
	who := a.User.Name + " (" + strings.Join(a.User.Groups, ", ") + ")"
	if !a.ResourceRequest {
		return fmt.Sprintf("%s: %s %s", who, a.Verb, a.Path)
	}
	what := a.Resource
	if a.APIGroup != "" {
		what += "." + a.APIGroup
	}
	if a.Name != "" {
		what += "/" + a.Name
	}
	return fmt.Sprintf("%s: %s %s in %s", who, a.Verb, what, a.Namespace)
}

// httpOutcome is what kube-apiserver's HTTP filter makes of a decision: an
// error refuses with 500 unless the request is allowed.
func httpOutcome(t *authorizer.Trace) string {
	switch {
	case t.Decision == authorizer.DecisionAllow:
		return "Allow: HTTP 200"
	case t.Err != nil:
		return fmt.Sprintf("%s with an error: HTTP 500 (%v)", t.Decision, t.Err)
	}
	return fmt.Sprintf("%s: HTTP 403", t.Decision)
}
