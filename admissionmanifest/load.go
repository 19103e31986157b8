package admissionmanifest

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Plugin names one of the four admission plugins that read a manifests
// directory; it is also the plugin label of the reload metrics.
type Plugin string

// The plugins that read static manifests.
const (
	ValidatingAdmissionWebhook Plugin = "ValidatingAdmissionWebhook"
	MutatingAdmissionWebhook   Plugin = "MutatingAdmissionWebhook"
	ValidatingAdmissionPolicy  Plugin = "ValidatingAdmissionPolicy"
	MutatingAdmissionPolicy    Plugin = "MutatingAdmissionPolicy"
)

// Plugins lists the four plugins, in kube-apiserver's order.
func Plugins() []Plugin {
	return []Plugin{ValidatingAdmissionWebhook, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, MutatingAdmissionPolicy}
}

func (p Plugin) webhooks() bool {
	return p == ValidatingAdmissionWebhook || p == MutatingAdmissionWebhook
}

func (p Plugin) known() bool { return slices.Contains(Plugins(), p) }

// LoadOptions configure a load.
type LoadOptions struct {
	// Files is the file system; the zero value reads the operating system's.
	Files Files
	// Validator validates each object as the REST API does on create, with
	// static names allowed. Nil builds one for the load, which costs about
	// a millisecond when a webhook has match conditions: a caller that
	// loads often should build one with NewValidator(Options{StaticNames:
	// StaticNamesAllowed}) and pass it every time.
	Validator *Validator
}

// Load reads a plugin's manifests directory as kube-apiserver does when it
// starts, and returns its objects and content hash, or the error that
// would stop kube-apiserver, text for text (without the plugin's
// "failed to load static ... manifests from" prefix: see StartupError).
//
// For the webhook plugins:
//  1. the files of the directory (readManifests): only .yaml, .yml and
//     .json files directly in it, in name order, empty ones skipped, each
//     split into YAML documents;
//  2. each document decoded strictly (unknown and duplicate fields are
//     errors) as an admissionregistration.k8s.io object of any version or a
//     v1 List (whose items are decoded the same way, recursively; "failed
//     to decode list item: ..."); only the plugin's v1 kind and its typed
//     list are accepted ("unsupported resource type *v1beta1.Validating...");
//  3. each configuration defaulted and validated as the REST API does on
//     create ("ValidatingWebhookConfiguration \"x\": [errors]"), with static
//     names allowed; the loaded object carries its defaults and no
//     apiVersion and kind, as kube-apiserver's conversion round trip leaves
//     it;
//  4. each name must end with ".static.k8s.io" and be unique in the
//     directory, and each webhook must have a clientConfig.url and no
//     clientConfig.service;
//  5. every error is wrapped as "error loading <file>: ..." and fails the
//     whole load;
//  6. the configurations are sorted by name, and each webhook gets its
//     accessor (see Webhook), whose selectors are parsed: all selector
//     errors are joined, one per line.
//
// The policy plugins read their directories the same way, accepting the
// plugin's v1 policies and bindings and their typed lists; names are unique
// per kind; a policy may not have paramKind, a binding must name a static
// policy of the directory and may not have paramRef. MutatingAdmissionPolicy
// objects are validated by package mutation's Validator.
//
// Documents in the plain subset of YAML in which manifests are usually
// written are decoded by a fast path (one conversion to JSON, one strict
// unmarshalling), everything else and every error by apimachinery's
// decoder, as in kube-apiserver; FuzzFastDecode and the differential tests
// in conformance check that the two agree.
//
// Differences from kube-apiserver's loaders, all on input kube-apiserver
// refuses too:
//   - a document of the internal version (apiVersion
//     admissionregistration.k8s.io/__internal) is decoded by kube-apiserver
//     into its internal types, which only it has, and refused as
//     "unsupported resource type *admissionregistration.<Kind>" (or a
//     strict-decoding error); here it is a kind not registered;
//   - "no kind ... is registered" errors name the scheme
//     "pkg/runtime/scheme.go:111", as kube-apiserver's loaders do when built
//     from the module cache (a kube-apiserver built from the kubernetes tree
//     names its loader's source file instead).
func Load(plugin Plugin, dir string, opts LoadOptions) (*Manifests, error) {
	m, err := load(plugin, dir, &opts)
	if err != nil {
		return nil, err
	}
	if err := m.prepare(); err != nil {
		return nil, err
	}
	return m, nil
}

// StartupError words a load error as kube-apiserver's plugin reports it
// when it starts: "failed to load static webhook manifests from \"<dir>\":
// <err>" ("policy" for the policy plugins).
func StartupError(plugin Plugin, dir string, err error) error {
	what := "policy"
	if plugin.webhooks() {
		what = "webhook"
	}
	return fmt.Errorf("failed to load static %s manifests from %q: %w", what, dir, err)
}

