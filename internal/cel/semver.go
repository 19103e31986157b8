package cel

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// SemverType is the type of semver(...) values.
var SemverType = cel.ObjectType("kubernetes.Semver")

// semverLibrary is the kubernetes.Semver library at version 1 (with the
// normalizing overloads semver(s, bool) and isSemver(s, bool)).
type semverLibrary struct{}

func (semverLibrary) LibraryName() string { return "kubernetes.Semver" }

func (semverLibrary) CompileOptions() []cel.EnvOption {
	s := SemverType
	return []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{cel.StringType}, s, cel.UnaryBinding(func(arg ref.Val) ref.Val {
				return stringToSemver(arg, types.False)
			})),
			cel.Overload("string_bool_to_semver", []*cel.Type{cel.StringType, cel.BoolType}, s, cel.BinaryBinding(stringToSemver))),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(arg ref.Val) ref.Val {
				return isSemver(arg, types.False)
			})),
			cel.Overload("is_semver_string_bool", []*cel.Type{cel.StringType, cel.BoolType}, cel.BoolType, cel.BinaryBinding(isSemver))),
		cel.Function("isGreaterThan", cel.MemberOverload("semver_is_greater_than",
			[]*cel.Type{s, s}, cel.BoolType, cel.BinaryBinding(semverBinary(func(x, y semver) ref.Val { return types.Bool(x.compare(y) == 1) })))),
		cel.Function("isLessThan", cel.MemberOverload("semver_is_less_than",
			[]*cel.Type{s, s}, cel.BoolType, cel.BinaryBinding(semverBinary(func(x, y semver) ref.Val { return types.Bool(x.compare(y) == -1) })))),
		cel.Function("compareTo", cel.MemberOverload("semver_compare_to",
			[]*cel.Type{s, s}, cel.IntType, cel.BinaryBinding(semverBinary(func(x, y semver) ref.Val { return types.Int(x.compare(y)) })))),
		cel.Function("major", cel.MemberOverload("semver_major",
			[]*cel.Type{s}, cel.IntType, cel.UnaryBinding(semverUnary(func(v semver) ref.Val { return types.Int(v.major) })))),
		cel.Function("minor", cel.MemberOverload("semver_minor",
			[]*cel.Type{s}, cel.IntType, cel.UnaryBinding(semverUnary(func(v semver) ref.Val { return types.Int(v.minor) })))),
		cel.Function("patch", cel.MemberOverload("semver_patch",
			[]*cel.Type{s}, cel.IntType, cel.UnaryBinding(semverUnary(func(v semver) ref.Val { return types.Int(v.patch) })))),
	}
}

func (semverLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// semverValue is a semantic version in CEL.
type semverValue struct{ semver }

func (v semverValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(v.semver).AssignableTo(typeDesc) {
		return v.semver, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return v.semver.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Semver' to '%v'", typeDesc)
}

func (v semverValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case SemverType:
		return v
	case types.TypeType:
		return SemverType
	default:
		return types.NewErr("type conversion error from '%s' to '%s'", SemverType, typeVal)
	}
}

// Equal compares by precedence, which ignores build metadata.
func (v semverValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(semverValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.compare(o.semver) == 0)
}

func (v semverValue) Type() ref.Type { return SemverType }
func (v semverValue) Value() any     { return v.semver }

func isSemver(arg, normalizeArg ref.Val) ref.Val {
	str, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	normalize, ok := normalizeArg.Value().(bool)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := parseSemverMaybeNormalized(str, normalize)
	return types.Bool(err == nil)
}

func stringToSemver(arg, normalizeArg ref.Val) ref.Val {
	str, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	normalize, ok := normalizeArg.Value().(bool)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	v, err := parseSemverMaybeNormalized(str, normalize)
	if err != nil {
		return types.WrapErr(err)
	}
	return semverValue{v}
}

func parseSemverMaybeNormalized(s string, normalize bool) (semver, error) {
	if normalize {
		return parseSemverNormalized(s)
	}
	return parseSemver(s)
}

// parseSemverNormalized parses a version after kube-apiserver's
// normalization: a leading "v" is dropped, leading zeros of the numbers are
// removed and a missing minor or patch number is 0.
func parseSemverNormalized(s string) (semver, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		if len(p) > 1 {
			p = strings.TrimLeft(p, "0")
			if p == "" || !strings.ContainsAny(p[0:1], "0123456789") {
				p = "0" + p
			}
			parts[i] = p
		}
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return semver{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return parseSemver(strings.Join(parts, "."))
}

func semverUnary(f func(semver) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		v, ok := arg.Value().(semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(v)
	}
}

func semverBinary(f func(x, y semver) ref.Val) func(ref.Val, ref.Val) ref.Val {
	return func(arg, other ref.Val) ref.Val {
		x, ok := arg.Value().(semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		y, ok := other.Value().(semver)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(x, y)
	}
}
