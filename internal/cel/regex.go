package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// regexLibrary is the kubernetes.regex library: find() and findAll().
type regexLibrary struct{}

func (regexLibrary) LibraryName() string { return "kubernetes.regex" }

func (regexLibrary) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string",
			[]*cel.Type{cel.StringType, cel.StringType}, cel.StringType, cel.BinaryBinding(find))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string",
				[]*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(str, re ref.Val) ref.Val { return findAll(str, re, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int",
				[]*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(findAll))),
	}
}

// ProgramOptions compiles constant patterns once, when the program is
// planned, as kube-apiserver does.
func (regexLibrary) ProgramOptions() []cel.ProgramOption {
	return []cel.ProgramOption{cel.OptimizeRegex(regexOptimizations()...)}
}

// regexOptimizations returns the planner optimizations that compile the
// constant pattern of find and findAll once.
func regexOptimizations() []*interpreter.RegexOptimization {
	return []*interpreter.RegexOptimization{
		{Function: "find", RegexIndex: 1, Factory: compiledFind},
		{Function: "findAll", RegexIndex: 1, Factory: compiledFindAll},
	}
}

func find(strVal, regexVal ref.Val) ref.Val {
	str, ok := strVal.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(strVal)
	}
	pattern, ok := regexVal.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(regexVal)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return types.String(re.FindString(str))
}

func findAll(args ...ref.Val) ref.Val {
	if len(args) < 2 || len(args) > 3 {
		return types.NoSuchOverloadErr()
	}
	str, ok := args[0].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	pattern, ok := args[1].Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[1])
	}
	n := int64(-1)
	if len(args) == 3 {
		n, ok = args[2].Value().(int64)
		if !ok {
			return types.MaybeNoSuchOverloadErr(args[2])
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return types.NewErr("Illegal regex: %v", err.Error())
	}
	return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(str, int(n)))
}

func compiledFind(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
		if len(args) != 2 {
			return types.NoSuchOverloadErr()
		}
		in, ok := args[0].Value().(string)
		if !ok {
			return types.MaybeNoSuchOverloadErr(args[0])
		}
		return types.String(re.FindString(in))
	}), nil
}

func compiledFindAll(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
		if len(args) < 2 || len(args) > 3 {
			return types.NoSuchOverloadErr()
		}
		str, ok := args[0].Value().(string)
		if !ok {
			return types.MaybeNoSuchOverloadErr(args[0])
		}
		n := int64(-1)
		if len(args) == 3 {
			n, ok = args[2].Value().(int64)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[2])
			}
		}
		return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(str, int(n)))
	}), nil
}
