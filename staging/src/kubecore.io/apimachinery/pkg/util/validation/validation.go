// Package validation checks the string formats the Kubernetes API uses
// (DNS names, qualified names, label values, ports, IPs) with its exact messages.
package validation

import (
	"fmt"
	"strings"
)

// Length limits of the formats.
const (
	DNS1123LabelMaxLength     = 63
	DNS1123SubdomainMaxLength = 253
	DNS1035LabelMaxLength     = 63
	QualifiedNameMaxLength    = 63
	LabelValueMaxLength       = 63
	PortNameMaxLength         = 15
)

// The regular expressions the messages quote. Validation itself scans the
// bytes by hand: the label selector parser calls these per requirement.
const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + `(\.` + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
	cIdentifierFmt      = "[A-Za-z_][A-Za-z0-9_]*"
	envVarNameFmt       = "[-._a-zA-Z][-._a-zA-Z0-9]*"
	configMapKeyFmt     = "[-._a-zA-Z0-9]+"
)

const (
	dns1123LabelErrMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1123SubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1035LabelErrMsg     = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	qualifiedNameErrMsg    = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueErrMsg       = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	cIdentifierErrMsg      = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'"
	envVarNameErrMsg       = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit"
	configMapKeyErrMsg     = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
)

// IsDNS1123Label checks an RFC 1123 label, such as a namespace name.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, MaxLenError(DNS1123LabelMaxLength))
	}
	if !isDNS1123Label(value) {
		if isDNS1123Subdomain(value) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, RegexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain checks an RFC 1123 subdomain, the format of most object
// names.
func IsDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, MaxLenError(DNS1123SubdomainMaxLength))
	}
	if !isDNS1123Subdomain(value) {
		errs = append(errs, RegexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1035Label checks an RFC 1035 label, such as a service name: it must
// start with a letter.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > DNS1035LabelMaxLength {
		errs = append(errs, MaxLenError(DNS1035LabelMaxLength))
	}
	if !isDNS1035Label(value) {
		errs = append(errs, RegexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsQualifiedName checks a qualified name: a name part with an optional DNS
// subdomain prefix and '/', the format of label and annotation keys and of
// finalizers.
func IsQualifiedName(value string) []string {
	prefix, name, hasPrefix := strings.Cut(value, "/")
	if hasPrefix && strings.Contains(name, "/") {
		return []string{"a qualified name " + RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	if !hasPrefix {
		name = value
	}
	var errs []string
	if hasPrefix {
		if prefix == "" {
			errs = append(errs, "prefix part "+EmptyError())
		} else {
			for _, msg := range IsDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	}
	switch {
	case name == "":
		errs = append(errs, "name part "+EmptyError())
	case len(name) > QualifiedNameMaxLength:
		errs = append(errs, "name part "+MaxLenError(QualifiedNameMaxLength))
	}
	if !isQualifiedNamePart(name) {
		errs = append(errs, "name part "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue checks a label value, which may be empty.
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, MaxLenError(LabelValueMaxLength))
	}
	if value != "" && !isQualifiedNamePart(value) {
		errs = append(errs, RegexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// IsCIdentifier checks an identifier of the C language; the length is not
// limited.
func IsCIdentifier(value string) []string {
	ok := value != "" && !isDigit(value[0])
	for i := 0; ok && i < len(value); i++ {
		c := value[i]
		ok = isAlnum(c) || c == '_'
	}
	if !ok {
		return []string{RegexError(cIdentifierErrMsg, cIdentifierFmt, "my_name", "MY_NAME", "MyName")}
	}
	return nil
}

// IsEnvVarName checks the name of an environment variable.
func IsEnvVarName(value string) []string {
	var errs []string
	ok := value != "" && !isDigit(value[0])
	for i := 0; ok && i < len(value); i++ {
		c := value[i]
		ok = isAlnum(c) || c == '-' || c == '.' || c == '_'
	}
	if !ok {
		errs = append(errs, RegexError(envVarNameErrMsg, envVarNameFmt, "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
	}
	return append(errs, chdirPrefixErrors(value)...)
}

// IsConfigMapKey checks a key of a ConfigMap or Secret, which becomes a file
// name when mounted.
func IsConfigMapKey(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, MaxLenError(DNS1123SubdomainMaxLength))
	}
	ok := value != ""
	for i := 0; ok && i < len(value); i++ {
		c := value[i]
		ok = isAlnum(c) || c == '-' || c == '.' || c == '_'
	}
	if !ok {
		errs = append(errs, RegexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name"))
	}
	return append(errs, chdirPrefixErrors(value)...)
}

// IsValidPortNum checks a port number in 1..65535.
func IsValidPortNum(port int) []string {
	return IsInRange(port, 1, 65535)
}

// IsInRange checks lo <= value <= hi.
func IsInRange(value, lo, hi int) []string {
	if value < lo || value > hi {
		return []string{InclusiveRangeError(lo, hi)}
	}
	return nil
}

// IsValidPortName checks an IANA service name as used for named ports: at
// most 15 characters of [-a-z0-9], at least one letter, no leading, trailing
// or doubled hyphen.
func IsValidPortName(port string) []string {
	var errs []string
	if len(port) > PortNameMaxLength {
		errs = append(errs, MaxLenError(PortNameMaxLength))
	}
	charsetOK, hasLetter := port != "", false
	for i := 0; i < len(port); i++ {
		c := port[i]
		switch {
		case isLower(c):
			hasLetter = true
		case isDigit(c) || c == '-':
		default:
			charsetOK = false
		}
	}
	if !charsetOK {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !hasLetter {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if port != "" && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// MaxLenError is the message for a string longer than length.
func MaxLenError(length int) string {
	return fmt.Sprintf("must be no more than %d characters", length)
}

// EmptyError is the message for an empty string that must not be.
func EmptyError() string {
	return "must be non-empty"
}

// InclusiveRangeError is the message for a number outside lo..hi.
func InclusiveRangeError(lo, hi int) string {
	return fmt.Sprintf("must be between %d and %d, inclusive", lo, hi)
}

// RegexError is the message for a value that does not match the regular
// expression re, with the description msg and optional examples. The
// examples are joined as Kubernetes joins them ("'a',  or 'b', ").
func RegexError(msg, re string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (")
	if len(examples) > 0 {
		b.WriteString("e.g. ")
		for i, ex := range examples {
			if i > 0 {
				b.WriteString(" or ")
			}
			b.WriteString("'" + ex + "', ")
		}
	}
	b.WriteString("regex used for validation is '" + re + "')")
	return b.String()
}

func chdirPrefixErrors(value string) []string {
	switch {
	case value == ".":
		return []string{"must not be '.'"}
	case value == "..":
		return []string{"must not be '..'"}
	case strings.HasPrefix(value, ".."):
		return []string{"must not start with '..'"}
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool { return isDigit(c) || isLower(c) || 'A' <= c && c <= 'Z' }

// isDNS1123Label matches [a-z0-9]([-a-z0-9]*[a-z0-9])? without a length limit.
func isDNS1123Label(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLower(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain matches dot-separated RFC 1123 labels.
func isDNS1123Subdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isDNS1123Label(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isDNS1035Label is isDNS1123Label starting with a letter.
func isDNS1035Label(s string) bool {
	return isDNS1123Label(s) && isLower(s[0])
}

// isQualifiedNamePart matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
func isQualifiedNamePart(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
