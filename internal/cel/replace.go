package cel

import (
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter/functions"
)

// maxReplaceResult bounds the size of the string that string.replace may
// build, in bytes. cel-go charges replace for its receiver only
// (kube-apiserver: 0.2 per character), so x.replace("", x) builds a string
// of |x|² bytes for the cost of |x|: two such steps from a literal of a
// thousand characters ask for a terabyte, which kube-apiserver attempts
// (and dies of). Program refuses such a call before it runs.
const maxReplaceResult = 32 << 20

// boundReplace wraps the bindings of string.replace with the size check.
func boundReplace(o *functions.Overload) *functions.Overload {
	if o.Function == nil {
		return o
	}
	inner := o.Function
	bound := *o
	bound.Function = func(args ...ref.Val) ref.Val {
		if size, ok := replaceResultSize(args); ok && size > maxReplaceResult {
			return types.NewErr("replace: the result would have %d bytes, more than the limit of %d", size, maxReplaceResult)
		}
		return inner(args...)
	}
	return &bound
}

// replaceResultSize returns the length of s.replace(old, new[, n]), or false
// if args are not such a call.
func replaceResultSize(args []ref.Val) (uint64, bool) {
	if len(args) != 3 && len(args) != 4 {
		return 0, false
	}
	s, ok1 := args[0].(types.String)
	old, ok2 := args[1].(types.String)
	repl, ok3 := args[2].(types.String)
	if !ok1 || !ok2 || !ok3 || len(repl) <= len(old) {
		return 0, false
	}
	var count uint64
	if old == "" {
		count = uint64(utf8.RuneCountInString(string(s))) + 1
	} else {
		count = uint64(strings.Count(string(s), string(old)))
	}
	if len(args) == 4 {
		n, ok := args[3].(types.Int)
		if !ok {
			return 0, false
		}
		if n >= 0 && uint64(n) < count {
			count = uint64(n)
		}
	}
	return saturatingAdd(uint64(len(s)), saturatingMul(count, uint64(len(repl)-len(old)))), true
}
