package admissionmanifest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Manifests is what one plugin's manifests directory holds, loaded and
// checked: the objects of the plugin's kinds, sorted by name, and the
// content hash. It is immutable: neither the value nor the objects it
// returns may be changed, and it is safe for concurrent use.
type Manifests struct {
	plugin Plugin
	dir    string
	hash   string

	validatingWebhookConfigurations   []*admissionregistrationv1.ValidatingWebhookConfiguration
	mutatingWebhookConfigurations     []*admissionregistrationv1.MutatingWebhookConfiguration
	validatingAdmissionPolicies       []*admissionregistrationv1.ValidatingAdmissionPolicy
	validatingAdmissionPolicyBindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	mutatingAdmissionPolicies         []*admissionregistrationv1.MutatingAdmissionPolicy
	mutatingAdmissionPolicyBindings   []*admissionregistrationv1.MutatingAdmissionPolicyBinding

	webhooks []Webhook
}

// newManifests returns an empty set for a plugin, whose own kinds are
// empty but not nil, as kube-apiserver's loaders return them.
func newManifests(plugin Plugin, dir, hash string) *Manifests {
	m := &Manifests{plugin: plugin, dir: dir, hash: hash}
	switch plugin {
	case ValidatingAdmissionWebhook:
		m.validatingWebhookConfigurations = []*admissionregistrationv1.ValidatingWebhookConfiguration{}
	case MutatingAdmissionWebhook:
		m.mutatingWebhookConfigurations = []*admissionregistrationv1.MutatingWebhookConfiguration{}
	case ValidatingAdmissionPolicy:
		m.validatingAdmissionPolicies = []*admissionregistrationv1.ValidatingAdmissionPolicy{}
		m.validatingAdmissionPolicyBindings = []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	case MutatingAdmissionPolicy:
		m.mutatingAdmissionPolicies = []*admissionregistrationv1.MutatingAdmissionPolicy{}
		m.mutatingAdmissionPolicyBindings = []*admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	}
	return m
}

// Plugin is the plugin whose directory this is.
func (m *Manifests) Plugin() Plugin { return m.plugin }

// Dir is the directory read.
func (m *Manifests) Dir() string { return m.dir }

// Hash is kube-apiserver's content hash of the files read: "sha256:<hex>"
// of each file's content followed by a zero byte, in file order; "" when
// the directory has no file with content.
func (m *Manifests) Hash() string { return m.hash }

// ValidatingWebhookConfigurations are the configurations of a
// ValidatingAdmissionWebhook directory, sorted by name.
func (m *Manifests) ValidatingWebhookConfigurations() []*admissionregistrationv1.ValidatingWebhookConfiguration {
	return m.validatingWebhookConfigurations
}

// MutatingWebhookConfigurations are the configurations of a
// MutatingAdmissionWebhook directory, sorted by name.
func (m *Manifests) MutatingWebhookConfigurations() []*admissionregistrationv1.MutatingWebhookConfiguration {
	return m.mutatingWebhookConfigurations
}

// ValidatingAdmissionPolicies are the policies of a ValidatingAdmissionPolicy
// directory, sorted by name.
func (m *Manifests) ValidatingAdmissionPolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	return m.validatingAdmissionPolicies
}

// ValidatingAdmissionPolicyBindings are the bindings of a
// ValidatingAdmissionPolicy directory, sorted by name.
func (m *Manifests) ValidatingAdmissionPolicyBindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return m.validatingAdmissionPolicyBindings
}

// MutatingAdmissionPolicies are the policies of a MutatingAdmissionPolicy
// directory, sorted by name.
func (m *Manifests) MutatingAdmissionPolicies() []*admissionregistrationv1.MutatingAdmissionPolicy {
	return m.mutatingAdmissionPolicies
}

// MutatingAdmissionPolicyBindings are the bindings of a
// MutatingAdmissionPolicy directory, sorted by name.
func (m *Manifests) MutatingAdmissionPolicyBindings() []*admissionregistrationv1.MutatingAdmissionPolicyBinding {
	return m.mutatingAdmissionPolicyBindings
}

// Webhooks are the webhooks of a webhook directory, configuration by
// configuration in name order, each in its configuration's order: the
// order in which kube-apiserver calls its static webhooks (before those of
// the API).
func (m *Manifests) Webhooks() []Webhook { return m.webhooks }

// Len is the number of objects (configurations, policies and bindings).
func (m *Manifests) Len() int {
	return len(m.validatingWebhookConfigurations) + len(m.mutatingWebhookConfigurations) +
		len(m.validatingAdmissionPolicies) + len(m.validatingAdmissionPolicyBindings) +
		len(m.mutatingAdmissionPolicies) + len(m.mutatingAdmissionPolicyBindings)
}

