package admissionmanifest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
)

// staticNameMessage is kube-apiserver's error, and warning, for a name with
// StaticSuffix.
var staticNameMessage = fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", StaticSuffix)

// staticName applies the StaticNamePolicy to name: on create with
// StaticNamesReserved, an error appended to errs; otherwise, a warning. The
// errors are then the registry's (admissionvalidation.Registry: from 1.37,
// identical errors once; generationKept says an update keeps
// metadata.generation).
func (v *Validator) staticName(name string, errs field.ErrorList, update, generationKept bool) (field.ErrorList, []string) {
	var warnings []string
	switch {
	case v.opts.StaticNames == StaticNamesAllowed || !strings.HasSuffix(name, StaticSuffix):
	case !update && v.opts.StaticNames == StaticNamesReserved:
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, staticNameMessage))
	default:
		warnings = []string{"metadata.name: " + staticNameMessage}
	}
	return admissionvalidation.Registry(v.opts.Kube, errs, nil, generationKept), warnings
}

// ExcludedResources are the resources that no admission webhook, static
// or not, is called for (kube-apiserver 1.37, with the feature
// ExcludeAdmissionWebhookVirtualResources on by default): virtual resources
// that are never stored.
var ExcludedResources = []schema.GroupResource{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
}

func isExcludedResource(gr schema.GroupResource) bool {
	for _, x := range ExcludedResources {
		if x == gr {
			return true
		}
	}
	return false
}

// warningsForExcludedResources are kube-apiserver 1.37's warnings for the
// rules of webhooks (behind ExcludeAdmissionWebhookVirtualResources; before
// 1.37 there are none) that name an excluded resource explicitly: a rule with
// "*" in its apiGroups or its resources gets none; each group and resource
// pair is named once per rule, in the rule's order (groups, then
// resources).
func warningsForExcludedResources(hooks []webhook) []string {
	var warnings []string
	for i := range hooks {
		for j, r := range hooks[i].rules {
			if oneOf("*", r.APIGroups) || oneOf("*", r.Resources) {
				continue
			}
			var seen []schema.GroupResource
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					gr := schema.GroupResource{Group: g, Resource: res}
					if !isExcludedResource(gr) || containsGR(seen, gr) {
						continue
					}
					seen = append(seen, gr)
					warnings = append(warnings, fmt.Sprintf("webhooks[%d].rules[%d]: %s is excluded from admission webhooks; this rule will have no effect", i, j, gr))
				}
			}
		}
	}
	return warnings
}

func containsGR(list []schema.GroupResource, gr schema.GroupResource) bool {
	for _, x := range list {
		if x == gr {
			return true
		}
	}
	return false
}
