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
//	var ExcludedResources []schema.GroupResource
//	// Next on branch admval, same shape:
//	func (v *Validator) ValidateValidatingAdmissionPolicy(obj, old *admissionregistrationv1.ValidatingAdmissionPolicy) (field.ErrorList, []string)
//	func (v *Validator) ValidateValidatingAdmissionPolicyBinding(obj, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (field.ErrorList, []string)
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
// The defaults are those of pkg/apis/admissionregistration/v1/defaults.go,
// which kube-apiserver applies when it decodes the object; k8s.io/api has no
// defaulters, SetDefaults and its relatives are them.
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
// newer functions) rather than of new ones.
//
// Names ending with ".static.k8s.io" are reserved for static manifests by
// the REST API: see StaticNamePolicy. A rule that names a virtual resource
// that webhooks are never called for (ExcludedResources) gets a warning.
//
// # Differences from kube-apiserver
//
//   - The password of a webhook URL. kube-apiserver prints the user
//     information of a clientConfig.url, password included, as the bad value
//     of its "user information is not permitted in the URL" error, and the
//     whole URL in its "url must be a valid URL" error: both end up in API
//     responses, events and logs. gatehouse replaces the password with
//     "xxxxx", as net/url's URL.Redacted does; the decision is the same.
package admissionmanifest
