package e2e

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
	"kubecore.io/kubecore/test/integration/cri/containerd"
)

// TestImageLayoutEntrypoints: the process runtime runs the Entrypoint and
// Cmd, with the Env and WorkingDir, of an image in an OCI archive given by
// --image-layout, for pods with no command (and with args only), with the
// stock kubectl; a bad layout stops the kubelet with an error naming it.
func TestImageLayoutEntrypoints(t *testing.T) {
	dir := t.TempDir()
	workDir := filepath.Join(dir, "greeter-workdir")
	greeter := containerd.Image{
		Name:       "example.com/e2e/greeter:1",
		Entrypoint: []string{"/bin/sh", "-c"},
		Cmd:        []string{`echo "greeting $GREETING from $(pwd)"; exec sleep 3600`},
		Env:        []string{"GREETING=from-the-image"},
		WorkingDir: workDir,
	}
	archive := filepath.Join(dir, "greeter.tar")
	if err := greeter.WriteOCIArchive(archive); err != nil {
		t.Fatal(err)
	}
	node, _ := startKubelet(t, server, "--image-layout="+archive)
	ns := server.CreateNamespace(t, "image-layout")
	k := server.Kubectl(t)
	onNode := `--overrides={"apiVersion":"v1","spec":{"nodeName":"` + node + `"}}`

	k.MustRun(t, "run", "image-cmd", "-n", ns, "--image="+greeter.Name, onNode)
	k.MustRun(t, "run", "args-only", "-n", ns, "--image="+greeter.Name, "--env=GREETING=mine", onNode,
		"--", `echo "args after the entrypoint with $GREETING in $(pwd)"; exec sleep 3600`)
	for pod, want := range map[string]string{
		"image-cmd": "greeting from-the-image from " + workDir,
		"args-only": "args after the entrypoint with mine in " + workDir,
	} {
		k.MustRun(t, "wait", "--for=condition=Ready", "pod/"+pod, "-n", ns, "--timeout=60s")
		eventually(t, 10*time.Second, func() string {
			if r := k.Run(t, "logs", pod, "-n", ns); !strings.Contains(r.Stdout, want) {
				return "logs of " + pod + ": " + r.String() + "; want " + want
			}
			return ""
		})
	}
	// An image the layout does not hold still has the built-in table.
	k.MustRun(t, "run", "busybox", "-n", ns, "--image=busybox", onNode, "--", "sh", "-c", "echo hi; sleep 3600")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/busybox", "-n", ns, "--timeout=60s")

	t.Run("bad layout", func(t *testing.T) {
		bin, err := framework.Binary()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		bad := filepath.Join(dir, "not-a-layout")
		out, err := exec.CommandContext(ctx, bin, "kubelet", "--kubeconfig", server.Kubeconfig, "--root-dir", filepath.Join(dir, "bad-root"),
			"--node-name", "bad-layout", "--port", "0", "--image-layout", dir+"="+bad).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--image-layout") || !strings.Contains(string(out), bad) {
			t.Errorf("kubelet with a missing layout: %v: %s", err, out)
		}
	})
}

// checkChartServer runs the pod of the stock `helm create` chart's
// Deployment on a CRI node: an HTTP server on port 80 (busybox httpd, the
// image's entrypoint, no command) with the chart's liveness and readiness
// probes; it becomes Ready, and its logs and exec work.
func checkChartServer(t *testing.T, k *framework.Kubectl, ns, node string) {
	// The CRI tests' pods share the host's network: port 80 must be free.
	if l, err := net.Listen("tcp", "127.0.0.1:80"); err != nil {
		t.Fatalf("port 80 is taken on this machine, where the chart's server must listen: %v", err)
	} else {
		_ = l.Close()
	}
	k.MustRunStdin(t, `apiVersion: v1
kind: Pod
metadata:
  name: chart
  namespace: `+ns+`
  labels:
    app.kubernetes.io/name: chart
    app.kubernetes.io/instance: chart
spec:
  nodeName: `+node+`
  containers:
  - name: chart
    image: `+containerd.HTTPDImage+`
    imagePullPolicy: IfNotPresent
    ports:
    - name: http
      containerPort: 80
      protocol: TCP
    livenessProbe:
      httpGet:
        path: /
        port: http
    readinessProbe:
      httpGet:
        path: /
        port: http
`, "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/chart", "-n", ns, "--timeout=90s")
	if r := k.Run(t, "exec", "chart", "-n", ns, "--", "wget", "-q", "-O", "-", "http://127.0.0.1/"); r.ExitCode != 0 || r.Stdout != "ok\n" {
		t.Errorf("exec wget in the chart's pod: %s", r)
	}
	// busybox httpd -v logs each request; the probes' among them.
	eventually(t, 20*time.Second, func() string {
		if r := k.Run(t, "logs", "chart", "-n", ns); !strings.Contains(r.Stdout, "response:200") {
			return "logs: " + r.String()
		}
		return ""
	})
	out := k.MustRun(t, "get", "pod", "chart", "-n", ns, "-o", "jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].image}")
	if out != "0 "+containerd.HTTPDImage {
		t.Errorf("restart count and image: %q", out)
	}
	k.MustRun(t, "delete", "pod", "chart", "-n", ns, "--wait", "--timeout=60s")
}
