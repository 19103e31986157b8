package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listsLibrary is the kubernetes.lists library: isSorted, sum, min, max,
// indexOf, lastIndexOf on lists, and from version 1 includes. Version 1 is
// the only one in kube-apiserver 1.37's stored-expressions environment;
// version 0 was removed in 1.37, and so is the one of its environment for
// new expressions (compatibility version 1.36).
type listsLibrary struct {
	withIncludes bool // version 1
}

func (listsLibrary) LibraryName() string { return "kubernetes.lists" }

// namedType is a CEL type with the name used in overload ids.
type namedType struct {
	name string
	typ  *cel.Type
}

// summableTypes and comparableTypes are in kube-apiserver's order, which is
// the order of the overloads, and so of runtime dispatch on dyn values.
func summableTypes() []namedType {
	return []namedType{
		{"int", cel.IntType},
		{"uint", cel.UintType},
		{"double", cel.DoubleType},
		{"duration", cel.DurationType},
	}
}

func comparableTypes() []namedType {
	return []namedType{
		{"int", cel.IntType},
		{"uint", cel.UintType},
		{"double", cel.DoubleType},
		{"bool", cel.BoolType},
		{"duration", cel.DurationType},
		{"timestamp", cel.TimestampType},
		{"string", cel.StringType},
		{"bytes", cel.BytesType},
	}
}

func (l listsLibrary) CompileOptions() []cel.EnvOption {
	comparable := comparableTypes()
	summable := summableTypes()
	isSortedOverloads := make([]cel.FunctionOpt, 0, len(comparable))
	maxOverloads := make([]cel.FunctionOpt, 0, len(comparable))
	minOverloads := make([]cel.FunctionOpt, 0, len(comparable))
	sumOverloads := make([]cel.FunctionOpt, 0, len(summable))
	for _, t := range comparable {
		listType := cel.ListType(t.typ)
		isSortedOverloads = append(isSortedOverloads, cel.MemberOverload("list_"+t.name+"_is_sorted_bool",
			[]*cel.Type{listType}, cel.BoolType, cel.UnaryBinding(isSorted)))
		maxOverloads = append(maxOverloads, cel.MemberOverload("list_"+t.name+"_max_"+t.name,
			[]*cel.Type{listType}, t.typ, cel.UnaryBinding(listExtreme("max", types.IntNegOne))))
		minOverloads = append(minOverloads, cel.MemberOverload("list_"+t.name+"_min_"+t.name,
			[]*cel.Type{listType}, t.typ, cel.UnaryBinding(listExtreme("min", types.IntOne))))
	}
	for _, t := range summable {
		zero := zeroOf(t.name)
		sumOverloads = append(sumOverloads, cel.MemberOverload("list_"+t.name+"_sum_"+t.name,
			[]*cel.Type{cel.ListType(t.typ)}, t.typ, cel.UnaryBinding(listSum(zero))))
	}
	paramA := cel.TypeParamType("A")
	opts := []cel.EnvOption{
		cel.Function("isSorted", isSortedOverloads...),
		cel.Function("sum", sumOverloads...),
		cel.Function("max", maxOverloads...),
		cel.Function("min", minOverloads...),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_int",
			[]*cel.Type{cel.ListType(paramA), paramA}, cel.IntType, cel.BinaryBinding(listIndexOf))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_int",
			[]*cel.Type{cel.ListType(paramA), paramA}, cel.IntType, cel.BinaryBinding(listLastIndexOf))),
	}
	if l.withIncludes {
		opts = append(opts, cel.Function("includes", cel.MemberOverload("list_includes_dyn_dyn",
			[]*cel.Type{cel.DynType, cel.DynType}, cel.BoolType, cel.BinaryBinding(includes))))
	}
	return opts
}

func (listsLibrary) ProgramOptions() []cel.ProgramOption { return nil }

func zeroOf(typeName string) ref.Val {
	switch typeName {
	case "int":
		return types.Int(0)
	case "uint":
		return types.Uint(0)
	case "double":
		return types.Double(0)
	default:
		return types.Duration{}
	}
}

func isSorted(val ref.Val) ref.Val {
	iterable, ok := val.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(val)
	}
	var prev traits.Comparer
	for it := iterable.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		nextCmp, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil && prev.Compare(next) == types.IntOne {
			return types.False
		}
		prev = nextCmp
	}
	return types.True
}

func listSum(zero ref.Val) func(ref.Val) ref.Val {
	return func(val ref.Val) ref.Val {
		acc, ok := zero.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(zero)
		}
		iterable, ok := val.(traits.Iterable)
		if !ok {
			return types.MaybeNoSuchOverloadErr(val)
		}
		for it := iterable.Iterator(); it.HasNext() == types.True; {
			next := it.Next()
			if _, ok := next.(traits.Adder); !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			s := acc.Add(next)
			sum, ok := s.(traits.Adder)
			if !ok {
				// An overflow: Add returned an error, which is not an Adder.
				return types.MaybeNoSuchOverloadErr(s)
			}
			acc = sum
		}
		return acc.(ref.Val)
	}
}

// listExtreme returns min (prefer = 1: replace the result when it compares
// greater) or max (prefer = -1).
func listExtreme(name string, prefer ref.Val) func(ref.Val) ref.Val {
	return func(val ref.Val) ref.Val {
		iterable, ok := val.(traits.Iterable)
		if !ok {
			return types.MaybeNoSuchOverloadErr(val)
		}
		var result traits.Comparer
		for it := iterable.Iterator(); it.HasNext() == types.True; {
			next := it.Next()
			nextCmp, ok := next.(traits.Comparer)
			if !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			if result == nil || result.Compare(next) == prefer {
				result = nextCmp
			}
		}
		if result == nil {
			return types.NewErr("%s called on empty list", name)
		}
		return result.(ref.Val)
	}
}

func listIndexOf(list, item ref.Val) ref.Val {
	lister, ok := list.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	size := lister.Size().(types.Int)
	for i := types.Int(0); i < size; i++ {
		if lister.Get(i).Equal(item) == types.True {
			return i
		}
	}
	return types.Int(-1)
}

func listLastIndexOf(list, item ref.Val) ref.Val {
	lister, ok := list.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	for i := lister.Size().(types.Int) - 1; i >= 0; i-- {
		if lister.Get(i).Equal(item) == types.True {
			return i
		}
	}
	return types.Int(-1)
}

func includes(target, arg ref.Val) ref.Val {
	if list, ok := target.(traits.Lister); ok {
		for it := list.Iterator(); it.HasNext() == types.True; {
			if it.Next().Equal(arg) == types.True {
				return types.True
			}
		}
		return types.False
	}
	return types.Bool(target.Equal(arg) == types.True)
}
