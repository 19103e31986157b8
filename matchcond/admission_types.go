package matchcond

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"
)

// The declared types of admission expressions, with kube-apiserver's names
// and fields (BuildRequestType, BuildNamespaceType). Their runtime values are
// typed Go values (see schemaless.go), read by cel-go as maps: these types
// carry no getters.

const (
	objectVarName           = "object"
	oldObjectVarName        = "oldObject"
	paramsVarName           = "params"
	requestVarName          = "request"
	namespaceVarName        = "namespaceObject"
	authorizerVarName       = "authorizer"
	requestResourceVarName  = "authorizer.requestResource"
	variablesVarName        = "variables"
	variablesTypeName       = "kubernetes.variables"
	admissionRequestTypeNam = "kubernetes.AdmissionRequest"
	namespaceTypeName       = "kubernetes.Namespace"
)

func declared(name string, typ *decl) declField { return declField{name: name, typ: typ} }

func admissionRequestDecl() *decl {
	str := scalarDecl(types.StringType)
	gvk := objectDecl("kubernetes.GroupVersionKind", declared("group", str), declared("version", str), declared("kind", str))
	gvr := objectDecl("kubernetes.GroupVersionResource", declared("group", str), declared("version", str), declared("resource", str))
	userInfo := objectDecl("kubernetes.UserInfo",
		declared("username", str),
		declared("uid", str),
		declared("groups", listDecl(str)),
		declared("extra", mapDecl(str, listDecl(str))),
	)
	return objectDecl(admissionRequestTypeNam,
		declared("kind", gvk),
		declared("resource", gvr),
		declared("subResource", str),
		declared("requestKind", gvk),
		declared("requestResource", gvr),
		declared("requestSubResource", str),
		declared("name", str),
		declared("namespace", str),
		declared("operation", str),
		declared("userInfo", userInfo),
		declared("dryRun", scalarDecl(types.BoolType)),
		declared("options", scalarDecl(types.DynType)),
	)
}

func namespaceDecl() *decl {
	str := scalarDecl(types.StringType)
	timestamp := scalarDecl(types.TimestampType)
	strMap := mapDecl(str, str)
	condition := objectDecl("kubernetes.NamespaceCondition",
		declared("status", str),
		declared("type", str),
		declared("lastTransitionTime", timestamp),
		declared("message", str),
		declared("reason", str),
	)
	return objectDecl(namespaceTypeName,
		declared("metadata", objectDecl("kubernetes.NamespaceMetadata",
			declared("name", str),
			declared("generateName", str),
			declared("namespace", str),
			declared("labels", strMap),
			declared("annotations", strMap),
			declared("UID", str),
			declared("creationTimestamp", timestamp),
			declared("deletionGracePeriodSeconds", scalarDecl(types.IntType)),
			declared("deletionTimestamp", timestamp),
			declared("generation", scalarDecl(types.IntType)),
			declared("resourceVersion", str),
			declared("finalizers", listDecl(str)),
		)),
		declared("spec", objectDecl("kubernetes.NamespaceSpec", declared("finalizers", listDecl(str)))),
		declared("status", objectDecl("kubernetes.NamespaceStatus",
			declared("conditions", listDecl(condition)),
			declared("phase", str),
		)),
	)
}

// variableFieldType is the type kube-apiserver gives variables.<name> for a
// variable whose expression has type t (convertCelTypeToDeclType): the
// type itself for the primitive types (compared as pointers, as
// kube-apiserver does), lists and maps of such, dyn for anything else (an
// object, an optional, a type) and for a variable that does not compile.
func variableFieldType(t *types.Type) *types.Type {
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
			return types.NewListType(variableFieldType(p[0]))
		case 2:
			return types.NewMapType(variableFieldType(p[0]), variableFieldType(p[1]))
		}
	}
	return types.DynType
}
