package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

var kubeletSeq atomic.Int64

// startKubelet runs `kubecore kubelet` as a node of s with args added to
// its command line (its Hostname address is localhost, which the
// apiserver reaches it by), and waits for its Node to be Ready; it returns the
// node's name and root dir. The pods bound to the node are deleted (with
// their grace periods) before the kubelet is stopped: a kubelet leaves
// its pods running when it exits.
func startKubelet(t *testing.T, s *framework.APIServer, args ...string) (node, rootDir string) {
	t.Helper()
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	node = fmt.Sprintf("e2e-node-%d-%d", os.Getpid(), kubeletSeq.Add(1))
	dir := t.TempDir()
	rootDir = filepath.Join(dir, "root")
	logPath := filepath.Join(dir, "kubelet.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"kubelet", "--kubeconfig", s.Kubeconfig, "--node-name", node,
		"--hostname-override", "localhost", "--root-dir", rootDir, "--node-ip", "127.0.0.1", "--address", "127.0.0.1", "--port", "0", "-v", "2",
		"--pod-network", "host", "--run-service-proxy=false"}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kubelet: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = logFile.Close(); close(done) }()
	k := s.Kubectl(t)
	t.Cleanup(func() {
		k.Run(t, "delete", "pods", "-A", "--field-selector", "spec.nodeName="+node, "--wait", "--timeout=60s")
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("kubelet %s did not stop within 30s of SIGTERM", node)
		}
		k.Run(t, "delete", "node", node)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("kubelet %s log (last 8 KiB):\n%s", node, b[max(len(b)-8<<10, 0):])
		}
	})
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if r.Stdout != "True" {
			return "node not Ready: " + r.String()
		}
		return ""
	})
	return node, rootDir
}

// numberedLines checks that out is lines "<prefix> N ..." with N rising
// by one from its first line, and returns the first and last N.
func numberedLines(out, prefix string) (first, last int, err error) {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != prefix {
			return 0, 0, fmt.Errorf("line %d is %q", i, l)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || (i > 0 && n != last+1) {
			return 0, 0, fmt.Errorf("line %d is %q after %d", i, l, last)
		}
		if i == 0 {
			first = n
		}
		last = n
	}
	return first, last, nil
}

// TestContainerLogRotation runs a kubelet whose process runtime rotates
// logs at 4 KiB keeping 3 files: `kubectl logs` reads across the kept
// files in order, and `kubectl logs -f` follows across rotations.
func TestContainerLogRotation(t *testing.T) {
	node, root := startKubelet(t, server, "--container-log-max-size=4Ki", "--container-log-max-files=3")
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "logrotate")
	// About 100 bytes a log entry, 50 a second: a rotation every ~0.8 s.
	script := `i=0; while true; do echo "line $i ` + strings.Repeat("x", 40) + `"; i=$((i+1)); sleep 0.02; done`
	k.MustRunStdin(t, podSpec{ns, node, "busybox"}.manifest("chatty", script, ""), "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/chatty", "-n", ns, "--timeout=60s")

	follow := k.Start(t, "logs", "-f", "chatty", "-n", ns)
	logDir, err := filepath.Glob(filepath.Join(root, "logs", "pods", ns+"_chatty_*", "main"))
	if err != nil || len(logDir) != 1 {
		t.Fatalf("log dir of chatty: %v %v", logDir, err)
	}
	eventually(t, 30*time.Second, func() string {
		files, _ := filepath.Glob(filepath.Join(logDir[0], "0.log*"))
		r := k.Run(t, "logs", "chatty", "-n", ns)
		first, last, err := numberedLines(r.Stdout, "line")
		switch {
		case r.ExitCode != 0 || err != nil:
			return fmt.Sprintf("logs: %v: %s", err, r)
		case len(files) != 3:
			return fmt.Sprintf("log files %v, want 3", files)
		case first == 0:
			return "the oldest file is still kept"
		case last-first < 60:
			// More than one 4 KiB file holds.
			return fmt.Sprintf("logs hold lines %d to %d only", first, last)
		}
		return ""
	})
	// Rotations while following: from line 0 on, none lost or repeated.
	eventually(t, 30*time.Second, func() string {
		first, last, err := numberedLines(follow.Stdout(), "line")
		if err != nil || first != 0 || last < 300 {
			return fmt.Sprintf("followed lines %d to %d: %v", first, last, err)
		}
		return ""
	})
	if follow.Exited() {
		t.Fatalf("logs -f ended: %s", follow.Stderr())
	}
	out := k.MustRun(t, "logs", "chatty", "-n", ns, "--tail=5")
	if _, last, err := numberedLines(out, "line"); err != nil || strings.Count(out, "\n") != 5 || last < 300 {
		t.Errorf("--tail=5: %q %v", out, err)
	}
	// The pod's logs, rotated files included, go with it.
	follow.Stop()
	k.MustRun(t, "delete", "pod", "chatty", "-n", ns, "--wait", "--timeout=30s")
	eventually(t, 10*time.Second, func() string {
		if _, err := os.Stat(filepath.Dir(logDir[0])); !os.IsNotExist(err) {
			return fmt.Sprintf("log dir of the deleted pod: %v", err)
		}
		return ""
	})
}

