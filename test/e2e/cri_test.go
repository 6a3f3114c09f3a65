package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/integration/cri/containerd"
)

// startContainerd starts a containerd of the test's own, with the test
// images imported, and stops it (and what it left) when the test ends.
// Without containerd (hack/install-containerd.sh installs it) or root
// the test fails: it never skips.
func startContainerd(t *testing.T) *containerd.Containerd {
	t.Helper()
	// Not t.TempDir: the socket's path must stay short.
	dir, err := os.MkdirTemp("", "kubecore-e2e-cri-")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	c, err := containerd.Start(dir, root)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatalf("containerd: %v", err)
	}
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			t.Logf("containerd log:\n%s", c.Log())
		}
		_ = os.RemoveAll(dir)
	})
	return c
}

// TestCRIRuntime runs a kubelet with the CRI runtime on a real containerd
// and puts its pods through the lifecycle of TestLogsAndExec with the
// stock kubectl.
func TestCRIRuntime(t *testing.T) {
	c := startContainerd(t)
	node, _ := startKubelet(t, server, "--runtime=cri", "--container-runtime-endpoint="+c.Endpoint(), "--cgroup-root="+c.CgroupRoot)
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "cri")
	checkPodLifecycle(t, k, podSpec{ns: ns, node: node, image: containerd.BusyboxImage})

	t.Run("status", func(t *testing.T) {
		out := k.MustRun(t, "get", "pod", "counter", "-n", ns, "-o",
			"jsonpath={.status.containerStatuses[0].containerID} {.status.containerStatuses[0].image} {.status.podIP}")
		f := strings.Fields(out)
		if len(f) != 3 || !strings.HasPrefix(f[0], "containerd://") || f[1] != containerd.BusyboxImage || f[2] != "127.0.0.1" {
			t.Errorf("container ID, image and pod IP: %q", out)
		}
		if out := k.MustRun(t, "get", "node", node, "-o", "jsonpath={.status.nodeInfo.containerRuntimeVersion}"); !strings.HasPrefix(out, "containerd://") {
			t.Errorf("node's container runtime %q", out)
		}
	})

	t.Run("helm create chart's server", func(t *testing.T) { checkChartServer(t, k, ns, node) })

	t.Run("process runtime with containerd's images", func(t *testing.T) {
		// A process-runtime kubelet reads the entrypoint (/bin/sh) and
		// env (PATH=/bin) of the busybox image in containerd's store.
		pnode, _ := startKubelet(t, server, "--image-service-endpoint="+c.Endpoint())
		onNode := `--overrides={"apiVersion":"v1","spec":{"nodeName":"` + pnode + `"}}`
		k.MustRun(t, "run", "store", "-n", ns, "--image="+containerd.BusyboxImage, "--image-pull-policy=Never", onNode,
			"--", "-c", `echo "from the store with PATH=$PATH"; exec sleep 3600`)
		k.MustRun(t, "wait", "--for=condition=Ready", "pod/store", "-n", ns, "--timeout=60s")
		eventually(t, 10*time.Second, func() string {
			if r := k.Run(t, "logs", "store", "-n", ns); !strings.Contains(r.Stdout, "from the store with PATH=/bin") {
				return "logs: " + r.String()
			}
			return ""
		})
		k.MustRun(t, "delete", "pod", "store", "-n", ns, "--wait", "--timeout=60s")
	})

	t.Run("attach", func(t *testing.T) {
		// CRI Attach: run -i --rm feeds the shell's stdin and gets its
		// output back, then deletes the pod.
		onNode := `--overrides={"apiVersion":"v1","spec":{"nodeName":"` + node + `"}}`
		r := k.RunStdin(t, "x=cri; echo hello from $x\nexit 0\n",
			"run", "-i", "--rm", "--image="+containerd.BusyboxImage, "--image-pull-policy=Never", "--restart=Never", "attached", "-n", ns, onNode, "--command", "--", "sh")
		if r.ExitCode != 0 || !strings.Contains(r.Stdout, "hello from cri") || !strings.Contains(r.Stdout, `pod "attached" deleted`) {
			t.Errorf("run -i --rm on the CRI runtime: %s", r)
		}
	})
}
