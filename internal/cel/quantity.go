package cel

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// QuantityType is the type of quantity(...) values.
var QuantityType = cel.ObjectType("kubernetes.Quantity")

// quantityTypeValue is the runtime type of Quantity values, a distinct
// pointer from QuantityType as in kube-apiserver.
var quantityTypeValue = cel.ObjectType("kubernetes.Quantity")

// quantityLibrary is the kubernetes.quantity library.
type quantityLibrary struct {
	// shallowCopy copies a quantity as kube-apiserver 1.36 and before do
	// in add and sub: the struct only, so that the arithmetic changes the
	// operand too when it holds an inf.Dec (a huge or very precise
	// quantity), Flavor.QuantityShallowCopy.
	shallowCopy bool
}

func (quantityLibrary) LibraryName() string { return "kubernetes.quantity" }

func (l quantityLibrary) CompileOptions() []cel.EnvOption {
	copyOf := func(x *resource.Quantity) resource.Quantity {
		if l.shallowCopy {
			return *x
		}
		return x.DeepCopy()
	}
	q := QuantityType
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity",
			[]*cel.Type{cel.StringType}, q, cel.UnaryBinding(stringToQuantity))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isQuantity))),
		cel.Function("sign", cel.Overload("quantity_sign",
			[]*cel.Type{q}, cel.IntType, cel.UnaryBinding(quantityUnary(func(x *resource.Quantity) ref.Val { return types.Int(x.Sign()) })))),
		cel.Function("isGreaterThan", cel.MemberOverload("quantity_is_greater_than",
			[]*cel.Type{q, q}, cel.BoolType, cel.BinaryBinding(quantityBinary(func(x, y *resource.Quantity) ref.Val { return types.Bool(x.Cmp(*y) == 1) })))),
		cel.Function("isLessThan", cel.MemberOverload("quantity_is_less_than",
			[]*cel.Type{q, q}, cel.BoolType, cel.BinaryBinding(quantityBinary(func(x, y *resource.Quantity) ref.Val { return types.Bool(x.Cmp(*y) == -1) })))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare_to",
			[]*cel.Type{q, q}, cel.IntType, cel.BinaryBinding(quantityBinary(func(x, y *resource.Quantity) ref.Val { return types.Int(x.Cmp(*y)) })))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float",
			[]*cel.Type{q}, cel.DoubleType, cel.UnaryBinding(quantityUnary(func(x *resource.Quantity) ref.Val { return types.Double(x.AsApproximateFloat64()) })))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int",
			[]*cel.Type{q}, cel.IntType, cel.UnaryBinding(quantityUnary(quantityAsInteger)))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer",
			[]*cel.Type{q}, cel.BoolType, cel.UnaryBinding(quantityUnary(func(x *resource.Quantity) ref.Val {
				_, ok := x.AsInt64()
				return types.Bool(ok)
			})))),
		cel.Function("add",
			cel.MemberOverload("quantity_add", []*cel.Type{q, q}, q, cel.BinaryBinding(quantityBinary(func(x, y *resource.Quantity) ref.Val {
				sum := copyOf(x)
				sum.Add(*y)
				return &quantityValue{&sum}
			}))),
			cel.MemberOverload("quantity_add_int", []*cel.Type{q, cel.IntType}, q, cel.BinaryBinding(quantityInt(func(x *resource.Quantity, y int64) ref.Val {
				sum := copyOf(x)
				sum.Add(*resource.NewQuantity(y, resource.DecimalExponent))
				return &quantityValue{&sum}
			})))),
		cel.Function("sub",
			cel.MemberOverload("quantity_sub", []*cel.Type{q, q}, q, cel.BinaryBinding(quantityBinary(func(x, y *resource.Quantity) ref.Val {
				diff := copyOf(x)
				diff.Sub(*y)
				return &quantityValue{&diff}
			}))),
			cel.MemberOverload("quantity_sub_int", []*cel.Type{q, cel.IntType}, q, cel.BinaryBinding(quantityInt(func(x *resource.Quantity, y int64) ref.Val {
				diff := copyOf(x)
				diff.Sub(*resource.NewQuantity(y, resource.DecimalExponent))
				return &quantityValue{&diff}
			})))),
	}
}

func (quantityLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// quantityValue is a resource.Quantity in CEL. Like kube-apiserver, the
// library returns it by value from quantity() and by pointer from add() and
// sub(); the two behave alike except for equality (see Equal).
type quantityValue struct{ *resource.Quantity }

func (q quantityValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(q.Quantity).AssignableTo(typeDesc) {
		return q.Quantity, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return q.Quantity.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", typeDesc)
}

func (q quantityValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case quantityTypeValue:
		return q
	case types.TypeType:
		return quantityTypeValue
	default:
		return types.NewErr("type conversion error from '%s' to '%s'", quantityTypeValue, typeVal)
	}
}

// Equal compares with a quantity made by quantity(); kube-apiserver's
// results of add() and sub() are pointers, which its Equal does not
// recognize, so comparing with one is an error ("no such overload").
func (q quantityValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantityValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(q.Quantity.Equal(*o.Quantity))
}

func (q quantityValue) Type() ref.Type { return quantityTypeValue }
func (q quantityValue) Value() any     { return q.Quantity }

func isQuantity(arg ref.Val) ref.Val {
	str, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := resource.ParseQuantity(str)
	return types.Bool(err == nil)
}

func stringToQuantity(arg ref.Val) ref.Val {
	str, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	q, err := resource.ParseQuantity(str)
	if err != nil {
		return types.WrapErr(err)
	}
	return quantityValue{&q}
}

func quantityAsInteger(x *resource.Quantity) ref.Val {
	v, ok := x.AsInt64()
	if !ok {
		return types.WrapErr(errors.New("cannot convert value to integer"))
	}
	return types.Int(v)
}

func quantityUnary(f func(*resource.Quantity) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		q, ok := arg.Value().(*resource.Quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(q)
	}
}

func quantityBinary(f func(x, y *resource.Quantity) ref.Val) func(ref.Val, ref.Val) ref.Val {
	return func(arg, other ref.Val) ref.Val {
		x, ok := arg.Value().(*resource.Quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		y, ok := other.Value().(*resource.Quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(x, y)
	}
}

func quantityInt(f func(x *resource.Quantity, y int64) ref.Val) func(ref.Val, ref.Val) ref.Val {
	return func(arg, other ref.Val) ref.Val {
		x, ok := arg.Value().(*resource.Quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		y, ok := other.Value().(int64)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(x, y)
	}
}
