package apiserver

import (
	"errors"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// FromKubeAttributes converts k8s.io/apiserver's attributes of a request to
// gatehouse's. A nil a gives nil. See the package documentation for the
// selectors.
func FromKubeAttributes(a kauthorizer.Attributes) *authorizer.Attributes {
	if a == nil {
		return nil
	}
	if ka, ok := a.(kubeAttributes); ok {
		return ka.a
	}
	c := new(convertedAttributes)
	fromKube(a, c)
	return &c.Attributes
}

// convertedAttributes holds the attributes and the user in one allocation.
type convertedAttributes struct {
	authorizer.Attributes
	user authorizer.User
}

// reset clears c for reuse, keeping the capacity of its selector slices.
func (c *convertedAttributes) reset() {
	fieldSelector, labelSelector := c.FieldSelector[:0], c.LabelSelector[:0]
	clear(fieldSelector[:cap(fieldSelector)])
	clear(labelSelector[:cap(labelSelector)])
	*c = convertedAttributes{}
	c.FieldSelector, c.LabelSelector = fieldSelector, labelSelector
}

func fromKube(a kauthorizer.Attributes, c *convertedAttributes) {
	out := &c.Attributes
	// The selector slices of a reused c keep their capacity; nil when
	// there is no requirement, as in attributes converted anew.
	fieldSelector, labelSelector := c.FieldSelector[:0], c.LabelSelector[:0]
	// k8s.io/apiserver's filter passes a *AttributesRecord: its fields are
	// read directly rather than through a dozen method calls.
	var u user.Info
	var fieldReqs fields.Requirements
	var labelReqs labels.Requirements
	switch rec := a.(type) {
	case *kauthorizer.AttributesRecord:
		u, fieldReqs, labelReqs = rec.User, rec.FieldSelectorRequirements, rec.LabelSelectorRequirements
		*out = authorizer.Attributes{Verb: rec.Verb, ResourceRequest: rec.ResourceRequest, Namespace: rec.Namespace,
			APIGroup: rec.APIGroup, APIVersion: rec.APIVersion, Resource: rec.Resource, Subresource: rec.Subresource,
			Name: rec.Name, Path: rec.Path}
	default:
		u = a.GetUser()
		*out = authorizer.Attributes{Verb: a.GetVerb(), ResourceRequest: a.IsResourceRequest(), Namespace: a.GetNamespace(),
			APIGroup: a.GetAPIGroup(), APIVersion: a.GetAPIVersion(), Resource: a.GetResource(), Subresource: a.GetSubresource(),
			Name: a.GetName(), Path: a.GetPath()}
		// As k8s.io/apiserver's webhook authorizer does, keep the
		// requirements even if parsing also failed.
		fieldReqs, _ = a.GetFieldSelector()
		labelReqs, _ = a.GetLabelSelector()
	}
	switch info := u.(type) {
	case nil:
	case *user.DefaultInfo:
		if info != nil {
			c.user = authorizer.User{Name: info.Name, UID: info.UID, Groups: info.Groups, Extra: info.Extra}
			out.User = &c.user
		}
	default:
		c.user = authorizer.User{Name: info.GetName(), UID: info.GetUID(), Groups: info.GetGroups(), Extra: info.GetExtra()}
		out.User = &c.user
	}
	if len(fieldReqs) > 0 {
		for _, r := range fieldReqs {
			fieldSelector = append(fieldSelector, authorizer.FieldRequirement{Field: r.Field, Operator: r.Operator, Value: r.Value})
		}
		out.FieldSelector = fieldSelector
	}
	if len(labelReqs) > 0 {
		for i := range labelReqs {
			r := &labelReqs[i]
			var values []string
			if vs := r.ValuesUnsorted(); len(vs) > 0 {
				values = vs
			}
			labelSelector = append(labelSelector, authorizer.LabelRequirement{Key: r.Key(), Operator: r.Operator(), Values: values})
		}
		out.LabelSelector = labelSelector
	}
}

// ToKubeAttributes converts gatehouse's attributes of a request to
// k8s.io/apiserver's. A nil a gives attributes without user. See the package
// documentation for the selectors.
func ToKubeAttributes(a *authorizer.Attributes) kauthorizer.AttributesRecord {
	if a == nil {
		return kauthorizer.AttributesRecord{}
	}
	rec := kauthorizer.AttributesRecord{
		Verb:            a.Verb,
		Namespace:       a.Namespace,
		APIGroup:        a.APIGroup,
		APIVersion:      a.APIVersion,
		Resource:        a.Resource,
		Subresource:     a.Subresource,
		Name:            a.Name,
		ResourceRequest: a.ResourceRequest,
		Path:            a.Path,
	}
	if a.User != nil {
		rec.User = &user.DefaultInfo{Name: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra}
	}
	rec.FieldSelectorRequirements = kubeFieldRequirements(a.FieldSelector)
	rec.LabelSelectorRequirements, rec.LabelSelectorParsingErr = kubeLabelRequirements(a.LabelSelector)
	return rec
}

func kubeFieldRequirements(reqs []authorizer.FieldRequirement) fields.Requirements {
	if len(reqs) == 0 {
		return nil
	}
	out := make(fields.Requirements, len(reqs))
	for i, r := range reqs {
		out[i] = fields.Requirement{Operator: r.Operator, Field: r.Field, Value: r.Value}
	}
	return out
}

// kubeLabelRequirements keeps every requirement: labels.NewRequirement
// builds the requirement as given and reports separately what it finds
// wrong with it.
func kubeLabelRequirements(reqs []authorizer.LabelRequirement) (labels.Requirements, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	out := make(labels.Requirements, len(reqs))
	var errs []error
	for i, r := range reqs {
		req, err := labels.NewRequirement(r.Key, r.Operator, r.Values)
		if err != nil {
			errs = append(errs, err)
		}
		if req == nil {
			// Not so in apimachinery v0.37; kept as a safeguard.
			return out[:i], errors.Join(errs...)
		}
		out[i] = *req
	}
	return out, errors.Join(errs...)
}

// kubeAttributes presents gatehouse's attributes as k8s.io/apiserver's
// without copying them; the selectors are converted when asked for. A
// struct of one pointer, it fits in an interface without an allocation.
type kubeAttributes struct {
	a *authorizer.Attributes
}

var _ kauthorizer.Attributes = kubeAttributes{}

func (k kubeAttributes) GetUser() user.Info {
	if k.a.User == nil {
		return nil
	}
	return (*kubeUser)(k.a.User)
}
func (k kubeAttributes) GetVerb() string { return k.a.Verb }
func (k kubeAttributes) IsReadOnly() bool {
	return k.a.Verb == "get" || k.a.Verb == "list" || k.a.Verb == "watch"
}
func (k kubeAttributes) GetNamespace() string    { return k.a.Namespace }
func (k kubeAttributes) GetResource() string     { return k.a.Resource }
func (k kubeAttributes) GetSubresource() string  { return k.a.Subresource }
func (k kubeAttributes) GetName() string         { return k.a.Name }
func (k kubeAttributes) GetAPIGroup() string     { return k.a.APIGroup }
func (k kubeAttributes) GetAPIVersion() string   { return k.a.APIVersion }
func (k kubeAttributes) IsResourceRequest() bool { return k.a.ResourceRequest }
func (k kubeAttributes) GetPath() string         { return k.a.Path }
func (k kubeAttributes) GetFieldSelector() (fields.Requirements, error) {
	return kubeFieldRequirements(k.a.FieldSelector), nil
}
func (k kubeAttributes) GetLabelSelector() (labels.Requirements, error) {
	return kubeLabelRequirements(k.a.LabelSelector)
}

// kubeUser presents gatehouse's user as a user.Info.
type kubeUser authorizer.User

func (u *kubeUser) GetName() string               { return u.Name }
func (u *kubeUser) GetUID() string                { return u.UID }
func (u *kubeUser) GetGroups() []string           { return u.Groups }
func (u *kubeUser) GetExtra() map[string][]string { return u.Extra }
