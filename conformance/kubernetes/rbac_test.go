package kubernetes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

// The corpus: rbacWorlds random sets of objects, rbacRequests random
// requests on each.
const (
	rbacWorlds   = 400
	rbacRequests = 60
)

func describeRequest(a *authorizer.Attributes) string {
	if !a.ResourceRequest {
		return fmt.Sprintf("%+v %s %q", *a.User, a.Verb, a.Path)
	}
	return fmt.Sprintf("%+v %s ns=%q %s/%s/%s name=%q", *a.User, a.Verb, a.Namespace, a.APIGroup, a.Resource, a.Subresource, a.Name)
}

func describeWorld(o *rbac.Objects) string {
	var b strings.Builder
	for _, x := range o.ClusterRoles {
		fmt.Fprintf(&b, "ClusterRole %s %v\n", x.Name, x.Rules)
	}
	for _, x := range o.Roles {
		fmt.Fprintf(&b, "Role %s/%s %v\n", x.Namespace, x.Name, x.Rules)
	}
	for _, x := range o.ClusterRoleBindings {
		fmt.Fprintf(&b, "ClusterRoleBinding %s %v %v\n", x.Name, x.RoleRef, x.Subjects)
	}
	for _, x := range o.RoleBindings {
		fmt.Fprintf(&b, "RoleBinding %s/%s %v %v\n", x.Namespace, x.Name, x.RoleRef, x.Subjects)
	}
	return b.String()
}

// TestRBACMatchesKubeAPIServer compares gatehouse's RBAC authorizer with
// kube-apiserver's on the generated corpus: decisions, reasons and errors.
//
// The oracle is k8s.io/kubernetes v1.37.2's. 1.37's authorizer interface
// adds ConditionsAwareAuthorize and EvaluateConditions (KEP-5681); RBAC is
// not conditions-aware, so its decisions are those of Authorize.
func TestRBACMatchesKubeAPIServer(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(12, 1))
	var cases, allowed, withErrors, diffs int
	for w := range rbacWorlds {
		objs := genWorld(r)
		listers := newInformerListers(objs)
		kube := listers.kubeAPIServerOrdered()
		kubeUnordered := listers.kubeAPIServer()
		fromObjects, err := rbac.FromObjects(objs, rbac.Options{SkipAggregation: true})
		if err != nil {
			t.Fatal(err)
		}
		fromListers, err := rbac.New(listers.gatehouse(), rbac.Options{SkipAggregation: true})
		if err != nil {
			t.Fatal(err)
		}
		for range rbacRequests {
			a := genRequest(r)
			cases++
			wantD, wantReason, wantErr := kube.Authorize(ctx, kubeAttributes(a))
			gotD, gotReason, gotErr := fromObjects.Authorize(ctx, a)
			lD, lReason, lErr := fromListers.Authorize(ctx, a)
			unorderedD, _, _ := kubeUnordered.Authorize(ctx, kubeAttributes(a))
			e := fromObjects.Explain(ctx, a)
			switch {
			case int(gotD) != int(wantD) || gotReason != wantReason || fmt.Sprint(gotErr) != fmt.Sprint(wantErr),
				lD != gotD || lReason != gotReason || lErr != gotErr,
				int(unorderedD) != int(wantD),
				e.Decision != gotD || e.Reason != gotReason:
				diffs++
				if diffs <= 5 {
					t.Errorf("world %d, %s:\nkube-apiserver: %v %q %v (unordered listers: %v)\ngatehouse:      %v %q %v (listers: %v %q %v; Explain: %v %q)\n%s",
						w, describeRequest(a), wantD, wantReason, wantErr, unorderedD, gotD, gotReason, gotErr, lD, lReason, lErr, e.Decision, e.Reason, describeWorld(objs))
				}
			}
			if wantD == kauthorizer.DecisionAllow {
				allowed++
			} else if wantReason != "" {
				withErrors++
			}
		}
	}
	t.Logf("%d requests on %d worlds: %d allowed, %d not allowed with errors in the reason, %d differences", cases, rbacWorlds, allowed, withErrors, diffs)
	// The corpus must exercise both outcomes and the errors.
	if allowed < cases/20 || withErrors < cases/20 || cases-allowed-withErrors < cases/10 {
		t.Errorf("the corpus is lopsided: %d cases, %d allowed, %d with errors", cases, allowed, withErrors)
	}
}