// Names lists the names of the objects, kind by kind, each sorted.
func (m *Manifests) Names() []string {
	var names []string
	add := func(n string) { names = append(names, n) }
	for _, c := range m.validatingWebhookConfigurations {
		add(c.Name)
	}
	for _, c := range m.mutatingWebhookConfigurations {
		add(c.Name)
	}
	for _, p := range m.validatingAdmissionPolicies {
		add(p.Name)
	}
	for _, b := range m.validatingAdmissionPolicyBindings {
		add(b.Name)
	}
	for _, p := range m.mutatingAdmissionPolicies {
		add(p.Name)
	}
	for _, b := range m.mutatingAdmissionPolicyBindings {
		add(b.Name)
	}
	return names
}

// Webhook is one webhook of a static configuration, as kube-apiserver's
// webhook accessor presents it.
type Webhook struct {
	// UID is "manifest/<configuration>/<webhook>/<n>", n counting the
	// webhooks of the same name before this one in its configuration.
	UID string
	// ConfigurationName is the name of its configuration.
	ConfigurationName string
	// Validating is the webhook of a ValidatingWebhookConfiguration, nil
	// otherwise.
	Validating *admissionregistrationv1.ValidatingWebhook
	// Mutating is the webhook of a MutatingWebhookConfiguration, nil
	// otherwise.
	Mutating *admissionregistrationv1.MutatingWebhook
	// NamespaceSelector and ObjectSelector are the webhook's selectors,
	// parsed (labels.Nothing for a nil selector, as kube-apiserver parses
	// them); nil for a selector that does not parse (see Err).
	NamespaceSelector, ObjectSelector labels.Selector
	// Static is true for a webhook loaded from a static manifests directory
	// (set by the loader): kube-apiserver calls the static webhooks before
	// those registered through the API (the mutating ones as staticOrder
	// says, 1.38: MergeWebhooks), and only the static ones for
	// requests on admission configuration objects (webhook configurations,
	// admission policies and their bindings).
	Static bool
	// Err is the configuration error kube-apiserver reports, as an internal
	// error (500), on each request this webhook's rules match: a
	// namespaceSelector or objectSelector that does not parse ("invalid
	// namespaceSelector: <kube-apiserver's parse error>", the two joined
	// when both fail). kube-apiserver accepts such a configuration through
	// the API and calls no webhook with it; a request whose rules match
	// fails with "Internal error occurred: <parse error>" (the
	// namespaceSelector's only on namespaced requests and namespaces, the
	// objectSelector's on every one), and any other request is not
	// affected. The matchers of this package and of admissionwebhook do the
	// same from the webhook's selectors. A static manifests directory with
	// such a webhook is refused at load (Load, Watch). nil for a webhook
	// whose selectors parse.
	Err error
}

// Name is the webhook's name.
func (w *Webhook) Name() string {
	if w.Validating != nil {
		return w.Validating.Name
	}
	return w.Mutating.Name
}

// sort sorts the objects by name, as the loaders do before returning.
func (m *Manifests) sort() {
	sortByName(m.validatingWebhookConfigurations)
	sortByName(m.mutatingWebhookConfigurations)
	sortByName(m.validatingAdmissionPolicies)
	sortByName(m.validatingAdmissionPolicyBindings)
	sortByName(m.mutatingAdmissionPolicies)
	sortByName(m.mutatingAdmissionPolicyBindings)
}

// sortByName sorts objects whose names are unique (the loaders made sure).
func sortByName[T metav1.Object](objs []T) {
	slices.SortFunc(objs, func(a, b T) int { return strings.Compare(a.GetName(), b.GetName()) })
}