// TestConfigMapAndSecretVolumesUpdate changes a ConfigMap and a Secret
// that a running pod mounts: the files in the container change within
// the kubelet's sync period (10 s; Kubernetes' is a minute).
func TestConfigMapAndSecretVolumesUpdate(t *testing.T) {
	node, _ := startKubelet(t, server)
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "volumes")
	k.MustRun(t, "create", "configmap", "settings", "-n", ns, "--from-literal=greeting=hello")
	k.MustRun(t, "create", "secret", "generic", "creds", "-n", ns, "--from-literal=token=first")
	k.MustRunStdin(t, podSpec{ns, node, "busybox"}.manifest("reader", "exec sleep 1000", `    volumeMounts:
    - {name: settings, mountPath: /etc/settings}
    - {name: creds, mountPath: /etc/creds, readOnly: true}
  volumes:
  - name: settings
    configMap: {name: settings}
  - name: creds
    secret: {secretName: creds}
`), "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/reader", "-n", ns, "--timeout=60s")
	read := func() string {
		r := k.Run(t, "exec", "reader", "-n", ns, "--", "sh", "-c", "cat /etc/settings/greeting; echo; cat /etc/creds/token")
		return r.Stdout
	}
	if got := read(); got != "hello\nfirst" {
		t.Fatalf("mounted files: %q", got)
	}
	changed := time.Now()
	k.MustRun(t, "patch", "configmap", "settings", "-n", ns, "--type=merge", "-p", `{"data":{"greeting":"bonjour"}}`)
	k.MustRun(t, "patch", "secret", "creds", "-n", ns, "--type=merge", "-p", `{"stringData":{"token":"second"}}`)
	eventually(t, 25*time.Second, func() string {
		if got := read(); got != "bonjour\nsecond" {
			return fmt.Sprintf("mounted files %q after the change", got)
		}
		return ""
	})
	t.Logf("the files changed %s after the objects", time.Since(changed).Round(100*time.Millisecond))
}

// TestRunUsesImageEntrypoints: `kubectl run` with args and no command runs
// them after the image's entrypoint on the process runtime, with the stock
// kubectl and the bundled CLI; the pause image runs; an image whose
// program the host lacks waits with a reason naming it.
func TestRunUsesImageEntrypoints(t *testing.T) {
	node, _ := startKubelet(t, server)
	ns := server.CreateNamespace(t, "entrypoints")
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	onNode := `--overrides={"apiVersion":"v1","spec":{"nodeName":"` + node + `"}}`
	for name, k := range map[string]*framework.Kubectl{"stock": server.Kubectl(t), "bundled": server.CLI(bin, "kubectl")} {
		k.MustRun(t, "run", name, "-n", ns, "--image=busybox", onNode, "--", "sh", "-c", "echo hi from "+name+"; sleep 3600")
		k.MustRun(t, "wait", "--for=condition=Ready", "pod/"+name, "-n", ns, "--timeout=60s")
		eventually(t, 10*time.Second, func() string {
			if out := k.Run(t, "logs", name, "-n", ns); !strings.Contains(out.Stdout, "hi from "+name) {
				return "logs: " + out.String()
			}
			return ""
		})
	}
	k := server.Kubectl(t)
	k.MustRun(t, "run", "pause", "-n", ns, "--image=registry.k8s.io/pause:3.10", onNode)
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/pause", "-n", ns, "--timeout=60s")

	k.MustRun(t, "run", "missing", "-n", ns, "--image=postgres:17", onNode, "--", "kubecore-e2e-no-such-program")
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "pod", "missing", "-n", ns, "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}|{.status.containerStatuses[0].state.waiting.message}")
		if !strings.HasPrefix(r.Stdout, "ProcessRuntimeProgramNotFound|") || !strings.Contains(r.Stdout, `"kubecore-e2e-no-such-program"`) {
			return "waiting state: " + r.String()
		}
		return ""
	})
	k.MustRun(t, "delete", "pod", "pause", "-n", ns, "--wait", "--timeout=30s")
}