// TestRBACRulesForMatchesKubeAPIServer compares what a user may do in a
// namespace (kubectl auth can-i --list) with kube-apiserver's RulesFor.
func TestRBACRulesForMatchesKubeAPIServer(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(13, 1))
	var cases, rules, diffs int
	for w := range rbacWorlds {
		objs := genWorld(r)
		kube := newInformerListers(objs).kubeAPIServerOrdered()
		az, err := rbac.FromObjects(objs, rbac.Options{SkipAggregation: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range corpusUsers {
			for _, ns := range append([]string{"", "ns4"}, corpusNamespaces...) {
				cases++
				res, nonRes, incomplete, err := kube.RulesFor(ctx, kubeUser(u), ns)
				want := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{}, Incomplete: incomplete}
				for _, i := range res {
					want.ResourceRules = append(want.ResourceRules, authorizationv1.ResourceRule{Verbs: i.GetVerbs(), APIGroups: i.GetAPIGroups(), Resources: i.GetResources(), ResourceNames: i.GetResourceNames()})
				}
				for _, i := range nonRes {
					want.NonResourceRules = append(want.NonResourceRules, authorizationv1.NonResourceRule{Verbs: i.GetVerbs(), NonResourceURLs: i.GetNonResourceURLs()})
				}
				if err != nil {
					want.EvaluationError = err.Error()
				}
				got := az.SubjectRulesReview(u, ns)
				rules += len(got.ResourceRules) + len(got.NonResourceRules)
				if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
					diffs++
					if diffs <= 5 {
						t.Errorf("world %d, %+v in %q:\nkube-apiserver: %#v\ngatehouse:      %#v\n%s", w, *u, ns, want, got, describeWorld(objs))
					}
				}
			}
		}
	}
	t.Logf("%d users×namespaces on %d worlds, %d rules, %d differences", cases, rbacWorlds, rules, diffs)
}

// TestRBACWhoCanMatchesKubeAPIServer compares the subjects that may make a
// request with kube-apiserver's subject locator. kube-apiserver's
// AllowedSubjects computes a list without duplicates and returns the one
// with them; gatehouse returns each subject once (see the package
// documentation), so the oracle's answer is deduplicated here.
func TestRBACWhoCanMatchesKubeAPIServer(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(14, 1))
	var cases, subjects, diffs int
	for w := range rbacWorlds {
		objs := genWorld(r)
		locator := newInformerListers(objs).subjectLocator()
		az, err := rbac.FromObjects(objs, rbac.Options{SkipAggregation: true})
		if err != nil {
			t.Fatal(err)
		}
		for range rbacRequests / 3 {
			a := genRequest(r)
			cases++
			want, wantErr := locator.AllowedSubjects(ctx, kubeAttributes(a))
			got, gotErr := az.AllowedSubjects(a)
			want = dedupSubjects(want)
			subjects += len(got)
			if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				diffs++
				if diffs <= 5 {
					t.Errorf("world %d, %s:\nkube-apiserver: %v %v\ngatehouse:      %v %v\n%s", w, describeRequest(a), want, wantErr, got, gotErr, describeWorld(objs))
				}
			}
		}
	}
	t.Logf("%d requests on %d worlds, %d subjects, %d differences", cases, rbacWorlds, subjects, diffs)
}

func dedupSubjects(in []rbacv1.Subject) []rbacv1.Subject {
	var out []rbacv1.Subject
	seen := map[rbacv1.Subject]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// FuzzRBACMatchesKubeAPIServer is TestRBACMatchesKubeAPIServer on worlds
// and requests drawn from the fuzzer's seeds.
func FuzzRBACMatchesKubeAPIServer(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(12), uint64(1))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(s1, s2))
		objs := genWorld(r)
		kube := newInformerListers(objs).kubeAPIServerOrdered()
		az, err := rbac.FromObjects(objs, rbac.Options{SkipAggregation: true})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			a := genRequest(r)
			wantD, wantReason, wantErr := kube.Authorize(ctx, kubeAttributes(a))
			gotD, gotReason, gotErr := az.Authorize(ctx, a)
			if int(gotD) != int(wantD) || gotReason != wantReason || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%s:\nkube-apiserver: %v %q %v\ngatehouse:      %v %q %v\n%s", describeRequest(a), wantD, wantReason, wantErr, gotD, gotReason, gotErr, describeWorld(objs))
			}
		}
	})
}
