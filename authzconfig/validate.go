package authzconfig

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// KubeAPIServerTypes returns the authorizer types kube-apiserver knows, in
// the order of its --authorization-mode help: AlwaysAllow, AlwaysDeny, ABAC,
// Webhook, RBAC and Node.
func KubeAPIServerTypes() []string {
	return []string{TypeAlwaysAllow, TypeAlwaysDeny, TypeABAC, TypeWebhook, TypeRBAC, TypeNode}
}

// maxTimeout is the longest webhook timeout kube-apiserver accepts.
const maxTimeout = 30 * time.Second

// ValidateOptions are the choices a server makes when it validates a
// configuration. The zero value validates as kube-apiserver does, reading
// the real file system.
type ValidateOptions struct {
	// Path is the path of the configuration itself. Nil, kube-apiserver's
	// choice, makes error paths start at "authorizers".
	Path *field.Path

	// KnownTypes are the authorizer types the server supports. Nil means
	// kube-apiserver's (KubeAPIServerTypes); a generic apiserver typically
	// knows only Webhook. An empty, non-nil slice knows none.
	KnownTypes []string
	// RepeatableTypes are the types that may appear more than once. Nil
	// means Webhook only, as in kube-apiserver.
	RepeatableTypes []string

	// Stat returns the file information of a kubeconfig file, following
	// symbolic links. Nil means os.Stat. Set it to check against a fake file
	// system; its errors are printed in the error detail.
	Stat func(name string) (fs.FileInfo, error)
	// SkipFileChecks skips the file system checks of kubeconfig files (that
	// the file exists and is a regular file), for a configuration validated
	// away from the server that will read it. The path must still be
	// absolute.
	SkipFileChecks bool

	// Compiler compiles the match conditions. Nil builds one (for Kube)
	// when a configuration has match conditions, which costs about a
	// millisecond: a server that validates often should build one with
	// matchcond.NewAuthorizationCompilerFor and pass it every time.
	Compiler *authzcond.AuthorizationCompiler
	// Kube is the kube-apiserver that validates: its version and feature
	// gates (the zero Target is the newest release). Its CEL environment
	// decides which match conditions compile (includes() from 1.37).
	Kube kube.Target

	// RequireTypeNames applies kube-apiserver's own naming rule: an
	// authorizer of a type other than Webhook must be named after its
	// lowercased type. A violation is an Invalid name whose detail is
	// kube-apiserver's message ("expected name rbac for authorizer RBAC
	// instead of myrbac"), after all other errors, as kube-apiserver checks
	// it last. (DecodeAndValidate words it exactly as kube-apiserver does.)
	RequireTypeNames bool

	// RejectInClusterConfig makes connectionInfo.type InClusterConfig an
	// error (Unsupported value, supported: "KubeConfigFile"), for servers
	// that, like kube-apiserver, cannot call a webhook in-cluster.
	// kube-apiserver itself accepts it in validation and then dereferences
	// the absent kubeconfig path when it builds the webhook.
	RejectInClusterConfig bool
}

// Validate checks a decoded configuration with kube-apiserver's rules (the
// function ValidateAuthorizationConfiguration of k8s.io/apiserver): the
// errors, their order, field paths, values and texts are kube-apiserver's,
// quirks included:
//
//   - errors about a webhook's fields are reported under the authorizer's
//     path, without ".webhook" (authorizers[0].timeout);
//   - the failurePolicy values are listed unsorted ("NoOpinion", "Deny");
//   - an unsupported connectionInfo.type prints the whole connection info as
//     its value ({"Type":"Foo","KubeConfigFile":"/kc"}).
//
// A kubeconfig file must be an absolute path to an existing regular file;
// see ValidateOptions to fake or skip the file system. Match conditions are
// compiled with kube-apiserver's CEL environment (package matchcond): at
// most 64, none empty or repeated, each a bool expression. The error list's
// ToAggregate prints as kube-apiserver's message does.
func Validate(cfg *Configuration, opts ValidateOptions) field.ErrorList {
	_, errs := ValidateAndCompile(cfg, opts)
	return errs
}