// load is kube-apiserver's loader: everything up to the sorted objects and
// the hash, without the accessors.
func load(plugin Plugin, dir string, opts *LoadOptions) (*Manifests, error) {
	if !plugin.known() {
		return nil, fmt.Errorf("unknown admission plugin %q", plugin)
	}
	docs, hash, err := readManifests(dir, &opts.Files)
	if err != nil {
		return nil, err
	}
	l := &loader{plugin: plugin, validator: opts.Validator, seen: map[string]string{}, seenBindings: map[string]string{}}
	l.m = newManifests(plugin, dir, hash)
	for _, d := range docs {
		obj, err := decodeDocument(d.data)
		if err == nil {
			err = l.accept(obj, d.file)
		}
		if err != nil {
			return nil, fmt.Errorf("error loading %s: %w", d.file, err)
		}
	}
	if err := l.m.checkBindingReferences(); err != nil {
		return nil, err
	}
	l.m.sort()
	return l.m, nil
}

// loader is the state of one load.
type loader struct {
	plugin    Plugin
	validator *Validator
	// seen maps the names of the configurations or policies loaded so far
	// to their files; seenBindings those of the bindings.
	seen, seenBindings map[string]string
	m                  *Manifests
}

// accept takes one decoded object of a file.
func (l *loader) accept(obj runtime.Object, file string) error {
	if list, ok := obj.(*metav1.List); ok {
		for _, raw := range list.Items {
			item, err := decodeDocument(raw.Raw)
			if err != nil {
				return fmt.Errorf("failed to decode list item: %w", err)
			}
			if err := l.accept(item, file); err != nil {
				return err
			}
		}
		return nil
	}
	switch l.plugin {
	case ValidatingAdmissionWebhook:
		return l.acceptValidatingWebhooks(obj, file)
	case MutatingAdmissionWebhook:
		return l.acceptMutatingWebhooks(obj, file)
	case ValidatingAdmissionPolicy:
		return l.acceptValidatingPolicies(obj, file)
	default:
		return l.acceptMutatingPolicies(obj, file)
	}
}

func unsupported(obj runtime.Object) error {
	return fmt.Errorf("unsupported resource type %T", obj)
}

func (l *loader) acceptValidatingWebhooks(obj runtime.Object, file string) error {
	var items []*admissionregistrationv1.ValidatingWebhookConfiguration
	switch c := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		items = []*admissionregistrationv1.ValidatingWebhookConfiguration{c}
	case *admissionregistrationv1.ValidatingWebhookConfigurationList:
		items = pointers(c.Items)
	default:
		return unsupported(obj)
	}
	for _, c := range items {
		if err := l.defaultAndValidateValidatingWebhookConfiguration(c); err != nil {
			return err
		}
	}
	for _, c := range items {
		if err := checkName(c.Name, file, l.seen); err != nil {
			return err
		}
		for i := range c.Webhooks {
			if err := checkClientConfig(c.Webhooks[i].Name, c.Name, file, &c.Webhooks[i].ClientConfig); err != nil {
				return err
			}
		}
	}
	l.m.validatingWebhookConfigurations = append(l.m.validatingWebhookConfigurations, items...)
	return nil
}

func (l *loader) acceptMutatingWebhooks(obj runtime.Object, file string) error {
	var items []*admissionregistrationv1.MutatingWebhookConfiguration
	switch c := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		items = []*admissionregistrationv1.MutatingWebhookConfiguration{c}
	case *admissionregistrationv1.MutatingWebhookConfigurationList:
		items = pointers(c.Items)
	default:
		return unsupported(obj)
	}
	for _, c := range items {
		if err := l.defaultAndValidateMutatingWebhookConfiguration(c); err != nil {
			return err
		}
	}
	for _, c := range items {
		if err := checkName(c.Name, file, l.seen); err != nil {
			return err
		}
		for i := range c.Webhooks {
			if err := checkClientConfig(c.Webhooks[i].Name, c.Name, file, &c.Webhooks[i].ClientConfig); err != nil {
				return err
			}
		}
	}
	l.m.mutatingWebhookConfigurations = append(l.m.mutatingWebhookConfigurations, items...)
	return nil
}

func (l *loader) acceptValidatingPolicies(obj runtime.Object, file string) error {
	switch c := obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList:
		var items []*admissionregistrationv1.ValidatingAdmissionPolicy
		if p, ok := c.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok {
			items = []*admissionregistrationv1.ValidatingAdmissionPolicy{p}
		} else {
			items = pointers(c.(*admissionregistrationv1.ValidatingAdmissionPolicyList).Items)
		}
		for _, p := range items {
			if err := l.defaultAndValidateValidatingAdmissionPolicy(p); err != nil {
				return err
			}
		}
		for _, p := range items {
			if err := checkName(p.Name, file, l.seen); err != nil {
				return err
			}
			if p.Spec.ParamKind != nil {
				return fmt.Errorf("ValidatingAdmissionPolicy %q: spec.paramKind is not supported for static manifests", p.Name)
			}
		}
		l.m.validatingAdmissionPolicies = append(l.m.validatingAdmissionPolicies, items...)
		return nil
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList:
		var items []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if b, ok := c.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding); ok {
			items = []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{b}
		} else {
			items = pointers(c.(*admissionregistrationv1.ValidatingAdmissionPolicyBindingList).Items)
		}
		for _, b := range items {
			if err := l.defaultAndValidateValidatingAdmissionPolicyBinding(b); err != nil {
				return err
			}
		}
		for _, b := range items {
			if err := checkName(b.Name, file, l.seenBindings); err != nil {
				return err
			}
			if err := checkBinding(b.Name, b.Spec.PolicyName, b.Spec.ParamRef != nil); err != nil {
				return err
			}
		}
		l.m.validatingAdmissionPolicyBindings = append(l.m.validatingAdmissionPolicyBindings, items...)
		return nil
	}
	return unsupported(obj)
}

