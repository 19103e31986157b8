package admissionmanifest

import (
	"errors"
	"reflect"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// ValidateValidatingWebhookConfiguration validates a
// ValidatingWebhookConfiguration as kube-apiserver's REST API does: on
// create when old is nil, else on update from old, with the relaxations of
// an update (see the package documentation). It returns the field errors,
// in kube-apiserver's order, and the warnings of the API.
func (v *Validator) ValidateValidatingWebhookConfiguration(obj, old *admissionregistrationv1.ValidatingWebhookConfiguration) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	hooks := make([]webhook, len(obj.Webhooks))
	for i := range obj.Webhooks {
		hooks[i] = validatingWebhook(&obj.Webhooks[i])
	}
	var oldHooks []webhook
	if old != nil {
		oldHooks = make([]webhook, len(old.Webhooks))
		for i := range old.Webhooks {
			oldHooks[i] = validatingWebhook(&old.Webhooks[i])
		}
	}
	return v.validateWebhookConfiguration(&obj.ObjectMeta, hooks, oldHooks, objectMetaOf(old))
}

// ValidateMutatingWebhookConfiguration validates a
// MutatingWebhookConfiguration as kube-apiserver's REST API does: on create
// when old is nil, else on update from old. See
// ValidateValidatingWebhookConfiguration.
func (v *Validator) ValidateMutatingWebhookConfiguration(obj, old *admissionregistrationv1.MutatingWebhookConfiguration) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	hooks := make([]webhook, len(obj.Webhooks))
	for i := range obj.Webhooks {
		hooks[i] = mutatingWebhook(&obj.Webhooks[i])
	}
	var oldHooks []webhook
	if old != nil {
		oldHooks = make([]webhook, len(old.Webhooks))
		for i := range old.Webhooks {
			oldHooks[i] = mutatingWebhook(&old.Webhooks[i])
		}
	}
	return v.validateWebhookConfiguration(&obj.ObjectMeta, hooks, oldHooks, objectMetaOf(old))
}

// webhook is the part of a validating or mutating webhook that validation
// reads.
type webhook struct {
	name                    string
	clientConfig            *admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
	mutating                bool
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
}

func validatingWebhook(h *admissionregistrationv1.ValidatingWebhook) webhook {
	return webhook{
		name:                    h.Name,
		clientConfig:            &h.ClientConfig,
		rules:                   h.Rules,
		failurePolicy:           h.FailurePolicy,
		matchPolicy:             h.MatchPolicy,
		namespaceSelector:       h.NamespaceSelector,
		objectSelector:          h.ObjectSelector,
		sideEffects:             h.SideEffects,
		timeoutSeconds:          h.TimeoutSeconds,
		admissionReviewVersions: h.AdmissionReviewVersions,
		matchConditions:         h.MatchConditions,
	}
}

func mutatingWebhook(h *admissionregistrationv1.MutatingWebhook) webhook {
	return webhook{
		name:                    h.Name,
		clientConfig:            &h.ClientConfig,
		rules:                   h.Rules,
		failurePolicy:           h.FailurePolicy,
		matchPolicy:             h.MatchPolicy,
		namespaceSelector:       h.NamespaceSelector,
		objectSelector:          h.ObjectSelector,
		sideEffects:             h.SideEffects,
		timeoutSeconds:          h.TimeoutSeconds,
		admissionReviewVersions: h.AdmissionReviewVersions,
		matchConditions:         h.MatchConditions,
		mutating:                true,
		reinvocationPolicy:      h.ReinvocationPolicy,
	}
}

// webhookOptions are what an update relaxes.
type webhookOptions struct {
	ignoreMatchConditions            bool
	requireNoSideEffects             bool
	requireRecognizedReviewVersion   bool
	requireUniqueNames               bool
	allowInvalidLabelValueInSelector bool
	preexisting                      []string // match condition expressions
}

// createWebhookOptions are the options of a create.
var createWebhookOptions = webhookOptions{
	requireNoSideEffects:           true,
	requireRecognizedReviewVersion: true,
	requireUniqueNames:             true,
}

// updateWebhookOptions are the options of an update from old to hooks.
func updateWebhookOptions(hooks, old []webhook) webhookOptions {
	o := webhookOptions{
		ignoreMatchConditions:          len(hooks) == len(old),
		requireNoSideEffects:           true,
		requireRecognizedReviewVersion: true,
		requireUniqueNames:             true,
	}
	names := map[string]bool{}
	strict := metav1validation.LabelSelectorValidationOptions{}
	for i, h := range old {
		if o.ignoreMatchConditions && !reflect.DeepEqual(hooks[i].matchConditions, h.matchConditions) {
			o.ignoreMatchConditions = false
		}
		if h.sideEffects == nil || !isNoSideEffects(*h.sideEffects) {
			o.requireNoSideEffects = false
		}
		if len(h.admissionReviewVersions) > 0 && !hasRecognizedReviewVersion(h.admissionReviewVersions) {
			o.requireRecognizedReviewVersion = false
		}
		if names[h.name] {
			o.requireUniqueNames = false
		}
		names[h.name] = true
		for _, sel := range []*metav1.LabelSelector{h.namespaceSelector, h.objectSelector} {
			if sel != nil && len(metav1validation.ValidateLabelSelector(sel, strict, nil)) > 0 {
				o.allowInvalidLabelValueInSelector = true
			}
		}
		for _, mc := range h.matchConditions {
			o.preexisting = append(o.preexisting, mc.Expression)
		}
	}
	return o
}

