package e2e

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestDebugEphemeralContainers runs `kubectl debug -it --image=busybox`
// against a running pod with the stock kubectl and the bundled CLI: the
// ephemeral container is added through pods/ephemeralcontainers (a
// strategic merge patch), runs the command beside the pod with the input
// given, and reports its status; removing it again is refused as
// Kubernetes refuses it, and so is a pod created with one.
func TestDebugEphemeralContainers(t *testing.T) {
	node, _ := startKubelet(t, server)
	ns := server.CreateNamespace(t, "debug")
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	onNode := `--overrides={"apiVersion":"v1","spec":{"nodeName":"` + node + `"}}`
	k := server.Kubectl(t)
	k.MustRun(t, "run", "target", "-n", ns, "--image=busybox", onNode, "--", "sh", "-c", "echo started; sleep 3600")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/target", "-n", ns, "--timeout=60s")

	for i, tc := range []struct {
		name string
		cli  *framework.Kubectl
	}{{"stock", k}, {"bundled", server.CLI(bin, "kubectl")}} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.cli.RunStdin(t, "echo hello from the debugger of "+tc.name+"\nexit 0\n",
				"debug", "pod/target", "-n", ns, "-it", "--image=busybox", "--target=target", "--", "sh")
			if r.ExitCode != 0 || !strings.Contains(r.Stdout, "hello from the debugger of "+tc.name) {
				t.Fatalf("debug -it: %s", r)
			}
			idx := strconv.Itoa(i)
			eventually(t, 30*time.Second, func() string {
				got := k.Run(t, "get", "pod", "target", "-n", ns, "-o", "jsonpath={.spec.ephemeralContainers["+idx+"].targetContainerName}|{.status.ephemeralContainerStatuses["+idx+"].state.terminated.exitCode}")
				if got.Stdout != "target|0" {
					return "ephemeral container " + idx + ": " + got.String()
				}
				return ""
			})
		})
	}
	// The pod itself ran on, and its container never restarted.
	if got := k.MustRun(t, "get", "pod", "target", "-n", ns, "-o", "jsonpath={.status.phase}/{.status.containerStatuses[0].restartCount}"); got != "Running/0" {
		t.Errorf("target after debugging: %s", got)
	}

	// Removing an ephemeral container is refused.
	var pod map[string]any
	if err := json.Unmarshal([]byte(k.MustRun(t, "get", "pod", "target", "-n", ns, "-o", "json")), &pod); err != nil {
		t.Fatal(err)
	}
	spec := pod["spec"].(map[string]any)
	ecs := spec["ephemeralContainers"].([]any)
	spec["ephemeralContainers"] = ecs[1:]
	b, _ := json.Marshal(pod)
	r := k.MustFail(t, string(b), "replace", "--raw", "/api/v1/namespaces/"+ns+"/pods/target/ephemeralcontainers", "-f", "-")
	name := ecs[0].(map[string]any)["name"].(string)
	if !strings.Contains(r.Stderr, `existing ephemeral containers "`+name+`" may not be removed`) {
		t.Errorf("removing an ephemeral container: %s", r)
	}
	// A pod may not be created with one.
	r = k.MustFail(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"born-debugged"},"spec":{"containers":[{"name":"c","image":"busybox"}],`+
		`"ephemeralContainers":[{"name":"d","image":"busybox"}]}}`, "create", "-n", ns, "-f", "-")
	if !strings.Contains(r.Stderr, "spec.ephemeralContainers: Forbidden: cannot be set on create") {
		t.Errorf("creating a pod with an ephemeral container: %s", r)
	}
}

// TestDebugCopyToPortConflict copies a pod whose port is taken to the
// same node with `kubectl debug --copy-to`: the copy's container is
// started, and a PortInUse Warning says why it may fail.
func TestDebugCopyToPortConflict(t *testing.T) {
	node, _ := startKubelet(t, server)
	ns := server.CreateNamespace(t, "debugcopy")
	// The process runtime's pods share the host's network: a server of the
	// test holds the pod's port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	k := server.Kubectl(t)
	k.MustRunStdin(t, `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: `+node+`
  containers:
  - name: web
    image: registry.k8s.io/pause:3.10
    ports: [{containerPort: `+port+`}]
`, "apply", "-n", ns, "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/web", "-n", ns, "--timeout=60s")
	k.MustRun(t, "debug", "pod/web", "-n", ns, "--copy-to=web-copy", "--same-node", "--image=busybox", "--", "sleep", "3600")
	eventually(t, 60*time.Second, func() string {
		r := k.Run(t, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=web-copy,reason=PortInUse", "-o", "jsonpath={.items[*].message}")
		want := "Container port " + port + "/TCP is already in use on node " + node + " (pod " + ns + "/web declares it too)"
		if !strings.Contains(r.Stdout, want) {
			return "no PortInUse event yet: " + r.String()
		}
		return ""
	})
}
