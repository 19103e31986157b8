package cel

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The object types of the Authz library. matchcond declares the admission
// variables `authorizer` (AuthorizerType) and `authorizer.requestResource`
// (ResourceCheckType) with them.
var (
	AuthorizerType    = cel.ObjectType("kubernetes.authorization.Authorizer")
	PathCheckType     = cel.ObjectType("kubernetes.authorization.PathCheck")
	GroupCheckType    = cel.ObjectType("kubernetes.authorization.GroupCheck")
	ResourceCheckType = cel.ObjectType("kubernetes.authorization.ResourceCheck")
	DecisionType      = cel.ObjectType("kubernetes.authorization.Decision")
)

// Runtime type values of the Authz objects: equal to the object types, but
// distinct pointers, as in kube-apiserver (which converts a value only to its
// own type value).
var (
	authorizerTypeValue    = cel.ObjectType(AuthorizerType.String())
	pathCheckTypeValue     = cel.ObjectType(PathCheckType.String())
	groupCheckTypeValue    = cel.ObjectType(GroupCheckType.String())
	resourceCheckTypeValue = cel.ObjectType(ResourceCheckType.String())
	decisionTypeValue      = cel.ObjectType(DecisionType.String())
)

// authzLibrary is the kubernetes.authz library: authorizer.path(),
// .group(), .serviceAccount(), .resource(), .subresource(), .namespace(),
// .name(), .check() and the decision accessors.
type authzLibrary struct{}

func (authzLibrary) LibraryName() string { return "kubernetes.authz" }

func (authzLibrary) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("path", cel.MemberOverload("authorizer_path",
			[]*cel.Type{AuthorizerType, cel.StringType}, PathCheckType, cel.BinaryBinding(authorizerPath))),
		cel.Function("group", cel.MemberOverload("authorizer_group",
			[]*cel.Type{AuthorizerType, cel.StringType}, GroupCheckType, cel.BinaryBinding(authorizerGroup))),
		cel.Function("serviceAccount", cel.MemberOverload("authorizer_serviceaccount",
			[]*cel.Type{AuthorizerType, cel.StringType, cel.StringType}, AuthorizerType, cel.FunctionBinding(authorizerServiceAccount))),
		cel.Function("resource", cel.MemberOverload("groupcheck_resource",
			[]*cel.Type{GroupCheckType, cel.StringType}, ResourceCheckType, cel.BinaryBinding(groupCheckResource))),
		cel.Function("subresource", cel.MemberOverload("resourcecheck_subresource",
			[]*cel.Type{ResourceCheckType, cel.StringType}, ResourceCheckType, cel.BinaryBinding(resourceCheckSetter(setSubresource)))),
		cel.Function("namespace", cel.MemberOverload("resourcecheck_namespace",
			[]*cel.Type{ResourceCheckType, cel.StringType}, ResourceCheckType, cel.BinaryBinding(resourceCheckSetter(setNamespace)))),
		cel.Function("name", cel.MemberOverload("resourcecheck_name",
			[]*cel.Type{ResourceCheckType, cel.StringType}, ResourceCheckType, cel.BinaryBinding(resourceCheckSetter(setName)))),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*cel.Type{PathCheckType, cel.StringType}, DecisionType, cel.BinaryBinding(pathCheckCheck)),
			cel.MemberOverload("resourcecheck_check", []*cel.Type{ResourceCheckType, cel.StringType}, DecisionType, cel.BinaryBinding(resourceCheckCheck))),
		cel.Function("errored", cel.MemberOverload("decision_errored",
			[]*cel.Type{DecisionType}, cel.BoolType, cel.UnaryBinding(decisionErrored))),
		cel.Function("error", cel.MemberOverload("decision_error",
			[]*cel.Type{DecisionType}, cel.StringType, cel.UnaryBinding(decisionError))),
		cel.Function("allowed", cel.MemberOverload("decision_allowed",
			[]*cel.Type{DecisionType}, cel.BoolType, cel.UnaryBinding(decisionAllowed))),
		cel.Function("reason", cel.MemberOverload("decision_reason",
			[]*cel.Type{DecisionType}, cel.StringType, cel.UnaryBinding(decisionReason))),
	}
}

func (authzLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// authzSelectorsLibrary is the kubernetes.authzSelectors library:
// .fieldSelector() and .labelSelector() of a resource check.
type authzSelectorsLibrary struct{}

func (authzSelectorsLibrary) LibraryName() string { return "kubernetes.authzSelectors" }

func (authzSelectorsLibrary) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("fieldSelector", cel.MemberOverload("authorizer_fieldselector",
			[]*cel.Type{ResourceCheckType, cel.StringType}, ResourceCheckType, cel.BinaryBinding(resourceCheckSetter(setFieldSelector)))),
		cel.Function("labelSelector", cel.MemberOverload("authorizer_labelselector",
			[]*cel.Type{ResourceCheckType, cel.StringType}, ResourceCheckType, cel.BinaryBinding(resourceCheckSetter(setLabelSelector)))),
	}
}

