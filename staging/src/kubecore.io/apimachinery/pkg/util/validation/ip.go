package validation

import (
	"net"
	"strings"

	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// IsValidIP checks an IPv4 or IPv6 address. Like Kubernetes it accepts IPv4
// octets with leading zeros, which older releases allowed.
func IsValidIP(fldPath *field.Path, value string) field.ErrorList {
	if ParseIPSloppy(value) == nil {
		return field.ErrorList{field.Invalid(fldPath, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	return nil
}

// IsValidIPv4Address checks an IPv4 address.
func IsValidIPv4Address(fldPath *field.Path, value string) field.ErrorList {
	if ip := ParseIPSloppy(value); ip == nil || ip.To4() == nil {
		return field.ErrorList{field.Invalid(fldPath, value, "must be a valid IPv4 address")}
	}
	return nil
}

// IsValidIPv6Address checks an IPv6 address.
func IsValidIPv6Address(fldPath *field.Path, value string) field.ErrorList {
	if ip := ParseIPSloppy(value); ip == nil || ip.To4() != nil {
		return field.ErrorList{field.Invalid(fldPath, value, "must be a valid IPv6 address")}
	}
	return nil
}

// IsValidCIDR checks a CIDR such as 10.9.8.0/24 or 2001:db8::/64.
func IsValidCIDR(fldPath *field.Path, value string) field.ErrorList {
	addr, bits, ok := strings.Cut(value, "/")
	if ok && ParseIPSloppy(addr) != nil {
		if _, _, err := net.ParseCIDR(trimIPv4Zeros(addr) + "/" + bits); err == nil {
			return nil
		}
	}
	return field.ErrorList{field.Invalid(fldPath, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
}

// ParseIPSloppy is net.ParseIP that also reads IPv4 octets with leading
// zeros as decimal.
func ParseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	if strings.Count(s, ".") == 3 && !strings.Contains(s, ":") {
		return net.ParseIP(trimIPv4Zeros(s))
	}
	return nil
}

// trimIPv4Zeros drops the leading zeros of each dotted octet; other input
// is returned unchanged.
func trimIPv4Zeros(s string) string {
	if strings.Contains(s, ":") {
		return s
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		t := strings.TrimLeft(p, "0")
		if t == "" && p != "" {
			t = "0"
		}
		parts[i] = t
	}
	return strings.Join(parts, ".")
}
