package cel

import (
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
)

// eval compiles and runs an expression of the base environment.
func eval(t *testing.T, expr string) (any, error) {
	t.Helper()
	env, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	prg, err := env.Program(ast, cel.CostLimit(PerCallLimit))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(cel.NoVars())
	if err != nil {
		return nil, err
	}
	return out.Value(), nil
}

// TestLibraries checks each function of Kubernetes' libraries: every
// expression must evaluate to true.
func TestLibraries(t *testing.T) {
	for _, expr := range []string{
		// lists
		`[1, 2, 2, 3].isSorted()`, `!["b", "a"].isSorted()`, `[].isSorted()`,
		`[1, 2, 3].sum() == 6`, `[1.5, 2.5].sum() == 4.0`, `[duration('1s'), duration('2s')].sum() == duration('3s')`,
		`dyn([]).sum() == 0`,
		`[3, 1, 2].min() == 1`, `[3, 1, 2].max() == 3`, `["b", "c", "a"].max() == "c"`,
		`[1, 2, 1].indexOf(1) == 0`, `[1, 2, 1].lastIndexOf(1) == 2`, `[1, 2].indexOf(5) == -1`,
		// regex
		`"abc 123".find('[0-9]+') == "123"`, `"abc".find('[0-9]+') == ""`,
		`"a1 b2 c3".findAll('[a-z][0-9]') == ["a1", "b2", "c3"]`, `"a1 b2 c3".findAll('[a-z][0-9]', 2) == ["a1", "b2"]`,
		// URLs
		`url('https://example.com:8080/a%20b?x=1&x=2').getScheme() == 'https'`,
		`url('https://example.com:8080/path').getHost() == 'example.com:8080'`,
		`url('https://[::1]:80/').getHostname() == '::1'`,
		`url('https://example.com:8080/').getPort() == '8080'`,
		`url('https://example.com/a%20b').getEscapedPath() == '/a%20b'`,
		`url('https://example.com/?x=1&x=2&y=3').getQuery() == {'x': ['1', '2'], 'y': ['3']}`,
		`isURL('https://example.com/')`, `isURL('/absolute/path')`, `!isURL('not a url')`,
		// quantity
		`quantity('1Gi').isGreaterThan(quantity('1G'))`, `quantity('500m').isLessThan(quantity('1'))`,
		`quantity('1').add(quantity('500m')) == quantity('1500m')`, `quantity('2').sub(1) == quantity('1')`,
		`quantity('1').add(2).asInteger() == 3`, `quantity('1.5').asApproximateFloat() == 1.5`,
		`quantity('-1').sign() == -1`, `quantity('1k').isInteger()`, `!quantity('1m').isInteger()`,
		`quantity('1k').compareTo(quantity('1000')) == 0`, `isQuantity('200Mi')`, `!isQuantity('2x')`,
		// IP and CIDR
		`isIP('10.0.0.1')`, `isIP('fe80::1')`, `!isIP('::ffff:1.2.3.4')`, `!isIP('fe80::1%eth0')`, `!isIP('1.2.3')`,
		`ip('10.0.0.1').family() == 4`, `ip('::1').family() == 6`, `ip('::1').isLoopback()`,
		`ip('0.0.0.0').isUnspecified()`, `ip('ff02::1').isLinkLocalMulticast()`, `ip('fe80::1').isLinkLocalUnicast()`,
		`ip('8.8.8.8').isGlobalUnicast()`, `string(ip('2001:db8::1')) == '2001:db8::1'`,
		`ip.isCanonical('2001:db8::1')`, `!ip.isCanonical('2001:DB8::1')`,
		`cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))`, `cidr('10.0.0.0/8').containsIP('10.1.2.3')`, `!cidr('10.0.0.0/8').containsIP('11.0.0.1')`,
		`cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')`, `!cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))`,
		`cidr('10.1.2.3/8').prefixLength() == 8`, `cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')`,
		`cidr('10.1.2.3/8').ip() == ip('10.1.2.3')`, `isCIDR('::/0')`, `!isCIDR('10.0.0.0')`,
		`string(cidr('10.0.0.0/8')) == '10.0.0.0/8'`,
		// format
		`!format.dns1123Label().validate('my-name').hasValue()`,
		`format.dns1123Label().validate('My_Name').hasValue()`,
		`format.named('dns1123Subdomain').value().validate('a.b').hasValue() == false`,
		`!format.named('nope').hasValue()`,
		`format.labelValue().validate('` + strings.Repeat("x", 64) + `').hasValue()`,
		`format.uuid().validate('123e4567-e89b-12d3-a456-426614174000') == optional.none()`,
		`format.dns1123LabelPrefix().validate('prefix-') == optional.none()`,
		// semver
		`isSemver('1.2.3-alpha.1+build')`, `!isSemver('v1.2.3')`, `isSemver('v1.2', true)`,
		`semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3`,
		`semver('1.2.3').isGreaterThan(semver('1.2.3-rc.1'))`, `semver('1.2.3-alpha').isLessThan(semver('1.2.3-beta'))`,
		`semver('1.0.0-2').compareTo(semver('1.0.0-10')) == -1`, `semver('v01.2', true) == semver('1.2.0')`,
		// strings extension and optionals
		`'a,b'.split(',') == ['a', 'b']`, `'Hello'.lowerAscii() == 'hello'`, `'abc'.substring(1) == 'bc'`,
		`{'a': 1}[?'b'].orValue(2) == 2`, `optional.of(1).value() == 1`,
		`[1, 2].all(i, v, v > i)`, `sets.contains([1, 2, 3], [1, 2])`,
	} {
		got, err := eval(t, expr)
		if err != nil || got != true {
			t.Errorf("%s = %v, %v; want true", expr, got, err)
		}
	}
}

// TestLibraryErrors checks the runtime errors of the libraries.
func TestLibraryErrors(t *testing.T) {
	for expr, want := range map[string]string{
		`[].min()`:                   "min called on empty list",
		`url('not a url')`:           "URL parse error during conversion from string",
		`ip('1.2.3')`:                `IP Address "1.2.3" parse error during conversion from string`,
		`cidr('10.0.0.0')`:           "network address parse error during conversion from string",
		`quantity('1m').asInteger()`: "cannot convert value to integer",
		`semver('1.2')`:              "Semver parse error during conversion from string",
		`'abc'.find('[')`:            "error parsing regexp",
	} {
		_, err := eval(t, expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", expr, err, want)
		}
	}
	// A list of mixed types does not type-check for min.
	if _, err := eval(t, `[1, 'a'].min()`); err == nil {
		t.Error("mixed list: want a compile error")
	}
}
