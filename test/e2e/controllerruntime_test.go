package e2e

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// widgetCRD is the custom resource of test/controllerruntime's operator:
// a structural schema whose spec.entries is a list keyed by key
// (x-kubernetes-list-type: map), with a status subresource.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.kubecore.io
spec:
  group: example.kubecore.io
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              entries:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [key]
                items:
                  type: object
                  required: [key]
                  properties:
                    key:
                      type: string
                    value:
                      type: string
          status:
            type: object
            properties:
              observedGeneration:
                type: integer
                format: int64
              configMapName:
                type: string
              keys:
                type: array
                x-kubernetes-list-type: atomic
                items:
                  type: string
`

// widgetOperatorLease is the leader election Lease the operator takes.
const widgetOperatorLease = "widget-operator.example.kubecore.io"

// widgetOperatorBinary builds test/controllerruntime's operator
// (hack/controller-runtime.sh, cached in _output/bin). It fails, never
// skips, when it cannot be built.
func widgetOperatorBinary(t *testing.T) string {
	t.Helper()
	bin, err := framework.BuildTool("controller-runtime.sh")
	if err != nil {
		t.Fatalf("build the widget operator: %v", err)
	}
	return bin
}

// startWidgetOperator runs the operator against s, watching ns, until the
// test ends; it returns its log.
func startWidgetOperator(t *testing.T, s *framework.APIServer, ns string) *syncBuf {
	t.Helper()
	bin := widgetOperatorBinary(t)
	log, _ := startLogged(t, "widget operator", exec.Command(bin, "--kubeconfig", s.Kubeconfig, "--namespace", ns, "--lease", widgetOperatorLease))
	return log
}

// managedFieldsOf lists an object's managedFields as
// "manager/operation/subresource".
func managedFieldsOf(o object) []string {
	var out []string
	entries, _ := o.field("metadata.managedFields").([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		sub, _ := m["subresource"].(string)
		out = append(out, fmt.Sprintf("%v/%v/%s", m["manager"], m["operation"], sub))
	}
	slices.Sort(out)
	return out
}

func widgetManifest(name string, entries ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: example.kubecore.io/v1\nkind: Widget\nmetadata:\n  name: %s\nspec:\n  entries:\n", name)
	for i := 0; i+1 < len(entries); i += 2 {
		fmt.Fprintf(&b, "  - key: %s\n    value: %q\n", entries[i], entries[i+1])
	}
	return b.String()
}

// TestControllerRuntimeApply runs an operator built on the stock
// controller-runtime (test/controllerruntime) against kubecore all-in-one:
// it takes its leader election Lease, fills its caches, applies a
// ConfigMap per Widget with client.Apply, a label on the Widget with
// Patch(obj, client.Apply) and the Widget's status with Status().Apply
// (server-side apply on a custom resource and its status); the ConfigMap follows edits of the Widget
// (removed keys removed by apply) and goes by garbage collection with it.
func TestControllerRuntimeApply(t *testing.T) {
	// Build first: a missing binary fails before a cluster is started.
	widgetOperatorBinary(t)
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "widgets")

	k.MustRunStdin(t, widgetCRD, "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Established", "crd/widgets.example.kubecore.io", "--timeout=30s")
	log := startWidgetOperator(t, s, ns)

	k.MustRunStdin(t, widgetManifest("alpha", "color", "blue", "size", "large", "shape", "round"), "apply", "-n", ns, "-f", "-")
	k.MustRunStdin(t, widgetManifest("beta", "only", "one"), "apply", "-n", ns, "-f", "-")

	configMap := func(name string) (object, string) {
		r := k.Run(t, "get", "configmap", name, "-n", ns, "-o", "json", "--show-managed-fields")
		if r.ExitCode != 0 {
			return nil, r.String()
		}
		return decodeJSON(t, r.Stdout), ""
	}
	data := func(o object) string {
		d, _ := o.field("data").(map[string]any)
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range d {
				if !yield(k) {
					return
				}
			}
		})
		var parts []string
		for _, key := range keys {
			parts = append(parts, fmt.Sprintf("%s=%v", key, d[key]))
		}
		return strings.Join(parts, ",")
	}
	waitData := func(name, want string) object {
		t.Helper()
		var got object
		eventually(t, 60*time.Second, func() string {
			o, msg := configMap(name)
			if msg != "" {
				return "config map " + name + ": " + msg
			}
			if d := data(o); d != want {
				return fmt.Sprintf("config map %s data %q, want %q", name, d, want)
			}
			got = o
			return ""
		})
		return got
	}

	alpha := waitData("alpha", "color=blue,shape=round,size=large")
	betaRV := waitData("beta", "only=one").str("metadata.resourceVersion")
	if got := managedFieldsOf(alpha); !slices.Equal(got, []string{"widget-operator/Apply/"}) {
		t.Errorf("config map alpha managedFields %v, want the operator's apply alone", got)
	}
	uid := k.MustRun(t, "get", "widget", "alpha", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	refs, _ := alpha.field("metadata.ownerReferences").([]any)
	if len(refs) != 1 {
		t.Fatalf("config map alpha ownerReferences %v, want the widget", refs)
	}
	ref, _ := refs[0].(map[string]any)
	if ref["kind"] != "Widget" || ref["name"] != "alpha" || ref["uid"] != uid || ref["controller"] != true || ref["apiVersion"] != "example.kubecore.io/v1" {
		t.Errorf("config map alpha ownerReference %v, want the controller reference to widget alpha %s", ref, uid)
	}
	if labels, _ := alpha.field("metadata.labels").(map[string]any); labels["app.kubernetes.io/managed-by"] != "widget-operator" {
		t.Errorf("config map alpha labels %v", labels)
	}

	// The status, applied through the status subresource.
	waitStatus := func(name, generation, keys string) object {
		t.Helper()
		var got object
		eventually(t, 60*time.Second, func() string {
			r := k.Run(t, "get", "widget", name, "-n", ns, "-o", "json", "--show-managed-fields")
			if r.ExitCode != 0 {
				return r.String()
			}
			o := decodeJSON(t, r.Stdout)
			gotKeys, _ := o.field("status.keys").([]any)
			if g := fmt.Sprint(o.field("status.observedGeneration")); g != generation || fmt.Sprint(gotKeys) != keys || o.str("status.configMapName") != name {
				return fmt.Sprintf("widget %s status %v, want observedGeneration %s and keys %s", name, o.field("status"), generation, keys)
			}
			got = o
			return ""
		})
		return got
	}
	betaWidgetRV := waitStatus("beta", "1", "[only]").str("metadata.resourceVersion")
	w := waitStatus("alpha", "1", "[color shape size]")
	if labels, _ := w.field("metadata.labels").(map[string]any); labels["example.kubecore.io/configmap"] != "alpha" {
		t.Errorf("widget alpha labels %v, want the operator's example.kubecore.io/configmap=alpha", labels)
	}
	if got, want := managedFieldsOf(w), []string{"kubectl-client-side-apply/Update/", "widget-operator/Apply/", "widget-operator/Apply/status"}; !slices.Equal(got, want) {
		t.Errorf("widget alpha managedFields %v, want %v", got, want)
	}

	// The leader election Lease is held by the operator.
	holder := k.MustRun(t, "get", "lease", widgetOperatorLease, "-n", ns, "-o", "jsonpath={.spec.holderIdentity}")
	if holder == "" {
		t.Errorf("lease %s has no holder", widgetOperatorLease)
	}

	// Edit the widget: one key removed, one changed, one added. The
	// operator's next apply leaves out the removed key, and the server
	// removes it as the operator alone owned it.
	k.MustRunStdin(t, widgetManifest("alpha", "color", "red", "shape", "round", "weight", "light"), "apply", "-n", ns, "-f", "-")
	waitData("alpha", "color=red,shape=round,weight=light")
	waitStatus("alpha", "2", "[color shape weight]")

	// A key another manager added to the config map stays: the operator
	// never applied it, so its applies do not remove it.
	k.MustRun(t, "patch", "configmap", "alpha", "-n", ns, "--type", "merge", "-p", `{"data":{"extra":"kept"}}`, "--field-manager", "someone-else")
	k.MustRunStdin(t, widgetManifest("alpha", "color", "red", "weight", "light"), "apply", "-n", ns, "-f", "-")
	alpha = waitData("alpha", "color=red,extra=kept,weight=light")
	if got, want := managedFieldsOf(alpha), []string{"someone-else/Update/", "widget-operator/Apply/"}; !slices.Equal(got, want) {
		t.Errorf("config map alpha managedFields %v, want %v", got, want)
	}

	// Deleting the widget garbage-collects its config map; beta's stays.
	k.MustRun(t, "delete", "widget", "alpha", "-n", ns)
	eventually(t, 60*time.Second, func() string {
		if r := k.Run(t, "get", "configmap", "alpha", "-n", ns); r.ExitCode == 0 {
			return "config map alpha still exists after its widget was deleted"
		}
		return ""
	})
	// beta was reconciled again after its config map was written (its
	// status and label changed, its config map was created): those
	// applies changed nothing, so they wrote nothing.
	if rv := k.MustRun(t, "get", "widget", "beta", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}"); rv != betaWidgetRV {
		t.Errorf("widget beta resourceVersion %s, want %s: a no-op apply wrote", rv, betaWidgetRV)
	}
	if rv := waitData("beta", "only=one").str("metadata.resourceVersion"); rv != betaRV {
		t.Errorf("config map beta resourceVersion %s, want %s: a no-op apply wrote", rv, betaRV)
	}
	if strings.Contains(log.String(), "\"error\"") || strings.Contains(log.String(), "ERROR") {
		t.Errorf("the operator logged errors:\n%s", log.String())
	}
}