// Compiled is a valid configuration with its match conditions compiled, so
// that whoever builds the authorizers does not compile them again.
type Compiled struct {
	Configuration *Configuration
	// MatchConditions[i] holds the compiled match conditions of
	// Configuration.Authorizers[i]; it is nil, a matcher that always
	// matches, for an authorizer without match conditions.
	MatchConditions []*authzcond.AuthorizationMatcher
}

// ValidateAndCompile is Validate, which compiles the match conditions, and
// also returns them compiled when the configuration is valid (nil
// otherwise).
func ValidateAndCompile(cfg *Configuration, opts ValidateOptions) (*Compiled, field.ErrorList) {
	v := newValidator(opts)
	errs := v.configuration(cfg)
	if len(errs) > 0 {
		return nil, errs
	}
	return &Compiled{Configuration: cfg, MatchConditions: v.matchers}, nil
}

// validator holds the options of one validation, resolved.
type validator struct {
	opts            ValidateOptions
	knownTypes      []string
	sortedKnown     []string
	repeatableTypes []string
	stat            func(string) (fs.FileInfo, error)
	compiler        *authzcond.AuthorizationCompiler
	compilerErr     error
	// matchers are the compiled match conditions, by authorizer.
	matchers []*authzcond.AuthorizationMatcher
}

func newValidator(opts ValidateOptions) *validator {
	v := &validator{opts: opts, knownTypes: opts.KnownTypes, repeatableTypes: opts.RepeatableTypes, stat: opts.Stat}
	if v.knownTypes == nil {
		v.knownTypes = KubeAPIServerTypes()
	}
	if v.repeatableTypes == nil {
		v.repeatableTypes = []string{TypeWebhook}
	}
	if v.stat == nil {
		v.stat = os.Stat
	}
	v.compiler = opts.Compiler
	return v
}

// compileConditions compiles one webhook's match conditions, building a
// compiler the first time one is needed.
func (v *validator) compileConditions(conditions []WebhookMatchCondition, path *field.Path) (*authzcond.AuthorizationMatcher, field.ErrorList) {
	if len(conditions) == 0 {
		return nil, nil
	}
	if v.compiler == nil && v.compilerErr == nil {
		v.compiler, v.compilerErr = authzcond.NewAuthorizationCompilerOf(v.opts.Kube)
	}
	if v.compilerErr != nil {
		return nil, field.ErrorList{field.InternalError(path, v.compilerErr)}
	}
	expressions := make([]string, len(conditions))
	for i, c := range conditions {
		expressions[i] = c.Expression
	}
	return v.compiler.Compile(expressions, path)
}

// supportedTypes lists the known types sorted and without duplicates, as
// kube-apiserver's NotSupported error prints them.
func (v *validator) supportedTypes() []string {
	if v.sortedKnown == nil {
		v.sortedKnown = slices.Compact(slices.Sorted(slices.Values(v.knownTypes)))
	}
	return v.sortedKnown
}

func (v *validator) configuration(cfg *Configuration) field.ErrorList {
	var errs field.ErrorList
	authorizersPath := v.opts.Path.Child("authorizers")
	if len(cfg.Authorizers) == 0 {
		errs = append(errs, field.Required(authorizersPath, "at least one authorization mode must be defined"))
	}
	seenTypes := make([]string, 0, len(cfg.Authorizers))
	seenNames := make(map[string]struct{}, len(cfg.Authorizers))
	var nameErrs field.ErrorList
	v.matchers = make([]*authzcond.AuthorizationMatcher, len(cfg.Authorizers))
	for i := range cfg.Authorizers {
		a := &cfg.Authorizers[i]
		path := authorizersPath.Index(i)
		switch {
		case a.Type == "":
			errs = append(errs, field.Required(path.Child("type"), ""))
			continue
		case !slices.Contains(v.knownTypes, a.Type):
			errs = append(errs, field.NotSupported(path.Child("type"), a.Type, v.supportedTypes()))
			continue
		case slices.Contains(seenTypes, a.Type) && !slices.Contains(v.repeatableTypes, a.Type):
			errs = append(errs, field.Duplicate(path.Child("type"), a.Type))
			continue
		}
		seenTypes = append(seenTypes, a.Type)
		if v.opts.RequireTypeNames && a.Type != TypeWebhook && a.Name != "" {
			if want := strings.ToLower(a.Type); a.Name != want {
				nameErrs = append(nameErrs, field.Invalid(path.Child("name"), a.Name, typeNameMessage(a.Type, a.Name)))
			}
		}

		// Every name counts as seen, even an empty or invalid one.
		_, seen := seenNames[a.Name]
		switch {
		case a.Name == "":
			errs = append(errs, field.Required(path.Child("name"), ""))
		case seen:
			errs = append(errs, field.Duplicate(path.Child("name"), a.Name))
		case !isDNS1123Subdomain(a.Name):
			msgs := utilvalidation.IsDNS1123Subdomain(a.Name)
			errs = append(errs, field.Invalid(path.Child("name"), a.Name, "authorizer name is invalid: "+strings.Join(msgs, ", ")))
		}
		seenNames[a.Name] = struct{}{}

		if a.Type == TypeWebhook {
			if a.Webhook == nil {
				errs = append(errs, field.Required(path.Child("webhook"), "required when type=Webhook"))
				continue
			}
			var webhookErrs field.ErrorList
			v.matchers[i], webhookErrs = v.webhook(a.Webhook, path)
			errs = append(errs, webhookErrs...)
		} else if a.Webhook != nil {
			errs = append(errs, field.Invalid(path.Child("webhook"), "non-null", "may only be specified when type=Webhook"))
		}
	}
	return append(errs, nameErrs...)
}

