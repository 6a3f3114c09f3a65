package network

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

const (
	apiserverPort = "16443"
	kubeletPort   = "10250"
	listenPort    = "8080"
)

// cluster is an all-in-one on host 0 (node n0) and a kubelet on host 1
// (node n1), both with the bridge pod network. The nodes are named by
// their addresses: the API server reaches a kubelet (exec) at its Node's
// Hostname address, which is its name, and these hosts have no DNS.
type cluster struct {
	t                 *testing.T
	bin               string
	dir               string
	hosts             *hosts
	procs             *processes
	k                 *framework.Kubectl
	kubelet           *process // n1's
	n0, n1            string
	kubeletKubeconfig string
}

func (c *cluster) kubecore(args ...string) string {
	c.t.Helper()
	out, err := execOut(c.bin, args...)
	if err != nil {
		c.t.Fatalf("kubecore %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func startCluster(t *testing.T) *cluster {
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := newHosts(t, 2)
	c := &cluster{t: t, bin: bin, dir: dir, hosts: h, procs: newProcesses(t, bin, dir, h), n0: h.ips[0], n1: h.ips[1]}
	data := filepath.Join(dir, "data")
	aio := c.procs.start(t, 0, "all-in-one", "all-in-one", "-v", "2", "--data-dir", data,
		"--bind-address", h.ips[0], "--secure-port", apiserverPort, "--node-name", c.n0, "--node-ip", h.ips[0],
		"--kubelet-port", kubeletPort, "--pod-network", "bridge")
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(aio.tail())
			if c.kubelet != nil {
				t.Log(c.kubelet.tail())
			}
		}
	})
	if err := waitFor(120*time.Second, func() error {
		if !aio.running() {
			return fmt.Errorf("all-in-one exited:\n%s", aio.tail())
		}
		if !aio.logContains("kubecore all-in-one is ready") {
			return fmt.Errorf("all-in-one is not ready")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	server := "https://" + h.ips[0] + ":" + apiserverPort
	admin := filepath.Join(dir, "admin.kubeconfig")
	c.kubecore("certs", "kubeconfig", "--data-dir", data, "--user", "network-e2e-admin", "--groups", "system:masters", "--server", server, "--out", admin)
	c.k = &framework.Kubectl{Path: framework.KubectlPath, Kubeconfig: admin, Home: t.TempDir()}
	c.kubeletKubeconfig = filepath.Join(dir, "kubelet-n1.kubeconfig")
	c.kubecore("certs", "kubeconfig", "--data-dir", data, "--user", "system:node:"+c.n1, "--groups", "system:nodes", "--server", server, "--out", c.kubeletKubeconfig)
	c.startKubelet()
	c.waitNodesReady()
	return c
}

// startKubelet (re)starts n1's kubelet on host 1.
func (c *cluster) startKubelet() {
	c.kubelet = c.procs.start(c.t, 1, "kubelet-n1", "kubelet", "-v", "2", "--kubeconfig", c.kubeletKubeconfig,
		"--node-name", c.n1, "--node-ip", c.hosts.ips[1], "--address", c.hosts.ips[1], "--port", kubeletPort,
		"--read-only-port", "0", "--root-dir", filepath.Join(c.dir, "kubelet-n1"), "--pod-network", "bridge")
}

func (c *cluster) waitNodesReady() {
	c.t.Helper()
	if err := waitFor(90*time.Second, func() error {
		r := c.k.Run(c.t, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}/{.spec.podCIDR} {end}`)
		if r.ExitCode != 0 {
			return fmt.Errorf("%s", r.String())
		}
		out := r.Stdout
		for _, n := range []string{c.n0, c.n1} {
			if !strings.Contains(out, n+"=True/10.244.") {
				return fmt.Errorf("node %s is not ready with a pod CIDR: %s", n, out)
			}
		}
		return nil
	}); err != nil {
		c.t.Fatal(err)
	}
}

// listener is a pod on node answering every connection to port 8080 with
// its name.
func listener(name, node string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: default
spec:
  nodeName: %s
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 1
  containers:
  - name: listen
    image: busybox
    command: ["busybox", "nc", "-ll", "-p", "%s", "-e", "busybox", "echo", "%s"]
`, name, node, listenPort, name)
}

// podIP waits for the pod to run and returns its IP.
func (c *cluster) podIP(name string) string {
	c.t.Helper()
	var ip string
	if err := waitFor(90*time.Second, func() error {
		r := c.k.Run(c.t, "get", "pod", name, "-o", "jsonpath={.status.phase} {.status.podIP} {.status.podIPs[0].ip}")
		f := strings.Fields(r.Stdout)
		if r.ExitCode != 0 || len(f) != 3 || f[0] != "Running" || f[1] != f[2] {
			return fmt.Errorf("pod %s: %s", name, r.String())
		}
		ip = f[1]
		return nil
	}); err != nil {
		c.t.Fatal(err)
	}
	return ip
}

// connect runs nc in pod from to ip:8080 and returns what it read.
func (c *cluster) connect(from, ip string) (string, error) {
	r := c.k.Run(c.t, "exec", from, "--", "busybox", "nc", "-w", "5", ip, listenPort)
	if r.ExitCode != 0 {
		return "", fmt.Errorf("%s", r.String())
	}
	return strings.TrimSpace(r.Stdout), nil
}

// reach waits until pod from reaches ip:8080 and is answered want.
func (c *cluster) reach(from, ip, want string) {
	c.t.Helper()
	if err := waitFor(60*time.Second, func() error {
		got, err := c.connect(from, ip)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s to %s answered %q, want %q", from, ip, got, want)
		}
		return nil
	}); err != nil {
		c.t.Fatal(err)
	}
}

// podRoutes lists the pod network's routes in host's namespace.
func (c *cluster) podRoutes(host int) string {
	return ipCmd(c.t, "-n", c.hosts.names[host], "-4", "route", "show", "proto", "75")
}

func TestPodNetwork(t *testing.T) {
	c := startCluster(t)
	k := c.k

	// Each node has its own range and says its pods are networked.
	cidrs := map[string]netip.Prefix{}
	for _, n := range []string{c.n0, c.n1} {
		out := k.MustRun(t, "get", "node", n, "-o", `jsonpath={.spec.podCIDR} {.metadata.annotations.kubecore\.io/pod-network}`)
		f := strings.Fields(out)
		if len(f) != 2 || f[1] != "bridge" {
			t.Fatalf("node %s: podCIDR and pod-network annotation %q", n, out)
		}
		cidrs[n] = netip.MustParsePrefix(f[0])
	}
	if cidrs[c.n0] == cidrs[c.n1] {
		t.Fatalf("both nodes have pod CIDR %s", cidrs[c.n0])
	}

	// Two pods on n0 listen on the same port; one on n1 too.
	for _, p := range []struct{ name, node string }{{"web-a", c.n0}, {"web-b", c.n0}, {"web-c", c.n1}} {
		k.MustRunStdin(t, listener(p.name, p.node), "apply", "-f", "-")
	}
	t.Cleanup(func() { k.Run(t, "delete", "pods", "--all", "--wait", "--timeout=60s") })
	ipA, ipB, ipC := c.podIP("web-a"), c.podIP("web-b"), c.podIP("web-c")
	for name, ip := range map[string]string{"web-a": ipA, "web-b": ipB} {
		if !cidrs[c.n0].Contains(netip.MustParseAddr(ip)) {
			t.Errorf("pod %s on n0 has IP %s outside n0's %s", name, ip, cidrs[c.n0])
		}
	}
	if !cidrs[c.n1].Contains(netip.MustParseAddr(ipC)) {
		t.Errorf("pod web-c on n1 has IP %s outside n1's %s", ipC, cidrs[c.n1])
	}
	if ipA == ipB {
		t.Fatalf("pods web-a and web-b share IP %s", ipA)
	}

	// Each pod has its name for hostname (agnhost serve-hostname answers
	// with it); the host keeps its own.
	for _, name := range []string{"web-a", "web-c"} {
		if got := strings.TrimSpace(k.MustRun(t, "exec", name, "--", "busybox", "hostname")); got != name {
			t.Errorf("pod %s has hostname %q", name, got)
		}
	}

	// By pod IP: on the same node, and across nodes both ways.
	c.reach("web-a", ipB, "web-b")
	c.reach("web-a", ipC, "web-c")
	c.reach("web-c", ipA, "web-a")
	if r := c.podRoutes(0); !strings.Contains(r, cidrs[c.n1].String()+" via "+c.hosts.ips[1]) {
		t.Fatalf("host 0's routes to other nodes' pods:\n%s", r)
	}

	// A host port: web-hp on n1 publishes its port 8080 as port 18080 of
	// n1's address, which a pod on n0 reaches (n1's kubelet writes the
	// DNAT rule from the pod's spec once the pod has its IP).
	k.MustRunStdin(t, strings.Replace(listener("web-hp", c.n1), "    command:", "    ports: [{containerPort: "+listenPort+", hostPort: 18080}]\n    command:", 1), "apply", "-f", "-")
	c.podIP("web-hp")
	if err := waitFor(60*time.Second, func() error {
		r := k.Run(t, "exec", "web-a", "--", "busybox", "nc", "-w", "5", c.n1, "18080")
		if got := strings.TrimSpace(r.Stdout); r.ExitCode != 0 || got != "web-hp" {
			return fmt.Errorf("web-a to n1's host port 18080: %s", r.String())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	k.MustRun(t, "delete", "pod", "web-hp", "--wait", "--timeout=60s")

	// Leaving the cluster CIDR, a pod's traffic is masqueraded: the test's
	// namespace has no route back to the pods, and sees host 0's address.
	ln, err := net.Listen("tcp", net.JoinHostPort(c.hosts.gateway, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			host, _, _ := net.SplitHostPort(conn.RemoteAddr().String())
			_, _ = io.WriteString(conn, host+"\n")
			_ = conn.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	r := k.Run(t, "exec", "web-a", "--", "busybox", "nc", "-w", "5", c.hosts.gateway, port)
	if got := strings.TrimSpace(r.Stdout); r.ExitCode != 0 || got != c.hosts.ips[0] {
		t.Errorf("pod web-a to %s:%s outside the cluster was seen from %q, want host 0's %s (masquerade): %s", c.hosts.gateway, port, got, c.hosts.ips[0], r.String())
	}

	// A kubelet restart keeps web-c, its IP and its reachability.
	c.kubelet.stop()
	c.startKubelet()
	if err := waitFor(60*time.Second, func() error {
		if n := c.kubelet.logCount("Node registered"); n < 2 {
			return fmt.Errorf("the restarted kubelet has not registered")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ip := c.podIP("web-c"); ip != ipC {
		t.Fatalf("after the kubelet restart web-c has IP %s, was %s", ip, ipC)
	}
	if n := k.MustRun(t, "get", "pod", "web-c", "-o", "jsonpath={.status.containerStatuses[0].restartCount}"); n != "0" {
		t.Errorf("web-c restarted %s times across the kubelet restart", n)
	}
	c.reach("web-a", ipC, "web-c")

	// Removing n1 removes its route from n0.
	k.MustRun(t, "delete", "pod", "web-c", "--wait", "--timeout=60s")
	c.kubelet.stop()
	k.MustRun(t, "delete", "node", c.n1)
	if err := waitFor(30*time.Second, func() error {
		if r := c.podRoutes(0); strings.Contains(r, cidrs[c.n1].String()) {
			return fmt.Errorf("host 0 still routes to n1's pods:\n%s", r)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "kubelet-n1", "network", "netns")); err != nil {
		t.Errorf("n1's pod network state: %v", err)
	}
}
