package cel

import (
	"fmt"
	"net/netip"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The types of ip(string) and cidr(string).
var (
	IPType   = cel.OpaqueType("net.IP")
	CIDRType = cel.OpaqueType("net.CIDR")
)

// ipLib is Kubernetes' IP and CIDR library.
type ipLib struct{}

func (ipLib) LibraryName() string { return "kubecore.ip" }

func (ipLib) ProgramOptions() []cel.ProgramOption { return nil }

type ipAddr struct{ netip.Addr }

type cidrPrefix struct{ netip.Prefix }

func newIP(a netip.Addr) ref.Val {
	return opaque[ipAddr]{v: ipAddr{a}, typ: IPType, equal: func(a, b ipAddr) bool { return a.Addr == b.Addr }}
}

func newCIDR(p netip.Prefix) ref.Val {
	return opaque[cidrPrefix]{v: cidrPrefix{p}, typ: CIDRType, equal: func(a, b cidrPrefix) bool { return a.Prefix == b.Prefix }}
}

// parseIP accepts what Kubernetes' ip() does: IPv4 or IPv6, without a
// zone and not an IPv4-mapped IPv6 address.
func parseIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, err
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address with zone value is not allowed")
	}
	if a.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address is not allowed")
	}
	return a, nil
}

// parseCIDR accepts what Kubernetes' cidr() does.
func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address is not allowed")
	}
	return p, nil
}

func ipFromString(v ref.Val) ref.Val {
	s, err := str(v)
	if err != nil {
		return err
	}
	a, perr := parseIP(s)
	if perr != nil {
		return types.NewErr("IP Address %q parse error during conversion from string: %v", s, perr)
	}
	return newIP(a)
}

func cidrFromString(v ref.Val) ref.Val {
	s, err := str(v)
	if err != nil {
		return err
	}
	p, perr := parseCIDR(s)
	if perr != nil {
		return types.NewErr("network address parse error during conversion from string: %v", perr)
	}
	return newCIDR(p)
}

func (ipLib) CompileOptions() []cel.EnvOption {
	ipPred := func(name string, f func(netip.Addr) bool) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("ip_"+name, []*cel.Type{IPType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := unwrap[ipAddr](v)
				if err != nil {
					return err
				}
				return types.Bool(f(a.Addr))
			})))
	}
	cidrUnary := func(name string, out *cel.Type, f func(netip.Prefix) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("cidr_"+name, []*cel.Type{CIDRType}, out,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				p, err := unwrap[cidrPrefix](v)
				if err != nil {
					return err
				}
				return f(p.Prefix)
			})))
	}
	containsIP := func(c, ip ref.Val) ref.Val {
		p, err := unwrap[cidrPrefix](c)
		if err != nil {
			return err
		}
		if _, isStr := ip.(types.String); isStr {
			ip = ipFromString(ip)
			if types.IsError(ip) {
				return ip
			}
		}
		a, err := unwrap[ipAddr](ip)
		if err != nil {
			return err
		}
		return types.Bool(p.Contains(a.Addr))
	}
	containsCIDR := func(c, other ref.Val) ref.Val {
		p, err := unwrap[cidrPrefix](c)
		if err != nil {
			return err
		}
		if _, isStr := other.(types.String); isStr {
			other = cidrFromString(other)
			if types.IsError(other) {
				return other
			}
		}
		o, err := unwrap[cidrPrefix](other)
		if err != nil {
			return err
		}
		return types.Bool(p.Bits() <= o.Bits() && p.Contains(o.Addr()) && p.Addr().Is4() == o.Addr().Is4())
	}
	return []cel.EnvOption{
		cel.Function("ip",
			cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, IPType, cel.UnaryBinding(ipFromString)),
			cel.MemberOverload("cidr_ip", []*cel.Type{CIDRType}, IPType, cel.UnaryBinding(func(v ref.Val) ref.Val {
				p, err := unwrap[cidrPrefix](v)
				if err != nil {
					return err
				}
				return newIP(p.Addr())
			}))),
		cel.Function("isIP", cel.Overload("is_ip", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				_, perr := parseIP(s)
				return types.Bool(perr == nil)
			}))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				a, perr := parseIP(s)
				if perr != nil {
					return types.NewErr("IP Address %q parse error during conversion from string: %v", s, perr)
				}
				return types.Bool(a.String() == s)
			}))),
		cel.Function("family", cel.MemberOverload("ip_family", []*cel.Type{IPType}, cel.IntType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := unwrap[ipAddr](v)
				if err != nil {
					return err
				}
				if a.Is4() {
					return types.Int(4)
				}
				return types.Int(6)
			}))),
		ipPred("isUnspecified", netip.Addr.IsUnspecified),
		ipPred("isLoopback", netip.Addr.IsLoopback),
		ipPred("isLinkLocalMulticast", netip.Addr.IsLinkLocalMulticast),
		ipPred("isLinkLocalUnicast", netip.Addr.IsLinkLocalUnicast),
		ipPred("isGlobalUnicast", netip.Addr.IsGlobalUnicast),
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, CIDRType, cel.UnaryBinding(cidrFromString))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, err := str(v)
				if err != nil {
					return err
				}
				_, perr := parseCIDR(s)
				return types.Bool(perr == nil)
			}))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{CIDRType, IPType}, cel.BoolType, cel.BinaryBinding(containsIP)),
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType, cel.BinaryBinding(containsIP))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{CIDRType, CIDRType}, cel.BoolType, cel.BinaryBinding(containsCIDR)),
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType, cel.BinaryBinding(containsCIDR))),
		cidrUnary("prefixLength", cel.IntType, func(p netip.Prefix) ref.Val { return types.Int(p.Bits()) }),
		cidrUnary("masked", CIDRType, func(p netip.Prefix) ref.Val { return newCIDR(p.Masked()) }),
		cel.Function("string",
			cel.Overload("ip_to_string", []*cel.Type{IPType}, cel.StringType, cel.UnaryBinding(func(v ref.Val) ref.Val {
				a, err := unwrap[ipAddr](v)
				if err != nil {
					return err
				}
				return types.String(a.String())
			})),
			cel.Overload("cidr_to_string", []*cel.Type{CIDRType}, cel.StringType, cel.UnaryBinding(func(v ref.Val) ref.Val {
				p, err := unwrap[cidrPrefix](v)
				if err != nil {
					return err
				}
				return types.String(p.String())
			}))),
	}
}
