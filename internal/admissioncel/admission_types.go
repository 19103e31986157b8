package admissioncel

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"

	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
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

func Declared(name string, typ *celdecl.Decl) celdecl.DeclField {
	return celdecl.DeclField{Name: name, Type: typ}
}

func AdmissionRequestDecl() *celdecl.Decl {
	str := celdecl.ScalarDecl(types.StringType)
	gvk := celdecl.ObjectDecl("kubernetes.GroupVersionKind", Declared("group", str), Declared("version", str), Declared("kind", str))
	gvr := celdecl.ObjectDecl("kubernetes.GroupVersionResource", Declared("group", str), Declared("version", str), Declared("resource", str))
	userInfo := celdecl.ObjectDecl("kubernetes.UserInfo",
		Declared("username", str),
		Declared("uid", str),
		Declared("groups", celdecl.ListDecl(str)),
		Declared("extra", celdecl.MapDecl(str, celdecl.ListDecl(str))),
	)
	return celdecl.ObjectDecl(AdmissionRequestTypeName,
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
		Declared("dryRun", celdecl.ScalarDecl(types.BoolType)),
		Declared("options", celdecl.ScalarDecl(types.DynType)),
	)
}

func NamespaceDecl() *celdecl.Decl {
	str := celdecl.ScalarDecl(types.StringType)
	timestamp := celdecl.ScalarDecl(types.TimestampType)
	strMap := celdecl.MapDecl(str, str)
	condition := celdecl.ObjectDecl("kubernetes.NamespaceCondition",
		Declared("status", str),
		Declared("type", str),
		Declared("lastTransitionTime", timestamp),
		Declared("message", str),
		Declared("reason", str),
	)
	return celdecl.ObjectDecl(NamespaceTypeName,
		Declared("metadata", celdecl.ObjectDecl("kubernetes.NamespaceMetadata",
			Declared("name", str),
			Declared("generateName", str),
			Declared("namespace", str),
			Declared("labels", strMap),
			Declared("annotations", strMap),
			Declared("UID", str),
			Declared("creationTimestamp", timestamp),
			Declared("deletionGracePeriodSeconds", celdecl.ScalarDecl(types.IntType)),
			Declared("deletionTimestamp", timestamp),
			Declared("generation", celdecl.ScalarDecl(types.IntType)),
			Declared("resourceVersion", str),
			Declared("finalizers", celdecl.ListDecl(str)),
		)),
		Declared("spec", celdecl.ObjectDecl("kubernetes.NamespaceSpec", Declared("finalizers", celdecl.ListDecl(str)))),
		Declared("status", celdecl.ObjectDecl("kubernetes.NamespaceStatus",
			Declared("conditions", celdecl.ListDecl(condition)),
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