func (authzSelectorsLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// NewAuthorizerValue returns the value of the admission variable
// `authorizer`: checks made through it are about user and go to a. ctx is
// passed to a (kube-apiserver passes context.TODO()).
func NewAuthorizerValue(ctx context.Context, user *UserInfo, a Authorizer) ref.Val {
	return authorizerValue{ctx: ctx, user: user, authorizer: a}
}

// NewResourceCheckValue returns the value of the admission variable
// `authorizer.requestResource`: a resource check on the request's group,
// resource, subresource, namespace and name, made for user.
func NewResourceCheckValue(ctx context.Context, user *UserInfo, a Authorizer, group, resource, subresource, namespace, name string) ref.Val {
	return resourceCheckValue{
		group:       groupCheckValue{authorizer: authorizerValue{ctx: ctx, user: user, authorizer: a}, group: group},
		resource:    resource,
		subresource: subresource,
		namespace:   namespace,
		name:        name,
	}
}

// receiverOnly implements ref.Val for the Authz objects, which can only be
// the receiver of the library's functions. Like kube-apiserver's, they cannot
// be converted, and comparing them is an error.
type receiverOnly struct{ typ *types.Type }

func (r receiverOnly) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", r.typ.String(), typeDesc)
}

func (r receiverOnly) ConvertToType(typeVal ref.Type) ref.Val {
	if typeVal == types.TypeType {
		return r.typ
	}
	return types.NewErr("type conversion error from '%s' to '%s'", r.typ, typeVal)
}

func (r receiverOnly) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (r receiverOnly) Type() ref.Type              { return r.typ }
func (r receiverOnly) Value() any                  { return types.NoSuchOverloadErr() }

type authorizerValue struct {
	ctx        context.Context
	user       *UserInfo
	authorizer Authorizer
}

func (v authorizerValue) ConvertToNative(t reflect.Type) (any, error) {
	return receiverOnly{authorizerTypeValue}.ConvertToNative(t)
}
func (v authorizerValue) ConvertToType(t ref.Type) ref.Val {
	return convertReceiverOnly(v, authorizerTypeValue, t)
}
func (v authorizerValue) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (v authorizerValue) Type() ref.Type              { return authorizerTypeValue }
func (v authorizerValue) Value() any                  { return types.NoSuchOverloadErr() }

type pathCheckValue struct {
	authorizer authorizerValue
	path       string
}

func (v pathCheckValue) ConvertToNative(t reflect.Type) (any, error) {
	return receiverOnly{pathCheckTypeValue}.ConvertToNative(t)
}
func (v pathCheckValue) ConvertToType(t ref.Type) ref.Val {
	return convertReceiverOnly(v, pathCheckTypeValue, t)
}
func (v pathCheckValue) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (v pathCheckValue) Type() ref.Type              { return pathCheckTypeValue }
func (v pathCheckValue) Value() any                  { return types.NoSuchOverloadErr() }

type groupCheckValue struct {
	authorizer authorizerValue
	group      string
}

func (v groupCheckValue) ConvertToNative(t reflect.Type) (any, error) {
	return receiverOnly{groupCheckTypeValue}.ConvertToNative(t)
}
func (v groupCheckValue) ConvertToType(t ref.Type) ref.Val {
	return convertReceiverOnly(v, groupCheckTypeValue, t)
}
func (v groupCheckValue) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (v groupCheckValue) Type() ref.Type              { return groupCheckTypeValue }
func (v groupCheckValue) Value() any                  { return types.NoSuchOverloadErr() }

type resourceCheckValue struct {
	group         groupCheckValue
	resource      string
	subresource   string
	namespace     string
	name          string
	fieldSelector string
	labelSelector string
}

func (v resourceCheckValue) ConvertToNative(t reflect.Type) (any, error) {
	return receiverOnly{resourceCheckTypeValue}.ConvertToNative(t)
}
func (v resourceCheckValue) ConvertToType(t ref.Type) ref.Val {
	return convertReceiverOnly(v, resourceCheckTypeValue, t)
}
func (v resourceCheckValue) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (v resourceCheckValue) Type() ref.Type              { return resourceCheckTypeValue }
func (v resourceCheckValue) Value() any                  { return types.NoSuchOverloadErr() }

type decisionValue struct {
	decision Decision
	reason   string
	err      error
}

func (v decisionValue) ConvertToNative(t reflect.Type) (any, error) {
	return receiverOnly{decisionTypeValue}.ConvertToNative(t)
}
func (v decisionValue) ConvertToType(t ref.Type) ref.Val {
	return convertReceiverOnly(v, decisionTypeValue, t)
}
func (v decisionValue) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (v decisionValue) Type() ref.Type              { return decisionTypeValue }
func (v decisionValue) Value() any                  { return types.NoSuchOverloadErr() }

// convertReceiverOnly converts an Authz object to its own type (itself) or to
// `type` (its type value); anything else is an error.
func convertReceiverOnly(v ref.Val, typ *types.Type, to ref.Type) ref.Val {
	if to == ref.Type(typ) {
		return v
	}
	return receiverOnly{typ}.ConvertToType(to)
}

