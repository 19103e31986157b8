package kubernetes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/controller/clusterroleaggregation"

	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

const aggregationWorlds = 40

// genAggregationWorld returns ClusterRoles with labels, some of which
// aggregate others, two levels deep: level-1 aggregators select leaves (by
// x and y) and carry z=1; level-2 aggregators select z=1 (and leaves), so
// the rules of one aggregated role flow into another. Nothing selects a
// level-2 aggregator, so the selections never go round in circles.
func genAggregationWorld(r *rand.Rand) []*rbacv1.ClusterRole {
	leafLabels := []map[string]string{nil, {"x": "1"}, {"y": "1"}, {"x": "1", "y": "1"}, {"x": "2"}}
	selectors := []metav1.LabelSelector{
		{MatchLabels: map[string]string{"x": "1"}},
		{MatchLabels: map[string]string{"y": "1"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: metav1.LabelSelectorOpIn, Values: []string{"1", "2"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "y", Operator: metav1.LabelSelectorOpDoesNotExist}, {Key: "x", Operator: metav1.LabelSelectorOpExists}}},
		{MatchLabels: map[string]string{"x": "1", "y": "1"}},
	}
	var roles []*rbacv1.ClusterRole
	shared := genRules(r) // rules that several roles hold, to be kept once
	for i := range 3 + r.IntN(5) {
		rules := genRules(r)
		if r.IntN(3) == 0 {
			rules = append(rules, shared...)
		}
		roles = append(roles, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("leaf-%c", 'a'+rune(r.IntN(26))) + fmt.Sprint(i), Labels: pick(r, leafLabels)}, Rules: rules})
	}
	for i := range 1 + r.IntN(3) {
		var sel []metav1.LabelSelector
		for range r.IntN(3) {
			sel = append(sel, pick(r, selectors))
		}
		roles = append(roles, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("agg1-%d", i), Labels: map[string]string{"z": "1"}},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: sel}, Rules: genRules(r)})
	}
	for i := range r.IntN(3) {
		sel := []metav1.LabelSelector{{MatchLabels: map[string]string{"z": "1"}}}
		if r.IntN(2) == 0 {
			sel = append(sel, pick(r, selectors))
		}
		roles = append(roles, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%c-agg2-%d", 'a'+rune(r.IntN(26)), i)},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: sel}})
	}
	r.Shuffle(len(roles), func(i, j int) { roles[i], roles[j] = roles[j], roles[i] })
	return roles
}

// TestAggregationMatchesController runs kube-controller-manager's
// clusterrole-aggregation controller over a fake clientset (server-side
// apply and all) until it settles, and compares the rules it wrote with
// rbac.Aggregate's.
func TestAggregationMatchesController(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	var aggregated, rules int
	for w := range aggregationWorlds {
		roles := genAggregationWorld(r)
		want, err := rbac.Aggregate(roles)
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range want {
			if cr.AggregationRule != nil {
				aggregated++
				rules += len(cr.Rules)
			}
		}
		got := runAggregationController(t, roles, want)
		for i, cr := range want {
			if !equality.Semantic.DeepEqual(cr.Rules, got[cr.Name]) {
				t.Errorf("world %d, ClusterRole %q:\ncontroller: %v\ngatehouse:  %v\nroles: %v", w, cr.Name, got[cr.Name], cr.Rules, describeClusterRoles(roles))
			}
			_ = i
		}
	}
	t.Logf("%d worlds, %d aggregated ClusterRoles, %d rules, compared", aggregationWorlds, aggregated, rules)
}

func describeClusterRoles(roles []*rbacv1.ClusterRole) string {
	s := ""
	for _, cr := range roles {
		s += fmt.Sprintf("\n  %s labels=%v aggregation=%v rules=%v", cr.Name, cr.Labels, cr.AggregationRule, cr.Rules)
	}
	return s
}

// runAggregationController returns the rules of every ClusterRole once the
// controller has settled: when they equal want for a while, or after a
// timeout (then they differ, and the caller says how).
func runAggregationController(t *testing.T, roles, want []*rbacv1.ClusterRole) map[string][]rbacv1.PolicyRule {
	t.Helper()
	var objs []runtime.Object
	for _, cr := range roles {
		objs = append(objs, cr.DeepCopy())
	}
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	ctrl := clusterroleaggregation.NewClusterRoleAggregation(factory.Rbac().V1().ClusterRoles(), client.RbacV1())
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx.Done())
	go ctrl.Run(ctx, 1)

	read := func() map[string][]rbacv1.PolicyRule {
		list, err := client.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]rbacv1.PolicyRule{}
		for _, cr := range list.Items {
			out[cr.Name] = cr.Rules
		}
		return out
	}
	same := func(got map[string][]rbacv1.PolicyRule) bool {
		for _, cr := range want {
			if !equality.Semantic.DeepEqual(cr.Rules, got[cr.Name]) {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(5 * time.Second)
	stable := 0
	for {
		got := read()
		if same(got) {
			stable++
		} else {
			stable = 0
		}
		if stable == 5 || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}
