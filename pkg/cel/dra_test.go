package cel

import (
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// TestDeviceSelectors checks what the DRA environment accepts (the
// device's fields, typed; the libraries; bindings) and the errors it
// gives, at the expression's field, for the rest.
func TestDeviceSelectors(t *testing.T) {
	p := field.NewPath("spec", "selectors").Index(0).Child("cel", "expression")
	var d DeviceSelectors
	for _, expr := range []string{
		`device.driver == "gpu.example.com"`,
		`device.attributes["gpu.example.com"].model == "a100"`,
		`device.attributes["gpu.example.com"].cores > 8`,
		`device.attributes["gpu.example.com"].version.isGreaterThan(semver("1.2.3"))`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("8Gi")) >= 0`,
		`"gpu.example.com" in device.attributes && device.attributes["gpu.example.com"].exists(k, k.startsWith("m"))`,
		`cel.bind(gpu, device.attributes["gpu.example.com"], gpu.a && gpu.b)`,
		`device.allowMultipleAllocations`,
		`device.attributes["gpu.example.com"].model.matches("^a[0-9]+$")`,
		`dyn(true)`,
	} {
		if err := d.Check(expr, p); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
	for _, tc := range []struct {
		expr string
		want string
	}{
		{`device.driver ==`, `spec.selectors[0].cel.expression: Invalid value: "device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error`},
		{`device.vendor == "x"`, `compilation failed: ERROR: <input>:1:7: undefined field 'vendor'`},
		{`self.driver == "x"`, `undeclared reference to 'self'`},
		{`device.driver`, `must evaluate to bool or the unknown type, not string`},
		{`device.driver == 1`, `found no matching overload for '_==_' applied to '(string, int)'`},
		{`device.capacity["a"].memory == 1`, `found no matching overload for '_==_' applied to '(kubernetes.Quantity, int)'`},
	} {
		err := d.Check(tc.expr, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.expr, err, tc.want)
		}
		if err != nil && err.Field != p.String() {
			t.Errorf("%s: field %s, want %s", tc.expr, err.Field, p)
		}
	}
	// A comprehension over every attribute of every domain, nested,
	// costs more than the limit.
	costly := `device.attributes.all(d, device.attributes[d].all(a, device.attributes.all(e, device.attributes[e].all(b, string(device.attributes[d][a]).matches(string(device.attributes[e][b]))))))`
	err := d.Check(costly, p)
	if err == nil || err.Type != field.ErrorTypeForbidden || err.Detail != "too complex, exceeds cost limit" {
		t.Errorf("costly selector: got %v, want Forbidden: too complex, exceeds cost limit", err)
	}
}
