package cel

import (
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// JSONPatch returns the kubernetes.jsonpatch library:
// jsonpatch.escapeKey(string) string. kube-apiserver adds it to the
// environment of MutatingAdmissionPolicy mutations only (HasPatchTypes), so
// it is not part of EnvOptions.
func JSONPatch() cel.EnvOption {
	return cel.Lib(jsonPatchLibrary{})
}

type jsonPatchLibrary struct{}

func (jsonPatchLibrary) LibraryName() string { return "kubernetes.jsonpatch" }

func (jsonPatchLibrary) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("jsonpatch.escapeKey", cel.Overload("string_jsonpatch_escapeKey_string",
			[]*cel.Type{cel.StringType}, cel.StringType, cel.UnaryBinding(escapeJSONPointerKey))),
	}
}

func (jsonPatchLibrary) ProgramOptions() []cel.ProgramOption { return nil }

func escapeJSONPointerKey(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.String(escapeKey(s))
}

// escapeKey escapes a key for use as a JSON pointer (RFC 6901) reference
// token: "~" becomes "~0" and "/" becomes "~1", in one pass.
func escapeKey(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	var b strings.Builder
	b.Grow(len(k) + 2)
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(k[i])
		}
	}
	return b.String()
}
