package rbac

import (
	"errors"
	"fmt"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Aggregate computes the rules of the ClusterRoles that have an
// aggregationRule, as kube-controller-manager's clusterrole-aggregation
// controller does, and returns the ClusterRoles in the same order, the
// aggregated ones replaced by copies holding the computed rules (the others,
// and the inputs, untouched).
//
// The rules of an aggregated ClusterRole are those of the ClusterRoles its
// selectors match, itself excluded: selector after selector, the matching
// ClusterRoles in name order, each rule once (rules equal field by field,
// an empty list equal to none). They replace its own rules, unless there
// are none: the controller writes them with a server-side apply that leaves
// out an empty list, which keeps the rules another field manager wrote (as
// it does for objects created by kubectl or read from files). An aggregated
// ClusterRole that another selects contributes its computed rules: the
// computation is repeated until nothing changes, as the controller's
// resyncs converge.
//
// A selector that is not valid leaves its ClusterRole as given, as the
// controller fails on it; the error names it. Aggregate gives up after as
// many rounds as there are aggregated ClusterRoles, plus one, if the rules
// still change (selectors that chase each other), and says so.
func Aggregate(clusterRoles []*rbacv1.ClusterRole) ([]*rbacv1.ClusterRole, error) {
	out, errs := aggregate(clusterRoles)
	return out, errors.Join(errs...)
}

func aggregate(clusterRoles []*rbacv1.ClusterRole) ([]*rbacv1.ClusterRole, []error) {
	out := make([]*rbacv1.ClusterRole, len(clusterRoles))
	copy(out, clusterRoles)
	type aggregated struct {
		index     int
		selectors []labels.Selector
	}
	var (
		targets []aggregated
		errs    []error
	)
	byName := make([]int, 0, len(out))
	for i, cr := range out {
		if cr == nil {
			continue
		}
		byName = append(byName, i)
		if cr.AggregationRule == nil {
			continue
		}
		a := aggregated{index: i}
		var err error
		for j := range cr.AggregationRule.ClusterRoleSelectors {
			var sel labels.Selector
			if sel, err = metav1.LabelSelectorAsSelector(&cr.AggregationRule.ClusterRoleSelectors[j]); err != nil {
				errs = append(errs, fmt.Errorf("ClusterRole %q: aggregationRule.clusterRoleSelectors[%d]: %w", cr.Name, j, err))
				break
			}
			a.selectors = append(a.selectors, sel)
		}
		if err == nil {
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 {
		return out, errs
	}
	sort.SliceStable(byName, func(i, j int) bool { return out[byName[i]].Name < out[byName[j]].Name })
	sort.SliceStable(targets, func(i, j int) bool { return out[targets[i].index].Name < out[targets[j].index].Name })

	for round := 0; ; round++ {
		changed := false
		for _, t := range targets {
			self := out[t.index]
			rules := []rbacv1.PolicyRule{}
			for _, sel := range t.selectors {
				for _, i := range byName {
					cr := out[i]
					if cr.Name == self.Name || !sel.Matches(labels.Set(cr.Labels)) {
						continue
					}
					for _, r := range cr.Rules {
						if !containsRule(rules, &r) {
							rules = append(rules, r)
						}
					}
				}
			}
			if len(rules) == 0 || rulesEqual(rules, self.Rules) {
				continue
			}
			c := *self
			c.Rules = rules
			out[t.index] = &c
			changed = true
		}
		if !changed {
			return out, errs
		}
		if round > len(targets) {
			return out, append(errs, fmt.Errorf("the aggregated ClusterRoles do not settle after %d rounds: their selectors select each other", round+1))
		}
	}
}

func containsRule(rules []rbacv1.PolicyRule, r *rbacv1.PolicyRule) bool {
	for i := range rules {
		if ruleEqual(&rules[i], r) {
			return true
		}
	}
	return false
}

func rulesEqual(a, b []rbacv1.PolicyRule) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ruleEqual(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// ruleEqual is equality.Semantic.DeepEqual for PolicyRules: nil and empty
// lists are equal.
func ruleEqual(a, b *rbacv1.PolicyRule) bool {
	return stringsEqual(a.Verbs, b.Verbs) && stringsEqual(a.APIGroups, b.APIGroups) &&
		stringsEqual(a.Resources, b.Resources) && stringsEqual(a.ResourceNames, b.ResourceNames) &&
		stringsEqual(a.NonResourceURLs, b.NonResourceURLs)
}

func stringsEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