func authorizerPath(arg1, arg2 ref.Val) ref.Val {
	a, ok := arg1.(authorizerValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	path, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	if strings.TrimSpace(path) == "" {
		return types.NewErr("path must not be empty")
	}
	return pathCheckValue{authorizer: a, path: path}
}

func authorizerGroup(arg1, arg2 ref.Val) ref.Val {
	a, ok := arg1.(authorizerValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	group, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	return groupCheckValue{authorizer: a, group: group}
}

func authorizerServiceAccount(args ...ref.Val) ref.Val {
	if len(args) != 3 {
		return types.NoSuchOverloadErr()
	}
	a, ok := args[0].(authorizerValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	namespace, ok := args[1].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[1])
	}
	name, ok := args[2].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[2])
	}
	// kube-apiserver validates the name as a DNS subdomain and the namespace
	// as a DNS label, in that order.
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return types.NewErr("Invalid service account name")
	}
	if len(validation.IsDNS1123Label(namespace)) > 0 {
		return types.NewErr("Invalid service account namespace")
	}
	return authorizerValue{ctx: a.ctx, user: serviceAccountUser(namespace, name), authorizer: a.authorizer}
}

// serviceAccountUser is the user of a service account as kube-apiserver's
// serviceaccount.ServiceAccountInfo{Namespace, Name}.UserInfo() builds it.
func serviceAccountUser(namespace, name string) *UserInfo {
	return &UserInfo{
		Name:   "system:serviceaccount:" + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace},
	}
}

func groupCheckResource(arg1, arg2 ref.Val) ref.Val {
	g, ok := arg1.(groupCheckValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	resource, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	if strings.TrimSpace(resource) == "" {
		return types.NewErr("resource must not be empty")
	}
	return resourceCheckValue{group: g, resource: resource}
}

func setSubresource(r *resourceCheckValue, s string)   { r.subresource = s }
func setNamespace(r *resourceCheckValue, s string)     { r.namespace = s }
func setName(r *resourceCheckValue, s string)          { r.name = s }
func setFieldSelector(r *resourceCheckValue, s string) { r.fieldSelector = s }
func setLabelSelector(r *resourceCheckValue, s string) { r.labelSelector = s }

// resourceCheckSetter returns the binding of a resource check builder
// function that sets one string attribute.
func resourceCheckSetter(set func(*resourceCheckValue, string)) func(ref.Val, ref.Val) ref.Val {
	return func(arg1, arg2 ref.Val) ref.Val {
		r, ok := arg1.(resourceCheckValue)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg1)
		}
		s, ok := arg2.Value().(string)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg1)
		}
		set(&r, s)
		return r
	}
}

func pathCheckCheck(arg1, arg2 ref.Val) ref.Val {
	p, ok := arg1.(pathCheckValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	verb, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	attributes := &AuthorizationAttributes{
		User: p.authorizer.user,
		Verb: verb,
		Path: p.path,
	}
	return authorize(p.authorizer, attributes)
}

func resourceCheckCheck(arg1, arg2 ref.Val) ref.Val {
	r, ok := arg1.(resourceCheckValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	verb, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	attributes := &AuthorizationAttributes{
		User:            r.group.authorizer.user,
		Verb:            verb,
		ResourceRequest: true,
		APIGroup:        r.group.group,
		APIVersion:      "*",
		Resource:        r.resource,
		Subresource:     r.subresource,
		Namespace:       r.namespace,
		Name:            r.name,
	}
	if r.fieldSelector != "" {
		selector, err := fields.ParseSelector(r.fieldSelector)
		if err != nil {
			attributes.FieldSelectorParsingErr = err
		} else {
			attributes.FieldSelectorRequirements = selector.Requirements()
		}
	}
	if r.labelSelector != "" {
		requirements, err := labels.ParseToRequirements(r.labelSelector)
		if err != nil {
			attributes.LabelSelectorParsingErr = err
		} else {
			attributes.LabelSelectorRequirements = requirements
		}
	}
	return authorize(r.group.authorizer, attributes)
}

func authorize(a authorizerValue, attributes *AuthorizationAttributes) ref.Val {
	ctx := a.ctx
	if ctx == nil {
		ctx = context.TODO()
	}
	if a.authorizer == nil {
		return types.NewErr("no authorizer")
	}
	decision, reason, err := a.authorizer.Authorize(ctx, attributes)
	return decisionValue{decision: decision, reason: reason, err: err}
}

func decisionErrored(arg ref.Val) ref.Val {
	d, ok := arg.(decisionValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.Bool(d.err != nil)
}

func decisionError(arg ref.Val) ref.Val {
	d, ok := arg.(decisionValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	if d.err == nil {
		return types.String("")
	}
	return types.String(d.err.Error())
}

func decisionAllowed(arg ref.Val) ref.Val {
	d, ok := arg.(decisionValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.Bool(d.decision == DecisionAllow)
}

func decisionReason(arg ref.Val) ref.Val {
	d, ok := arg.(decisionValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.String(d.reason)
}