func (l *loader) acceptMutatingPolicies(obj runtime.Object, file string) error {
	switch c := obj.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyList:
		var items []*admissionregistrationv1.MutatingAdmissionPolicy
		if p, ok := c.(*admissionregistrationv1.MutatingAdmissionPolicy); ok {
			items = []*admissionregistrationv1.MutatingAdmissionPolicy{p}
		} else {
			items = pointers(c.(*admissionregistrationv1.MutatingAdmissionPolicyList).Items)
		}
		for _, p := range items {
			if err := l.defaultAndValidateMutatingAdmissionPolicy(p); err != nil {
				return err
			}
		}
		for _, p := range items {
			if err := checkName(p.Name, file, l.seen); err != nil {
				return err
			}
			if p.Spec.ParamKind != nil {
				return fmt.Errorf("MutatingAdmissionPolicy %q: spec.paramKind is not supported for static manifests", p.Name)
			}
		}
		l.m.mutatingAdmissionPolicies = append(l.m.mutatingAdmissionPolicies, items...)
		return nil
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding, *admissionregistrationv1.MutatingAdmissionPolicyBindingList:
		var items []*admissionregistrationv1.MutatingAdmissionPolicyBinding
		if b, ok := c.(*admissionregistrationv1.MutatingAdmissionPolicyBinding); ok {
			items = []*admissionregistrationv1.MutatingAdmissionPolicyBinding{b}
		} else {
			items = pointers(c.(*admissionregistrationv1.MutatingAdmissionPolicyBindingList).Items)
		}
		for _, b := range items {
			if err := l.defaultAndValidateMutatingAdmissionPolicyBinding(b); err != nil {
				return err
			}
		}
		for _, b := range items {
			if err := checkName(b.Name, file, l.seenBindings); err != nil {
				return err
			}
			if err := checkBinding(b.Name, b.Spec.PolicyName, b.Spec.ParamRef != nil); err != nil {
				return err
			}
		}
		l.m.mutatingAdmissionPolicyBindings = append(l.m.mutatingAdmissionPolicyBindings, items...)
		return nil
	}
	return unsupported(obj)
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// checkName is kube-apiserver's ValidateManifestName: a name, ending with
// the static suffix, not seen before in the directory (for this kind).
func checkName(name, file string, seen map[string]string) error {
	if name == "" {
		return fmt.Errorf("resource in file %q must have a name", file)
	}
	if !strings.HasSuffix(name, StaticSuffix) {
		return fmt.Errorf("%q in file %q must have a name ending with %q", name, file, StaticSuffix)
	}
	if prev, ok := seen[name]; ok {
		return fmt.Errorf("duplicate name %q found in file %q (previously seen in %q)", name, file, prev)
	}
	seen[name] = file
	return nil
}

// checkClientConfig: a static webhook is called by URL only.
func checkClientConfig(webhook, configuration, file string, cc *admissionregistrationv1.WebhookClientConfig) error {
	if cc.Service != nil {
		return fmt.Errorf("webhook %q in %q (file %q): clientConfig.service is not supported for static manifests; use clientConfig.url instead", webhook, configuration, file)
	}
	if cc.URL == nil || *cc.URL == "" {
		return fmt.Errorf("webhook %q in %q (file %q): clientConfig.url is required for static manifests", webhook, configuration, file)
	}
	return nil
}

// checkBinding: a static binding names a static policy and has no params.
func checkBinding(binding, policy string, hasParamRef bool) error {
	if policy == "" {
		return fmt.Errorf("binding %q must reference a policy (spec.policyName)", binding)
	}
	if !strings.HasSuffix(policy, StaticSuffix) {
		return fmt.Errorf("binding %q: spec.policyName %q must end with %q", binding, policy, StaticSuffix)
	}
	if hasParamRef {
		return fmt.Errorf("binding %q: spec.paramRef is not supported for static manifests", binding)
	}
	return nil
}

// errBindingReference is the error of a binding whose policy is not in the
// directory.
func errBindingReference(binding, policy string) error {
	return fmt.Errorf("binding %q references policy %q which does not exist in the manifest directory", binding, policy)
}