// TestPortForward forwards local ports to a pod's port with the stock
// kubectl and the bundled CLI (pod, named port, Service), and checks that
// a port nothing listens on is reported and ends the forward.
func TestPortForward(t *testing.T) {
	node, _ := startKubelet(t, server)
	ns := server.CreateNamespace(t, "portforward")
	// The process runtime's pods share the host's network: a server of the
	// test is the pod's port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello through the pod") }), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)

	k := server.Kubectl(t)
	manifest := `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeName: ` + node + `
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.10
    ports: [{name: http, containerPort: ` + port + `}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
`
	k.MustRunStdin(t, manifest, "apply", "-n", ns, "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/web", "-n", ns, "--timeout=60s")
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	for name, cli := range map[string]*framework.Kubectl{"stock": k, "bundled": server.CLI(bin, "kubectl")} {
		for _, target := range [][]string{{"pod/web", ":" + port}, {"web", ":http"}, {"svc/web", ":80"}} {
			bg := cli.Start(t, append([]string{"port-forward", "-n", ns}, target...)...)
			var local string
			eventually(t, 20*time.Second, func() string {
				m := regexp.MustCompile(`Forwarding from 127\.0\.0\.1:([0-9]+) -> ` + port).FindStringSubmatch(bg.Stdout())
				if m == nil {
					return fmt.Sprintf("%s port-forward %v: no forwarding line yet: %q %q", name, target, bg.Stdout(), bg.Stderr())
				}
				local = m[1]
				return ""
			})
			resp, err := http.Get("http://127.0.0.1:" + local + "/")
			if err != nil {
				t.Fatalf("%s port-forward %v: %v", name, target, err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if string(body) != "hello through the pod" {
				t.Errorf("%s port-forward %v: got %q", name, target, body)
			}
			if !strings.Contains(bg.Stdout(), "Handling connection for "+local) {
				t.Errorf("%s port-forward %v: no handling line: %q", name, target, bg.Stdout())
			}
			bg.Stop()
		}

		// Nothing listens on the closed port: the error is reported and
		// the forward ends.
		closed, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closedPort := strconv.Itoa(closed.Addr().(*net.TCPAddr).Port)
		_ = closed.Close()
		bg := cli.Start(t, "port-forward", "-n", ns, "pod/web", ":"+closedPort)
		eventually(t, 20*time.Second, func() string {
			m := regexp.MustCompile(`Forwarding from 127\.0\.0\.1:([0-9]+)`).FindStringSubmatch(bg.Stdout())
			if m == nil {
				return "no forwarding line yet: " + bg.Stderr()
			}
			if c, err := net.Dial("tcp", "127.0.0.1:"+m[1]); err == nil {
				_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
				_, _ = io.ReadAll(c)
				_ = c.Close()
			}
			if !bg.Exited() {
				return "still running after a failed connection: " + bg.Stderr()
			}
			return ""
		})
		if !strings.Contains(bg.Stderr(), "error forwarding port "+closedPort+" to pod "+ns+"/web") || !strings.Contains(bg.Stderr(), "lost connection to pod") {
			t.Errorf("%s: stderr of a failed forward: %q", name, bg.Stderr())
		}
	}
}

// TestProxySubresources reaches a pod's port through pods/proxy, a
// Service's endpoint through services/proxy and the kubelet through
// nodes/proxy, with paths, queries and methods passed on; a port nothing
// listens on answers 503 with the dial error.
func TestProxySubresources(t *testing.T) {
	node, _ := startKubelet(t, server)
	ns := server.CreateNamespace(t, "proxy")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "%s %s?%s auth=%q", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)

	k := server.Kubectl(t)
	k.MustRunStdin(t, `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeName: `+node+`
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.10
    ports: [{name: http, containerPort: `+port+`}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports: [{name: web, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: web}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: web, port: `+port+`}]
`, "apply", "-n", ns, "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/web", "-n", ns, "--timeout=60s")
	base := "/api/v1/namespaces/" + ns
	for path, want := range map[string]string{
		base + "/pods/web:" + port + "/proxy/a/b?x=1": `GET /a/b?x=1 auth=""`,
		base + "/pods/web:http/proxy/":                `GET /? auth=""`,
		base + "/pods/http:web:" + port + "/proxy":    `GET /? auth=""`,
		base + "/services/web:web/proxy/metrics":      `GET /metrics? auth=""`,
		base + "/services/http:web:80/proxy/x/":       `GET /x/? auth=""`,
	} {
		if got := k.MustRun(t, "get", "--raw", path); got != want {
			t.Errorf("GET %s = %q, want %q", path, got, want)
		}
	}
	if got := k.MustRunStdin(t, "{}", "create", "--raw", base+"/pods/web:"+port+"/proxy/post", "-f", "-"); got != `POST /post? auth=""` {
		t.Errorf("POST through pods/proxy = %q", got)
	}
	if got := k.MustRun(t, "get", "--raw", "/api/v1/nodes/"+node+"/proxy/healthz"); got != "ok" {
		t.Errorf("nodes/proxy/healthz = %q", got)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := strconv.Itoa(closed.Addr().(*net.TCPAddr).Port)
	_ = closed.Close()
	r := k.Run(t, "get", "--raw", base+"/pods/web:"+closedPort+"/proxy/")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "ServiceUnavailable") || !strings.Contains(r.Stderr, "error trying to reach service") {
		t.Errorf("a closed port: %s", r)
	}
	r = k.Run(t, "get", "--raw", base+"/services/web:nope/proxy/")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, `no service port "nope" found for service "web"`) {
		t.Errorf("an unknown service port: %s", r)
	}
	r = k.Run(t, "get", "--raw", base+"/pods/ftp:web:80/proxy/")
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "BadRequest") {
		t.Errorf("a bad scheme: %s", r)
	}
}
