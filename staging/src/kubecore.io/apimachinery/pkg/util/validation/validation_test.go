package validation

import (
	"slices"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/util/validation/field"
)

const (
	subdomainMsg     = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	labelMsg         = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	dns1035Msg       = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`
	namePartMsg      = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	labelValueMsg    = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	cIdentMsg        = `a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`
	envVarMsg        = `a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`
	configMapKeyMsg  = `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`
	qualifiedNameMsg = `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
)

type stringCase struct {
	in   string
	want []string
}

func runStringCases(t *testing.T, name string, fn func(string) []string, cases []stringCase) {
	t.Helper()
	for _, tc := range cases {
		if got := fn(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s(%q)\n got  %q\n want %q", name, tc.in, got, tc.want)
		}
	}
}

func TestIsDNS1123Subdomain(t *testing.T) {
	runStringCases(t, "IsDNS1123Subdomain", IsDNS1123Subdomain, []stringCase{
		{"a", nil}, {"example.com", nil}, {"0", nil}, {"a-b.c-d.e", nil}, {"11.22.33", nil},
		{strings.Repeat("a", 253), nil},
		{"", []string{subdomainMsg}},
		{"A", []string{subdomainMsg}},
		{"a.", []string{subdomainMsg}},
		{".a", []string{subdomainMsg}},
		{"a..b", []string{subdomainMsg}},
		{"-a", []string{subdomainMsg}},
		{"a_b", []string{subdomainMsg}},
		{"a.-b", []string{subdomainMsg}},
		{strings.Repeat("a", 254), []string{"must be no more than 253 characters"}},
		{strings.Repeat("A", 254), []string{"must be no more than 253 characters", subdomainMsg}},
	})
}

func TestIsDNS1123Label(t *testing.T) {
	runStringCases(t, "IsDNS1123Label", IsDNS1123Label, []stringCase{
		{"a", nil}, {"my-name", nil}, {"123-abc", nil}, {strings.Repeat("a", 63), nil},
		{"", []string{labelMsg}},
		{"a.b", []string{"must not contain dots"}},
		{"My-name", []string{labelMsg}},
		{"a-", []string{labelMsg}},
		{"a_b", []string{labelMsg}},
		{strings.Repeat("a", 64), []string{"must be no more than 63 characters"}},
	})
}

func TestIsDNS1035Label(t *testing.T) {
	runStringCases(t, "IsDNS1035Label", IsDNS1035Label, []stringCase{
		{"a", nil}, {"my-name", nil}, {"abc-123", nil},
		{"1abc", []string{dns1035Msg}},
		{"", []string{dns1035Msg}},
		{"abc-", []string{dns1035Msg}},
		{"a.b", []string{dns1035Msg}},
		{"a" + strings.Repeat("b", 63), []string{"must be no more than 63 characters"}},
	})
}

func TestIsQualifiedName(t *testing.T) {
	runStringCases(t, "IsQualifiedName", IsQualifiedName, []stringCase{
		{"app", nil}, {"App.Name_1-x", nil}, {"example.com/MyName", nil}, {"kubernetes.io/hostname", nil},
		{"1", nil}, {"k8s.io/" + strings.Repeat("a", 63), nil},
		{"", []string{"name part must be non-empty", namePartMsg}},
		{"/a", []string{"prefix part must be non-empty"}},
		{"a/", []string{"name part must be non-empty", namePartMsg}},
		{"a/b/c", []string{qualifiedNameMsg}},
		{"Example.com/a", []string{"prefix part " + subdomainMsg}},
		{"-app", []string{namePartMsg}},
		{"app_", []string{namePartMsg}},
		{"a b", []string{namePartMsg}},
		{strings.Repeat("a", 64), []string{"name part must be no more than 63 characters"}},
		{strings.Repeat("a", 254) + "/b", []string{"prefix part must be no more than 253 characters"}},
	})
}

func TestIsValidLabelValue(t *testing.T) {
	runStringCases(t, "IsValidLabelValue", IsValidLabelValue, []stringCase{
		{"", nil}, {"MyValue", nil}, {"my_value", nil}, {"12345", nil}, {"a.b-c_d", nil}, {strings.Repeat("x", 63), nil},
		{"-a", []string{labelValueMsg}},
		{"a/b", []string{labelValueMsg}},
		{"a b", []string{labelValueMsg}},
		{"ä", []string{labelValueMsg}},
		{strings.Repeat("x", 64), []string{"must be no more than 63 characters"}},
		{strings.Repeat("x", 63) + "-", []string{"must be no more than 63 characters", labelValueMsg}},
	})
}