func (v *Validator) validateWebhookConfiguration(meta *metav1.ObjectMeta, hooks, old []webhook, oldMeta *metav1.ObjectMeta) (field.ErrorList, []string) {
	update := oldMeta != nil
	opts := createWebhookOptions
	if update {
		opts = updateWebhookOptions(hooks, old)
	}
	errs := genericvalidation.ValidateObjectMeta(meta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	webhooksPath := field.NewPath("webhooks")
	names := map[string]bool{}
	for i := range hooks {
		h := &hooks[i]
		path := webhooksPath.Index(i)
		errs = append(errs, v.validateWebhook(h, &opts, path)...)
		errs = append(errs, validateAdmissionReviewVersions(h.admissionReviewVersions, opts.requireRecognizedReviewVersion, path.Child("admissionReviewVersions"))...)
		if opts.requireUniqueNames && h.name != "" {
			if names[h.name] {
				errs = append(errs, field.Duplicate(path.Child("name"), h.name))
			}
			names[h.name] = true
		}
	}
	errs, warnings := v.staticName(meta.Name, errs, update, update && oldMeta.Generation == meta.Generation)
	// The strategies warn of excluded resources behind the gate that
	// excludes them (1.37); 1.36's warn of none.
	if kubeversions.Has(v.opts.Kube, kubeversions.WebhooksExcludeVirtualResources) {
		warnings = append(warnings, warningsForExcludedResources(hooks)...)
	}
	return errs, warnings
}

func (v *Validator) validateWebhook(h *webhook, opts *webhookOptions, path *field.Path) field.ErrorList {
	errs := utilvalidation.IsFullyQualifiedName(path.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, admissionvalidation.RuleWithOperations(&h.rules[i], path.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !oneOf(*h.failurePolicy, admissionvalidation.FailurePolicies) {
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), *h.failurePolicy, admissionvalidation.FailurePolicies))
	}
	if h.matchPolicy != nil && !oneOf(*h.matchPolicy, admissionvalidation.MatchPolicies) {
		errs = append(errs, field.NotSupported(path.Child("matchPolicy"), *h.matchPolicy, admissionvalidation.MatchPolicies))
	}
	allowedSideEffects := allSideEffectClasses
	if opts.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	if h.sideEffects == nil {
		errs = append(errs, field.Required(path.Child("sideEffects"), "must specify one of "+joinValues(allowedSideEffects)))
	} else if !oneOf(*h.sideEffects, allowedSideEffects) {
		errs = append(errs, field.NotSupported(path.Child("sideEffects"), *h.sideEffects, allowedSideEffects))
	}
	if h.timeoutSeconds != nil && (*h.timeoutSeconds > 30 || *h.timeoutSeconds < 1) {
		errs = append(errs, field.Invalid(path.Child("timeoutSeconds"), *h.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
	}
	selectorOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector}
	if h.namespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.namespaceSelector, selectorOpts, path.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.objectSelector, selectorOpts, path.Child("objectSelector"))...)
	}
	if h.mutating && h.reinvocationPolicy != nil && !oneOf(*h.reinvocationPolicy, reinvocationPolicies) {
		errs = append(errs, field.NotSupported(path.Child("reinvocationPolicy"), *h.reinvocationPolicy, reinvocationPolicies))
	}
	errs = append(errs, validateClientConfig(h.clientConfig, path.Child("clientConfig"))...)
	if !opts.ignoreMatchConditions {
		errs = append(errs, v.compiler.Validate(h.matchConditions, matchcond.AdmissionValidateOptions{Preexisting: opts.preexisting}, path.Child("matchConditions"))...)
	}
	return errs
}

// acceptedReviewVersions are the AdmissionReview versions that
// kube-apiserver sends.
var acceptedReviewVersions = []string{"v1", "v1beta1"}

func hasRecognizedReviewVersion(versions []string) bool {
	for _, v := range versions {
		if oneOf(v, acceptedReviewVersions) {
			return true
		}
	}
	return false
}

func validateAdmissionReviewVersions(versions []string, requireRecognized bool, path *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(path, "must specify one of "+strings.Join(acceptedReviewVersions, ", "))}
	}
	var errs field.ErrorList
	seen := make(map[string]bool, len(versions))
	recognized := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(path.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(path.Index(i), v, msg))
		}
		if oneOf(v, acceptedReviewVersions) {
			recognized = true
		}
	}
	if requireRecognized && !recognized {
		errs = append(errs, field.Invalid(path, versions, "must include at least one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	return errs
}

// The values that validation accepts, sorted as kube-apiserver lists them.
var (
	allSideEffectClasses = []admissionregistrationv1.SideEffectClass{admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.SideEffectClassNoneOnDryRun, admissionregistrationv1.SideEffectClassSome, admissionregistrationv1.SideEffectClassUnknown}
	noSideEffectClasses  = []admissionregistrationv1.SideEffectClass{admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.SideEffectClassNoneOnDryRun}
	reinvocationPolicies = []admissionregistrationv1.ReinvocationPolicyType{admissionregistrationv1.IfNeededReinvocationPolicy, admissionregistrationv1.NeverReinvocationPolicy}
)

func isNoSideEffects(s admissionregistrationv1.SideEffectClass) bool {
	return oneOf(s, noSideEffectClasses)
}

func oneOf[T ~string](v T, values []T) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}

func joinValues[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// objectMetaOf is the metadata of an old configuration, nil on create.
func objectMetaOf[T interface {
	*admissionregistrationv1.ValidatingWebhookConfiguration | *admissionregistrationv1.MutatingWebhookConfiguration
	GetObjectMeta() metav1.Object
}](old T) *metav1.ObjectMeta {
	if old == nil {
		return nil
	}
	return old.GetObjectMeta().(*metav1.ObjectMeta)
}
