package admissioncel

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"
)

// The declared types of admission expressions, with kube-apiserver's names
// and fields (BuildRequestType, BuildNamespaceType). Their runtime values are
// typed Go values (see schemaless.go), read by cel-go as maps: these types
// carry no getters.

const (
	ObjectVarName            = "object"
	OldObjectVarName         = "oldObject"
	ParamsVarName            = "params"
	RequestVarName           = "request"
	NamespaceVarName         = "namespaceObject"
	AuthorizerVarName        = "authorizer"
	RequestResourceVarName   = "authorizer.requestResource"
	VariablesVarName         = "variables"
	VariablesTypeName        = "kubernetes.variables"
	AdmissionRequestTypeName = "kubernetes.AdmissionRequest"
	NamespaceTypeName        = "kubernetes.Namespace"
)

func Declared(name string, typ *Decl) DeclField { return DeclField{Name: name, Type: typ} }

func AdmissionRequestDecl() *Decl {
	str := ScalarDecl(types.StringType)
	gvk := ObjectDecl("kubernetes.GroupVersionKind", Declared("group", str), Declared("version", str), Declared("kind", str))
	gvr := ObjectDecl("kubernetes.GroupVersionResource", Declared("group", str), Declared("version", str), Declared("resource", str))
	userInfo := ObjectDecl("kubernetes.UserInfo",
		Declared("username", str),
		Declared("uid", str),
		Declared("groups", ListDecl(str)),
		Declared("extra", MapDecl(str, ListDecl(str))),
	)
	return ObjectDecl(AdmissionRequestTypeName,
		Declared("kind", gvk),
		Declared("resource", gvr),
		Declared("subResource", str),
		Declared("requestKind", gvk),
		Declared("requestResource", gvr),
		Declared("requestSubResource", str),
		Declared("name", str),
		Declared("namespace", str),
		Declared("operation", str),
		Declared("userInfo", userInfo),
		Declared("dryRun", ScalarDecl(types.BoolType)),
		Declared("options", ScalarDecl(types.DynType)),
	)
}

func NamespaceDecl() *Decl {
	str := ScalarDecl(types.StringType)
	timestamp := ScalarDecl(types.TimestampType)
	strMap := MapDecl(str, str)
	condition := ObjectDecl("kubernetes.NamespaceCondition",
		Declared("status", str),
		Declared("type", str),
		Declared("lastTransitionTime", timestamp),
		Declared("message", str),
		Declared("reason", str),
	)
	return ObjectDecl(NamespaceTypeName,
		Declared("metadata", ObjectDecl("kubernetes.NamespaceMetadata",
			Declared("name", str),
			Declared("generateName", str),
			Declared("namespace", str),
			Declared("labels", strMap),
			Declared("annotations", strMap),
			Declared("UID", str),
			Declared("creationTimestamp", timestamp),
			Declared("deletionGracePeriodSeconds", ScalarDecl(types.IntType)),
			Declared("deletionTimestamp", timestamp),
			Declared("generation", ScalarDecl(types.IntType)),
			Declared("resourceVersion", str),
			Declared("finalizers", ListDecl(str)),
		)),
		Declared("spec", ObjectDecl("kubernetes.NamespaceSpec", Declared("finalizers", ListDecl(str)))),
		Declared("status", ObjectDecl("kubernetes.NamespaceStatus",
			Declared("conditions", ListDecl(condition)),
			Declared("phase", str),
		)),
	)
}

// VariableFieldType is the type kube-apiserver gives variables.<name> for a
// variable whose expression has type t (convertCelTypeToDeclType): the
// type itself for the primitive types (compared as pointers, as
// kube-apiserver does), lists and maps of such, dyn for anything else (an
// object, an optional, a type) and for a variable that does not compile.
func VariableFieldType(t *types.Type) *types.Type {
	if t == nil {
		return types.DynType
	}
	switch t {
	case types.AnyType, types.BoolType, types.BytesType, types.DoubleType, types.DurationType,
		types.IntType, types.NullType, types.StringType, types.TimestampType, types.UintType:
		return t
	}
	if t.HasTrait(traits.ContainerType) && t.HasTrait(traits.IndexerType) {
		switch p := t.Parameters(); len(p) {
		case 1:
			return types.NewListType(VariableFieldType(p[0]))
		case 2:
			return types.NewMapType(VariableFieldType(p[0]), VariableFieldType(p[1]))
		}
	}
	return types.DynType
}