// typeNameMessage is kube-apiserver's message for a non-webhook authorizer
// not named after its lowercased type.
func typeNameMessage(typ, name string) string {
	return fmt.Sprintf("expected name %s for authorizer %s instead of %s", strings.ToLower(typ), typ, name)
}

// webhook checks a webhook's settings. kube-apiserver reports them under
// the authorizer's path, not the webhook's, and so does this.
func (v *validator) webhook(w *WebhookConfiguration, path *field.Path) (*authzcond.AuthorizationMatcher, field.ErrorList) {
	var errs field.ErrorList

	switch t := w.Timeout.Duration; {
	case t == 0:
		errs = append(errs, field.Required(path.Child("timeout"), ""))
	case t > maxTimeout || t < 0:
		errs = append(errs, field.Invalid(path.Child("timeout"), t.String(), "must be > 0s and <= 30s"))
	}
	errs = appendTTLError(errs, w.AuthorizedTTL.Duration, path.Child("authorizedTTL"))
	errs = appendTTLError(errs, w.UnauthorizedTTL.Duration, path.Child("unauthorizedTTL"))

	switch w.SubjectAccessReviewVersion {
	case "":
		errs = append(errs, field.Required(path.Child("subjectAccessReviewVersion"), ""))
	case SubjectAccessReviewVersionV1, SubjectAccessReviewVersionV1Beta1:
	default:
		errs = append(errs, field.NotSupported(path.Child("subjectAccessReviewVersion"), w.SubjectAccessReviewVersion,
			[]string{SubjectAccessReviewVersionV1, SubjectAccessReviewVersionV1Beta1}))
	}

	switch w.MatchConditionSubjectAccessReviewVersion {
	case "":
		if len(w.MatchConditions) > 0 {
			errs = append(errs, field.Required(path.Child("matchConditionSubjectAccessReviewVersion"), "required if match conditions are specified"))
		}
	case SubjectAccessReviewVersionV1:
	default:
		errs = append(errs, field.NotSupported(path.Child("matchConditionSubjectAccessReviewVersion"),
			w.MatchConditionSubjectAccessReviewVersion, []string{SubjectAccessReviewVersionV1}))
	}

	switch w.FailurePolicy {
	case "":
		errs = append(errs, field.Required(path.Child("failurePolicy"), ""))
	case FailurePolicyNoOpinion, FailurePolicyDeny:
	default:
		// kube-apiserver lists these two unsorted.
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), w.FailurePolicy,
			[]string{FailurePolicyNoOpinion, FailurePolicyDeny}))
	}

	errs = append(errs, v.connectionInfo(&w.ConnectionInfo, path)...)
	if w.ConditionsReview != nil {
		errs = append(errs, v.conditionsReview(w, path)...)
	}
	matcher, conditionErrs := v.compileConditions(w.MatchConditions, path.Child("matchConditions"))
	return matcher, append(errs, conditionErrs...)
}

