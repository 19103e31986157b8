package cel

import (
	"fmt"
	"math"
	"net/netip"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// CIDRType is the type of cidr(...) values.
var CIDRType = cel.OpaqueType("net.CIDR")

// cidrLibrary is the kubernetes.net.cidr library: version 0, or with
// withIsMask version 1 (kube-apiserver's stored expressions from 1.38).
type cidrLibrary struct{ withIsMask bool }

func (cidrLibrary) LibraryName() string { return "kubernetes.net.cidr" }

func (l cidrLibrary) CompileOptions() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.Types(CIDRType),
		cel.Function("cidr", cel.Overload("string_to_cidr",
			[]*cel.Type{cel.StringType}, CIDRType, cel.UnaryBinding(stringToCIDR))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(arg, other ref.Val) ref.Val { return cidrContainsIP(arg, stringToIP(other)) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{CIDRType, IPType}, cel.BoolType,
				cel.BinaryBinding(cidrContainsIP))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(arg, other ref.Val) ref.Val { return cidrContainsCIDR(arg, stringToCIDR(other)) })),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{CIDRType, CIDRType}, cel.BoolType,
				cel.BinaryBinding(cidrContainsCIDR))),
		cel.Function("ip", cel.MemberOverload("cidr_ip",
			[]*cel.Type{CIDRType}, IPType, cel.UnaryBinding(cidrIP))),
		cel.Function("prefixLength", cel.MemberOverload("cidr_prefix_length",
			[]*cel.Type{CIDRType}, cel.IntType, cel.UnaryBinding(cidrPrefixLength))),
		cel.Function("masked", cel.MemberOverload("cidr_masked",
			[]*cel.Type{CIDRType}, CIDRType, cel.UnaryBinding(cidrMasked))),
		cel.Function("isCIDR", cel.Overload("is_cidr",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isCIDR))),
		cel.Function("string", cel.Overload("cidr_to_string",
			[]*cel.Type{CIDRType}, cel.StringType, cel.UnaryBinding(cidrToString))),
	}
	if l.withIsMask {
		opts = append(opts, cel.Function("isMask", cel.MemberOverload("cidr_is_mask",
			[]*cel.Type{CIDRType}, cel.BoolType, cel.UnaryBinding(cidrIsMask))))
	}
	return opts
}

func (cidrLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// cidrValue is an IP prefix in CEL.
type cidrValue struct{ netip.Prefix }

func (v cidrValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(v.Prefix).AssignableTo(typeDesc) {
		return v.Prefix, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return v.Prefix.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'CIDR' to '%v'", typeDesc)
}

func (v cidrValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case CIDRType:
		return v
	case types.TypeType:
		return CIDRType
	case types.StringType:
		return types.String(v.Prefix.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", CIDRType, typeVal)
}

func (v cidrValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(cidrValue)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(v.Prefix == o.Prefix)
}

func (v cidrValue) Type() ref.Type { return CIDRType }
func (v cidrValue) Value() any     { return v.Prefix }

// Size is the size of the prefix in bytes, which the cost model uses.
func (v cidrValue) Size() ref.Val {
	return types.Int(int(math.Ceil(float64(v.Prefix.Bits()) / 8)))
}

func stringToCIDR(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	prefix, err := parseCIDR(s)
	if err != nil {
		// kube-apiserver prefixes its own message twice.
		return types.NewErr("network address parse error during conversion from string: %v", err)
	}
	return cidrValue{prefix}
}

func cidrToString(arg ref.Val) ref.Val {
	v, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.String(v.Prefix.String())
}

// cidrContainsIP reports whether the prefix contains the address. When the
// address is an error (an unparsable string), kube-apiserver reports "no such
// overload" rather than the parse error; so does this.
func cidrContainsIP(arg, other ref.Val) ref.Val {
	c, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	ip, ok := other.(ipValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.Bool(c.Contains(ip.Addr))
}

func cidrContainsCIDR(arg, other ref.Val) ref.Val {
	c, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	o, ok := other.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(c.Overlaps(o.Prefix) && c.Prefix.Bits() <= o.Prefix.Bits())
}

func cidrPrefixLength(arg ref.Val) ref.Val {
	v, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.Int(v.Prefix.Bits())
}

func isCIDR(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := parseCIDR(s)
	return types.Bool(err == nil)
}

func cidrIP(arg ref.Val) ref.Val {
	v, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return ipValue{v.Prefix.Addr()}
}

// cidrIsMask reports whether the prefix is in subnet form: no bit set after
// the prefix length.
func cidrIsMask(arg ref.Val) ref.Val {
	v, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.Bool(v.Prefix == v.Prefix.Masked())
}

func cidrMasked(arg ref.Val) ref.Val {
	v, ok := arg.(cidrValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return cidrValue{v.Prefix.Masked()}
}

// parseCIDR parses an IP prefix, rejecting IPv4-mapped IPv6 addresses.
func parseCIDR(raw string) (netip.Prefix, error) {
	prefix, err := netip.ParsePrefix(raw)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if prefix.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return prefix, nil
}