func TestIdentifiersAndKeys(t *testing.T) {
	runStringCases(t, "IsCIdentifier", IsCIdentifier, []stringCase{
		{"a", nil}, {"_x1", nil}, {"MY_NAME", nil},
		{"", []string{cIdentMsg}}, {"1a", []string{cIdentMsg}}, {"a-b", []string{cIdentMsg}},
	})
	runStringCases(t, "IsEnvVarName", IsEnvVarName, []stringCase{
		{"PATH", nil}, {"my.env-name", nil}, {"_", nil},
		{"1A", []string{envVarMsg}}, {"A=B", []string{envVarMsg}}, {"", []string{envVarMsg}},
		{"..", []string{"must not be '..'"}}, {"..a", []string{"must not start with '..'"}}, {".", []string{"must not be '.'"}},
	})
	runStringCases(t, "IsConfigMapKey", IsConfigMapKey, []stringCase{
		{"key.name", nil}, {"KEY_NAME", nil}, {".dotfile", nil}, {"1", nil},
		{"", []string{configMapKeyMsg}}, {"a/b", []string{configMapKeyMsg}}, {"..", []string{"must not be '..'"}},
		{strings.Repeat("k", 254), []string{"must be no more than 253 characters"}},
	})
}

func TestPorts(t *testing.T) {
	for _, p := range []int{1, 80, 65535} {
		if errs := IsValidPortNum(p); errs != nil {
			t.Errorf("IsValidPortNum(%d) = %q", p, errs)
		}
	}
	for _, p := range []int{0, -1, 65536} {
		if errs := IsValidPortNum(p); !slices.Equal(errs, []string{"must be between 1 and 65535, inclusive"}) {
			t.Errorf("IsValidPortNum(%d) = %q", p, errs)
		}
	}
	if errs := IsInRange(5, 0, 4); !slices.Equal(errs, []string{"must be between 0 and 4, inclusive"}) {
		t.Errorf("IsInRange = %q", errs)
	}
	runStringCases(t, "IsValidPortName", IsValidPortName, []stringCase{
		{"http", nil}, {"h2c-1", nil}, {"a", nil},
		{"", []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must contain at least one letter (a-z)"}},
		{"8080", []string{"must contain at least one letter (a-z)"}},
		{"HTTP", []string{"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must contain at least one letter (a-z)"}},
		{"a--b", []string{"must not contain consecutive hyphens"}},
		{"-ab", []string{"must not begin or end with a hyphen"}},
		{"abcdefghijklmnop", []string{"must be no more than 15 characters"}},
	})
}

func TestIP(t *testing.T) {
	p := field.NewPath("spec", "clusterIP")
	for _, ok := range []string{"10.9.8.7", "2001:db8::ffff", "::1", "010.001.0.1", "::ffff:1.2.3.4"} {
		if errs := IsValidIP(p, ok); errs != nil {
			t.Errorf("IsValidIP(%q) = %v", ok, errs)
		}
	}
	for _, bad := range []string{"", "1.2.3", "1.2.3.256", "a.b.c.d", "1.2.3.4/32", "::g"} {
		errs := IsValidIP(p, bad)
		want := `spec.clusterIP: Invalid value: "` + bad + `": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`
		if len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("IsValidIP(%q) = %v", bad, errs)
		}
	}
	if IsValidIPv4Address(p, "::1") == nil || IsValidIPv4Address(p, "1.2.3.4") != nil {
		t.Error("IsValidIPv4Address")
	}
	if IsValidIPv6Address(p, "1.2.3.4") == nil || IsValidIPv6Address(p, "fe80::1") != nil {
		t.Error("IsValidIPv6Address")
	}
	for _, ok := range []string{"10.9.8.0/24", "2001:db8::/64", "10.0.0.1/32", "010.0.0.0/8"} {
		if errs := IsValidCIDR(p, ok); errs != nil {
			t.Errorf("IsValidCIDR(%q) = %v", ok, errs)
		}
	}
	for _, bad := range []string{"10.0.0.0", "10.0.0.0/33", "x/8", "2001:db8::/129", "/8"} {
		if errs := IsValidCIDR(p, bad); len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)") {
			t.Errorf("IsValidCIDR(%q) = %v", bad, errs)
		}
	}
}
