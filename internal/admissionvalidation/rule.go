package admissionvalidation

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The values that validation accepts, sorted as kube-apiserver lists them.
var (
	FailurePolicies = []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore}
	MatchPolicies   = []admissionregistrationv1.MatchPolicyType{admissionregistrationv1.Equivalent, admissionregistrationv1.Exact}
	operations      = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll, admissionregistrationv1.Connect, admissionregistrationv1.Create, admissionregistrationv1.Delete, admissionregistrationv1.Update}
	scopes          = []admissionregistrationv1.ScopeType{admissionregistrationv1.AllScopes, admissionregistrationv1.ClusterScope, admissionregistrationv1.NamespacedScope}
)

// RuleWithOperations validates a rule of a webhook or of a policy's
// match resources (subresources allowed).
func RuleWithOperations(r *admissionregistrationv1.RuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(path.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionregistrationv1.OperationAll) {
		errs = append(errs, field.Invalid(path.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(operations, op) {
			errs = append(errs, field.NotSupported(path.Child("operations").Index(i), op, operations))
		}
	}
	return append(errs, validateRule(&r.Rule, path)...)
}

func validateRule(r *admissionregistrationv1.Rule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(path.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, field.Invalid(path.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(path.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, field.Invalid(path.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, version := range r.APIVersions {
		if version == "" {
			errs = append(errs, field.Required(path.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, path.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(scopes, *r.Scope) {
		errs = append(errs, field.NotSupported(path.Child("scope"), *r.Scope, scopes))
	}
	return errs
}

// validateResources validates the resources of a rule, with subresources:
// "x/*" and "*/y" forbid a later "x/y"; "*/*" forbids anything else; "*"
// forbids a plain resource. As in kube-apiserver, whether there is a plain
// resource is the verdict of the last entry without a slash, so ["a", "*"]
// passes where ["*", "a"] fails.
func validateResources(resources []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(path, ""))
	}
	wildcardSub := map[string]bool{} // x of "x/*"
	wildcardRes := map[string]bool{} // y of "*/y"
	doubleWildcard, singleWildcard, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(path.Index(i), ""))
			continue
		}
		switch rs {
		case "*/*":
			doubleWildcard = true
		case "*":
			singleWildcard = true
		}
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = rs != "*"
			continue
		}
		if wildcardSub[res] {
			errs = append(errs, field.Invalid(path.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildcardRes[sub] {
			errs = append(errs, field.Invalid(path.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildcardSub[res] = true
		}
		if res == "*" {
			wildcardRes[sub] = true
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, field.Invalid(path, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && plain {
		errs = append(errs, field.Invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}
