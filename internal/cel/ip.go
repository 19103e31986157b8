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

// IPType is the type of ip(...) values.
var IPType = cel.OpaqueType("net.IP")

// ipLibrary is the kubernetes.net.ip library.
type ipLibrary struct{}

func (ipLibrary) LibraryName() string { return "kubernetes.net.ip" }

func (ipLibrary) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Types(IPType),
		cel.Function("ip", cel.Overload("string_to_ip",
			[]*cel.Type{cel.StringType}, IPType, cel.UnaryBinding(stringToIP))),
		cel.Function("family", cel.MemberOverload("ip_family",
			[]*cel.Type{IPType}, cel.IntType, cel.UnaryBinding(ipFamily))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(ipIsCanonical))),
		cel.Function("isUnspecified", cel.MemberOverload("ip_is_unspecified",
			[]*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(ipPredicate(netip.Addr.IsUnspecified)))),
		cel.Function("isLoopback", cel.MemberOverload("ip_is_loopback",
			[]*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(ipPredicate(netip.Addr.IsLoopback)))),
		cel.Function("isLinkLocalMulticast", cel.MemberOverload("ip_is_link_local_multicast",
			[]*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(ipPredicate(netip.Addr.IsLinkLocalMulticast)))),
		cel.Function("isLinkLocalUnicast", cel.MemberOverload("ip_is_link_local_unicast",
			[]*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(ipPredicate(netip.Addr.IsLinkLocalUnicast)))),
		cel.Function("isGlobalUnicast", cel.MemberOverload("ip_is_global_unicast",
			[]*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(ipPredicate(netip.Addr.IsGlobalUnicast)))),
		cel.Function("isIP", cel.Overload("is_ip",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isIP))),
		cel.Function("string", cel.Overload("ip_to_string",
			[]*cel.Type{IPType}, cel.StringType, cel.UnaryBinding(ipToString))),
	}
}

func (ipLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// ipValue is an IP address in CEL.
type ipValue struct{ netip.Addr }

func (v ipValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(v.Addr).AssignableTo(typeDesc) {
		return v.Addr, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return v.Addr.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'IP' to '%v'", typeDesc)
}

func (v ipValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case IPType:
		return v
	case types.TypeType:
		return IPType
	case types.StringType:
		return types.String(v.Addr.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", IPType, typeVal)
}

func (v ipValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(ipValue)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(v.Addr == o.Addr)
}

func (v ipValue) Type() ref.Type { return IPType }
func (v ipValue) Value() any     { return v.Addr }

// Size is the size of the address in bytes, which the cost model uses.
func (v ipValue) Size() ref.Val {
	return types.Int(int(math.Ceil(float64(v.Addr.BitLen()) / 8)))
}

func stringToIP(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	addr, err := parseIP(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	return ipValue{addr}
}

func ipToString(arg ref.Val) ref.Val {
	v, ok := arg.(ipValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	return types.String(v.Addr.String())
}

func ipFamily(arg ref.Val) ref.Val {
	v, ok := arg.(ipValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	switch {
	case v.Addr.Is4():
		return types.Int(4)
	case v.Addr.Is6():
		return types.Int(6)
	default:
		return types.NewErr("IP address %q is not an IPv4 or IPv6 address", v.Addr.String())
	}
}

func ipIsCanonical(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	addr, err := parseIP(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	// Addr.String is the canonical form.
	return types.Bool(addr.String() == s)
}

func isIP(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := parseIP(s)
	return types.Bool(err == nil)
}

func ipPredicate(p func(netip.Addr) bool) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		v, ok := arg.(ipValue)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return types.Bool(p(v.Addr))
	}
}

// parseIP parses an IPv4 or IPv6 address, rejecting zones and IPv4-mapped
// IPv6 addresses.
func parseIP(raw string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(raw)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", raw, err)
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", raw)
	}
	if addr.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return addr, nil
}
