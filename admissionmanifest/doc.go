// Package admissionmanifest is kube-apiserver 1.37's manifest-based admission
// configuration (KEP-5793, the successor of KEP-1872) and the REST
// validation of admission objects.
//
// # Stable signatures
//
// These signatures are stable; other files of this package build on them:
//
//	func SetDefaults(obj runtime.Object) bool
//	func SetDefaultsValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration)
//	func SetDefaultsMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration)
//	func SetDefaultsValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy)
//	func SetDefaultsValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding)
//	func SetDefaultsMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy)
//	func SetDefaultsMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding)
//
//	const StaticSuffix = ".static.k8s.io"
//	type StaticNamePolicy int // StaticNamesReserved (zero), StaticNamesWarned, StaticNamesAllowed
//	type Options struct {
//		StaticNames StaticNamePolicy
//		Compiler    *matchcond.AdmissionCompiler // nil: built by NewValidator
//	}
//	func NewValidator(o Options) (*Validator, error)
//	// old == nil: create; otherwise an update from old. Errors, then warnings.
//	func (v *Validator) Validate(obj, old runtime.Object) (field.ErrorList, []string)
//	func (v *Validator) ValidateValidatingWebhookConfiguration(obj, old *admissionregistrationv1.ValidatingWebhookConfiguration) (field.ErrorList, []string)
//	func (v *Validator) ValidateMutatingWebhookConfiguration(obj, old *admissionregistrationv1.MutatingWebhookConfiguration) (field.ErrorList, []string)
//	func (v *Validator) ValidateValidatingAdmissionPolicy(obj, old *admissionregistrationv1.ValidatingAdmissionPolicy) (field.ErrorList, []string)
//	func (v *Validator) ValidateValidatingAdmissionPolicyBinding(obj, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (field.ErrorList, []string)
//	var ExcludedResources []schema.GroupResource
//
// The manifest loaders validate as kube-apiserver's do: SetDefaults, then a
// Validator with StaticNames: StaticNamesAllowed, on create (old nil).
//
// # REST validation
//
// A Validator gives, for a v1 object carrying its defaults, the field
// errors that kube-apiserver's REST API returns when the object is created
// or updated (kubernetes/kubernetes pkg/apis/admissionregistration/validation,
// with its field paths, types, messages and order), and the API's warnings.
// The paths are kube-apiserver's even where they are wrong: it swaps the
// service's name and namespace when it validates a webhook's
// clientConfig.service, so a missing name is Required at
// clientConfig.service.namespace and a missing namespace at
// clientConfig.service.name, and gatehouse reports them there too.
// The defaults are those of pkg/apis/admissionregistration/v1/defaults.go,
// which kube-apiserver applies when it decodes the object; k8s.io/api has no
// defaulters, SetDefaults and its relatives are them.
//
// Policies and bindings are validated likewise. A policy's CEL expressions
// are compiled as kube-apiserver's API compiles them (with package
// matchcond): match conditions without `variables`; variables in order, each
// known with its type to the expressions after it (`variables` is declared
// only when the policy has some); validations to bool, message expressions
// to string without `authorizer`, audit annotation values to string or
// null; `params` only with a paramKind.
//
// An update relaxes what kube-apiserver relaxes, so that stored objects stay
// updatable: the match conditions are not validated if every webhook's are
// unchanged (same number of webhooks, equal conditions index by index); the
// side effects Unknown and Some are allowed unless every old webhook had
// None or NoneOnDryRun; an admission review version list without v1 or
// v1beta1 is allowed if an old webhook had one; duplicate webhook names are
// allowed if the old object had some; invalid label values in selectors are
// allowed if an old selector had one; and an expression that the old object
// had is compiled in the environment of stored expressions (which knows
// newer functions) rather than of new ones. A policy's match conditions are
// not validated if they and its paramKind are unchanged; a variable is
// compiled as stored if its expression was one of the old policy's
// validation expressions (kube-apiserver looks it up there).
//
// Names ending with ".static.k8s.io" are reserved for static manifests by
// the REST API: see StaticNamePolicy. A rule that names a virtual resource
// that webhooks are never called for (ExcludedResources) gets a warning.
//
// # Matching
//
// A WebhookMatcher ((*Manifests).WebhookMatcher, or NewWebhookMatcher for
// webhooks from anywhere) answers which webhooks kube-apiserver calls for a
// request, in order, with the kind and resource each is called with: rules
// (operations, groups, versions, resources with subresources and
// wildcards), scope, namespaceSelector through a caller's NamespaceLookup,
// objectSelector on the new or the old object, matchPolicy Equivalent
// through a caller's equivalence mapper, the exemptions (static hooks still
// see admission configuration objects, API hooks do not; excluded virtual
// resources), and match conditions under the webhook's failure policy. The
// request-to-rules matching is internal/admissionmatch, which package
// mutation shares. Explain says, for every webhook, which predicate
// decided. A request with 100 webhooks is matched with one allocation when
// the caller reuses a slice (AppendMatches).
//
// # Not validated here
//
// kube-apiserver's REST API checks, for a policy or binding that is
// otherwise valid, that the requesting user may read the paramKind's
// resource or the parameters referenced (Forbidden on spec.paramKind or
// spec.paramRef): that needs an authorizer and the API's discovery. The
// validation of a policy's status (the status subresource) is not done
// either. MutatingAdmissionPolicy is validated by package mutation.
//
// # Kubernetes versions
//
// Options.Kube validates CEL expressions in the environments and cel-go of
// a Kubernetes version, StaticNamesFor gives its treatment of static names
// (none before 1.36), MatchOptions.Kube matches as it does, and
// ConfigOptions.Kube reads the plugins' configurations as it does
// (staticManifestsDir unknown to 1.35, alpha and off in 1.36). The REST
// rules are each version's: the differential tests (conformance/kubernetes)
// compare with k8s.io/kubernetes v1.35.4, v1.36.3, v1.37.2 and
// v1.38.0-beta.0. What changed between versions is pinned by unit tests too:
//
//   - the stored-expressions environment of 1.37 has the Lists library's
//     includes(), so an expression that an object already had may use it
//     on update (on create, the environment of new expressions, at
//     compatibility version 1.36, still lacks it);
//   - metadata validation is apimachinery v0.37's: owner references are
//     indexed (metadata.ownerReferences[0].apiVersion) and a missing
//     apiVersion, kind, name or uid is Required rather than Invalid;
//   - from 1.37 the registry runs the declarative validation after the
//     strategy's: identical errors are reported once, and a binding's empty
//     policyName and validationActions are its Required errors (no detail),
//     after the others and not on an update that keeps them (1.37's
//     handwritten errors then stand; 1.38 has none); from 1.38 a negative
//     metadata.generation is its error too, after the strategy's;
//   - rules of webhooks that name an excluded virtual resource get 1.37's
//     warning (ExcludeAdmissionWebhookVirtualResources, on by default;
//     with Options.Kube at 1.35 or 1.36, none, as their strategies give
//     none);
//   - the reservation of ".static.k8s.io" (StaticNamesReserved) is 1.37's
//     default; with the feature off, as in 1.36 (StaticNamesWarned), the
//     warning is kube-apiserver's WarningsForStaticSuffix ("metadata.name:
//     names ending with ".static.k8s.io" are reserved for static
//     manifest-based configurations and cannot be managed via the API").
//
// Of 1.38 (k8s.io/apiserver v0.38.0-beta.0), the webhook plugins'
// staticOrder (ConfigOptions.Kube; PluginConfiguration.StaticOrder): 1.38
// checks it as kube-apiserver does, 1.36 and 1.37 refuse it as an unknown
// field, 1.35 ignores it; MergeWebhooks orders static and API mutating
// webhooks by it (StaticFirst, StaticLast, ByName).
//
// # Differences from kube-apiserver
//
//   - The password of a webhook URL. kube-apiserver prints the user
//     information of a clientConfig.url, password included, as the bad value
//     of its "user information is not permitted in the URL" error, and the
//     whole URL in its "url must be a valid URL" error: both end up in API
//     responses, events and logs. gatehouse replaces the password with
//     "xxxxx", as net/url's URL.Redacted does; the decision is the same.
//   - A nil object, which kube-apiserver never validates, is an internal
//     error rather than a panic; so is an object of a type not listed above,
//     or an update from an object of another type.
package admissionmanifest
