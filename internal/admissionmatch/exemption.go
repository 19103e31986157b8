package admissionmatch

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/admissionexclusion"
)

// Options are the caller's choices for one webhook or policy.
type Options struct {
	// Static is true for a hook loaded from a static manifest
	// (manifest-based admission configuration). Static hooks also see the
	// admission-configuration objects, which hooks registered through the
	// API never do (a guard against circular dependencies): webhook
	// configurations and admission policies and bindings for webhooks,
	// admission policies and bindings for policies.
	Static bool
	// ExcludedResources are the resources no hook sees, static or not, in
	// any version and with any subresource. nil means kube-apiserver's list
	// (ExcludedResources()); an empty, non-nil slice excludes nothing, as in
	// an apiserver that does not configure the list.
	ExcludedResources []schema.GroupResource
}

// ExcludedResources returns kube-apiserver's list of the virtual resources
// that admission never intercepts (admissionexclusion.Excluded).
func ExcludedResources() []schema.GroupResource { return admissionexclusion.Excluded() }

// exemptions are the prepared Options of one hook.
type exemptions struct {
	static bool
	// defaultExcluded: the excluded resources are kube-apiserver's;
	// otherwise they are excluded.
	defaultExcluded bool
	excluded        []schema.GroupResource
}

func newExemptions(o *Options) exemptions {
	if o.ExcludedResources == nil {
		return exemptions{static: o.Static, defaultExcluded: true}
	}
	return exemptions{static: o.Static, excluded: slices.Clone(o.ExcludedResources)}
}

func (e *exemptions) isExcluded(r *Request) bool {
	if e.defaultExcluded {
		return isDefaultExcluded(&r.Resource)
	}
	for i := range e.excluded {
		if e.excluded[i].Resource == r.Resource.Resource && e.excluded[i].Group == r.Resource.Group {
			return true
		}
	}
	return false
}

// isDefaultExcluded reports whether resource is in ExcludedResources().
func isDefaultExcluded(resource *schema.GroupVersionResource) bool {
	return admissionexclusion.IsExcluded(resource.Group, resource.Resource)
}

const admissionRegistrationGroup = "admissionregistration.k8s.io"

// isAdmissionConfigurationKind is kube-apiserver's webhook exemption
// (rules.IsExemptAdmissionConfigurationResource): it looks at the request's
// kind, so it covers every subresource of these objects.
func isAdmissionConfigurationKind(kind *schema.GroupVersionKind) bool {
	if kind.Group != admissionRegistrationGroup {
		return false
	}
	switch kind.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
		"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

// isAdmissionPolicyResource is kube-apiserver's policy exemption: it looks
// at the request's resource (any version and subresource), and does not
// cover webhook configurations.
func isAdmissionPolicyResource(resource *schema.GroupVersionResource) bool {
	if resource.Group != admissionRegistrationGroup {
		return false
	}
	switch resource.Resource {
	case "validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return true
	}
	return false
}
