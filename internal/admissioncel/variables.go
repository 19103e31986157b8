package admissioncel

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// VariablesTraits are the traits of the kubernetes.variables type.
const VariablesTraits = traits.IndexerType | traits.FieldTesterType | traits.IterableType

// Variables is the value of `variables` during one evaluation: each
// variable is computed on first access and kept for the rest of the
// evaluation, as kube-apiserver's lazy map does (including its quirks:
// iteration yields the values, not the names; == is identity).
type Variables struct {
	typ       *types.Type
	names     []string       // by index, in declaration order
	byName    map[string]int // the index of each name
	values    []ref.Val      // computed values, by index
	computing []bool
	compute   func(i int) ref.Val
}

// NewVariables is the value of `variables`, of type typ, for one
// evaluation: names are the variables in declaration order, byName the index
// of each name (a name declared twice has the index of its last
// declaration), and compute computes the variable of an index when it is
// first read.
func NewVariables(typ *types.Type, names []string, byName map[string]int, compute func(i int) ref.Val) *Variables {
	return &Variables{
		typ:       typ,
		names:     names,
		byName:    byName,
		values:    make([]ref.Val, len(names)),
		computing: make([]bool, len(names)),
		compute:   compute,
	}
}

var (
	_ ref.Val       = (*Variables)(nil)
	_ traits.Mapper = (*Variables)(nil)
)

func (v *Variables) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("disallowed conversion from %q to %q", v.typ.TypeName(), t.Name())
}

func (v *Variables) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case v.typ:
		return v
	case types.TypeType:
		return v.typ
	}
	return types.NewErr("disallowed conversion from %q to %q", v.typ.TypeName(), t.TypeName())
}

func (v *Variables) Equal(other ref.Val) ref.Val {
	o, ok := other.(*Variables)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v == o)
}

func (v *Variables) Type() ref.Type { return v.typ }
func (v *Variables) Value() any     { return types.NoSuchOverloadErr() }
func (v *Variables) Size() ref.Val  { return types.Int(len(v.names)) }

func (v *Variables) Contains(key ref.Val) ref.Val {
	val, found := v.Find(key)
	if val != nil && types.IsUnknownOrError(val) {
		return val
	}
	return types.Bool(found)
}

func (v *Variables) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s), true
	}
	name, ok := UnescapeFieldName(string(s))
	if !ok {
		return nil, false
	}
	i, ok := v.byName[name]
	if !ok {
		return nil, false
	}
	if v.values[i] == nil {
		if v.computing[i] {
			// Only a variable declared twice, the second using the first,
			// refers to itself; kube-apiserver recurses until the stack
			// overflows.
			return types.NewErr("composited variable %q refers to itself", name), true
		}
		v.computing[i] = true
		v.values[i] = v.compute(i)
		v.computing[i] = false
	}
	return v.values[i], true
}

func (v *Variables) Get(key ref.Val) ref.Val {
	val, found := v.Find(key)
	if found {
		return val
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

// Iterator yields the variables' values, in declaration order.
func (v *Variables) Iterator() traits.Iterator { return &variablesIterator{vars: v} }

type variablesIterator struct {
	baseIterator
	vars *Variables
	next int
}

func (it *variablesIterator) HasNext() ref.Val { return types.Bool(it.next < len(it.vars.names)) }

func (it *variablesIterator) Next() ref.Val {
	v := it.vars.Get(types.String(it.vars.names[it.next]))
	it.next++
	return v
}

// celReservedWord tells the words that kube-apiserver escapes as field
// names (__in__ for in).
func celReservedWord(s string) bool {
	switch s {
	case "true", "false", "null", "in", "as", "break", "const", "continue", "else",
		"for", "function", "if", "import", "let", "loop", "package", "namespace",
		"return", "var", "void", "while":
		return true
	}
	return false
}

// UnescapeFieldName undoes kube-apiserver's escaping of field names:
// __underscores__, __dot__, __dash__, __slash__, and a reserved word
// __<word>__ when it is the whole name. Any other __<x>__ makes the name
// invalid.
func UnescapeFieldName(s string) (string, bool) {
	if !strings.Contains(s, "__") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "__") {
			j := i + 2
			for j < len(s) && s[j] != '_' {
				j++
			}
			if j > i+2 && strings.HasPrefix(s[j:], "__") {
				switch word := s[i+2 : j]; word {
				case "underscores":
					b.WriteString("__")
				case "dot":
					b.WriteString(".")
				case "dash":
					b.WriteString("-")
				case "slash":
					b.WriteString("/")
				default:
					if !celReservedWord(word) || j+2-i != len(s) {
						return "", false
					}
					b.WriteString(word)
				}
				i = j + 2
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), true
}

// EvalVariable evaluates a variable's program (nil when the variable did
// not compile, compileErr telling why) in activation, adds its cost to
// *cost (saturating), and returns its value or kube-apiserver's lazy
// variable error.
func EvalVariable(ctx context.Context, name string, program *icel.Program, compileErr error, activation interpreter.Activation, cost *int64) ref.Val {
	if compileErr != nil || program == nil {
		return types.NewErr("composited variable %q fails to compile: %v", name, compileErr)
	}
	val, c, err := program.Eval(ctx, activation)
	if c > math.MaxInt64 {
		c = math.MaxInt64
	}
	if *cost += int64(c); *cost < 0 {
		*cost = math.MaxInt64
	}
	if err != nil {
		return types.NewErr("composited variable %q fails to evaluate: %v", name, err)
	}
	return val
}
