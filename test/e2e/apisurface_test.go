package e2e

import (
	"fmt"
	"testing"
)

// TestKubectlCreatePriorityClass: `kubectl create priorityclass` makes
// the class, listed with the columns kubectl shows against Kubernetes.
func TestKubectlCreatePriorityClass(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	name := server.CreateNamespace(t, "pc") // a unique name
	expectContains(t, "create priorityclass", k.MustRun(t, "create", "priorityclass", name, "--value=1000", "--description=batch", "--preemption-policy=Never"),
		"priorityclass.scheduling.k8s.io/"+name+" created")
	t.Cleanup(func() { k.Run(t, "delete", "priorityclass", name, "--ignore-not-found") })
	tb := parseTable(t, k.MustRun(t, "get", "priorityclass", name))
	expectHeader(t, "priorityclasses", tb, "NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY")
	if r := tb.row(t, name); r["VALUE"] != "1000" || r["GLOBAL-DEFAULT"] != "false" || r["PREEMPTIONPOLICY"] != "Never" {
		t.Errorf("priorityclass row %v", r)
	}
}

// TestDeviceClassBadSelector: the stock kubectl shows the CEL compiler's
// error, at the expression's field, for a DeviceClass selector that does
// not compile; nothing is stored.
func TestDeviceClassBadSelector(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	name := server.CreateNamespace(t, "dc") // a unique name
	r := k.RunStdin(t, fmt.Sprintf("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: %s}\nspec:\n  selectors:\n  - cel: {expression: 'device.driver =='}\n", name), "create", "-f", "-")
	expectContains(t, "bad selector", r.Stderr,
		`The DeviceClass "`+name+`" is invalid: spec.selectors[0].cel.expression: Invalid value: "device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error`)
	if r := k.Run(t, "get", "deviceclass", name); r.ExitCode == 0 {
		t.Errorf("the refused DeviceClass was stored: %s", r.Stdout)
	}
}