func appendTTLError(errs field.ErrorList, ttl time.Duration, path *field.Path) field.ErrorList {
	switch {
	case ttl == 0:
		// Unreachable after decoding, which turns zero into the default.
		return append(errs, field.Required(path, ""))
	case ttl < 0:
		return append(errs, field.Invalid(path, ttl.String(), "must be > 0s"))
	}
	return errs
}

// connectionInfoValue is how kube-apiserver prints a connection info as the
// value of an error: its internal Go type, which has no JSON tags.
type connectionInfoValue struct {
	Type           string
	KubeConfigFile *string
}

func (v *validator) connectionInfo(c *WebhookConnectionInfo, path *field.Path) field.ErrorList {
	typePath := path.Child("connectionInfo", "type")
	filePath := path.Child("connectionInfo", "kubeConfigFile")
	switch c.Type {
	case "":
		return field.ErrorList{field.Required(typePath, "")}
	case ConnectionTypeInClusterConfig:
		if v.opts.RejectInClusterConfig {
			return field.ErrorList{field.NotSupported(typePath, c.Type, []string{ConnectionTypeKubeConfigFile})}
		}
		if c.KubeConfigFile != nil {
			return field.ErrorList{field.Invalid(filePath, *c.KubeConfigFile, "can only be set when type=KubeConfigFile")}
		}
	case ConnectionTypeKubeConfigFile:
		if err := v.kubeConfigFile(c.KubeConfigFile, filePath); err != nil {
			return field.ErrorList{err}
		}
	default:
		return field.ErrorList{field.NotSupported(typePath, connectionInfoValue{c.Type, c.KubeConfigFile},
			[]string{ConnectionTypeInClusterConfig, ConnectionTypeKubeConfigFile})}
	}
	return nil
}

// kubeConfigFile checks a kubeconfig path; the first failure wins.
func (v *validator) kubeConfigFile(file *string, path *field.Path) *field.Error {
	if file == nil || *file == "" {
		return field.Required(path, "")
	}
	if !filepath.IsAbs(*file) {
		return field.Invalid(path, *file, "must be an absolute path")
	}
	if v.opts.SkipFileChecks {
		return nil
	}
	info, err := v.stat(*file)
	if err != nil {
		return field.Invalid(path, *file, fmt.Sprintf("error loading file: %v", err))
	}
	if !info.Mode().IsRegular() {
		return field.Invalid(path, *file, "must be a regular file")
	}
	return nil
}

// conditionsReview validates a webhook's conditions review as kube-apiserver
// 1.38 does. Before 1.38 the field does not exist (decoding refuses it); a
// configuration built in Go that sets it is refused as Forbidden.
func (v *validator) conditionsReview(w *WebhookConfiguration, path *field.Path) field.ErrorList {
	crPath := path.Child("conditionsReview")
	if !kubeversions.Has(v.opts.Kube, kubeversions.AuthorizationConditionsReview) {
		return field.ErrorList{field.Forbidden(crPath, fmt.Sprintf("Kubernetes %s has no conditionsReview (1.38 brings it)", v.opts.Kube.Version()))}
	}
	var errs field.ErrorList
	if w.SubjectAccessReviewVersion != SubjectAccessReviewVersionV1 {
		errs = append(errs, field.Forbidden(crPath, "may only be set when subjectAccessReviewVersion=v1"))
	}
	if !v.opts.Kube.Enabled(kube.ConditionalAuthorization) {
		errs = append(errs, field.Forbidden(crPath, "the ConditionalAuthorization feature gate must be on to use this field"))
	}
	r := w.ConditionsReview
	if w.ConnectionInfo.Type != ConnectionTypeKubeConfigFile && r.KubeConfigContextName != "" {
		errs = append(errs, field.Forbidden(crPath.Child("kubeConfigContextName"),
			fmt.Sprintf("may only be specified when %s=%s", path.Child("connectionInfo", "type"), ConnectionTypeKubeConfigFile)))
	}
	switch r.Version {
	case "":
		errs = append(errs, field.Required(crPath.Child("version"), ""))
	case ConditionsReviewVersionV1Alpha1:
	default:
		errs = append(errs, field.NotSupported(crPath.Child("version"), r.Version, []string{ConditionsReviewVersionV1Alpha1}))
	}
	return errs
}