// checkBindingReferences checks, after all files, that every binding names
// a policy of the directory; the first binding loaded that does not is the
// error.
func (m *Manifests) checkBindingReferences() error {
	switch m.plugin {
	case ValidatingAdmissionPolicy:
		return bindingReferences(m.validatingAdmissionPolicies, m.validatingAdmissionPolicyBindings,
			func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
	case MutatingAdmissionPolicy:
		return bindingReferences(m.mutatingAdmissionPolicies, m.mutatingAdmissionPolicyBindings,
			func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
	}
	return nil
}

func bindingReferences[P, B metav1.Object](policies []P, bindings []B, policyName func(B) string) error {
	names := make(map[string]struct{}, len(policies))
	for _, p := range policies {
		names[p.GetName()] = struct{}{}
	}
	for _, b := range bindings {
		if _, ok := names[policyName(b)]; !ok {
			return errBindingReference(b.GetName(), policyName(b))
		}
	}
	return nil
}

// prepare is kube-apiserver's second stage, in its manifest source rather
// than its loader: the webhooks' accessors, whose selectors are parsed, all
// errors joined.
// The static loader refuses a webhook whose selectors do not parse, all
// such errors joined, each prefixed with the webhook's name.
func (m *Manifests) prepare() error {
	var errs []error
	m.webhooks, errs = webhooksOf(m.validatingWebhookConfigurations, m.mutatingWebhookConfigurations, "manifest/")
	for i := range m.webhooks {
		m.webhooks[i].Static = true
	}
	return errors.Join(errs...)
}

// WebhooksOf returns the webhooks of webhook configurations registered
// through the API, as kube-apiserver's webhook sources hold them: the
// configurations sorted by name, each one's webhooks in order, with their
// UIDs ("<configuration>/<webhook>/<n>") and parsed selectors. A webhook
// whose selectors do not parse is returned with its Err, as kube-apiserver
// accepts it and fails only the requests its rules match. The
// configurations must carry their defaults (SetDefaults) and not change
// afterwards.
func WebhooksOf(validating []*admissionregistrationv1.ValidatingWebhookConfiguration, mutating []*admissionregistrationv1.MutatingWebhookConfiguration) []Webhook {
	validating, mutating = slices.Clone(validating), slices.Clone(mutating)
	sortByName(validating)
	sortByName(mutating)
	hooks, _ := webhooksOf(validating, mutating, "")
	return hooks
}

// MergeWebhooks joins the webhooks of a plugin's static manifests and those
// registered through the API (each as WebhooksOf or the loader orders them)
// as kube-apiserver 1.38's webhook plugins do: the validating ones static
// first (ValidatingAdmissionWebhook takes no other order); the mutating ones
// by order (MutatingAdmissionWebhook's staticOrder; "" is StaticFirst): the
// static ones before the API ones (StaticFirst), after them (StaticLast), or
// the two sources' configurations stably sorted together by configuration
// name, each one's webhooks kept in order (ByName). An order that is not
// Valid is StaticFirst. Static is left as it is.
func MergeWebhooks(static, api []Webhook, order StaticOrder) []Webhook {
	out := make([]Webhook, 0, len(static)+len(api))
	var staticMutating, apiMutating []Webhook
	for _, w := range static {
		if w.Mutating != nil {
			staticMutating = append(staticMutating, w)
		} else {
			out = append(out, w)
		}
	}
	for _, w := range api {
		if w.Mutating != nil {
			apiMutating = append(apiMutating, w)
		} else {
			out = append(out, w)
		}
	}
	n := len(out)
	switch order {
	case StaticLast:
		out = append(append(out, apiMutating...), staticMutating...)
	case ByName:
		out = append(append(out, staticMutating...), apiMutating...)
		slices.SortStableFunc(out[n:], func(a, b Webhook) int { return strings.Compare(a.ConfigurationName, b.ConfigurationName) })
	default:
		out = append(append(out, staticMutating...), apiMutating...)
	}
	return out
}

// webhooksOf builds the webhooks of configurations, their UIDs prefixed;
// errs are the selectors that do not parse, named after their webhooks.
func webhooksOf(validating []*admissionregistrationv1.ValidatingWebhookConfiguration, mutating []*admissionregistrationv1.MutatingWebhookConfiguration, uidPrefix string) (out []Webhook, errs []error) {
	add := func(w Webhook, ns, obj *metav1.LabelSelector) {
		var err, nsErr, objErr error
		if w.NamespaceSelector, err = metav1.LabelSelectorAsSelector(ns); err != nil {
			nsErr = fmt.Errorf("invalid namespaceSelector: %w", err)
			errs = append(errs, fmt.Errorf("webhook %q: %w", w.Name(), nsErr))
		}
		if w.ObjectSelector, err = metav1.LabelSelectorAsSelector(obj); err != nil {
			objErr = fmt.Errorf("invalid objectSelector: %w", err)
			errs = append(errs, fmt.Errorf("webhook %q: %w", w.Name(), objErr))
		}
		w.Err = errors.Join(nsErr, objErr)
		out = append(out, w)
	}
	for _, c := range validating {
		seen := map[string]int{}
		for i := range c.Webhooks {
			h := &c.Webhooks[i]
			add(Webhook{UID: uidPrefix + webhookUID(c.Name, h.Name, seen), ConfigurationName: c.Name, Validating: h}, h.NamespaceSelector, h.ObjectSelector)
		}
	}
	for _, c := range mutating {
		seen := map[string]int{}
		for i := range c.Webhooks {
			h := &c.Webhooks[i]
			add(Webhook{UID: uidPrefix + webhookUID(c.Name, h.Name, seen), ConfigurationName: c.Name, Mutating: h}, h.NamespaceSelector, h.ObjectSelector)
		}
	}
	return out, errs
}

func webhookUID(configuration, webhook string, seen map[string]int) string {
	n := seen[webhook]
	seen[webhook] = n + 1
	return fmt.Sprintf("%s/%s/%d", configuration, webhook, n)
}
