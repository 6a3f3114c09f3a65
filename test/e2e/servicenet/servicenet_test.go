package servicenet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/nftables"
	mdns "github.com/miekg/dns"
	"golang.org/x/sys/unix"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/proxy"
	"kubecore.io/kubecore/test/e2e/framework"
)

const apiPort = "16443"

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// hosts makes n network namespaces on a bridge with a /24 of 198.18.0.0/15
// picked from the PID; the test reaches them from the bridge address.
func hosts(t testing.TB, n int) (names, ips []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("the servicenet test makes network namespaces and programs nftables: it needs root")
	}
	pid := os.Getpid()
	subnet := fmt.Sprintf("198.%d.%d", 18+(pid%512)/256, pid%256)
	br := fmt.Sprintf("kcsb%d", pid)
	run(t, "ip", "link", "add", br, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", br).Run() })
	run(t, "ip", "addr", "add", subnet+".254/24", "dev", br)
	run(t, "ip", "link", "set", br, "up")
	for i := range n {
		ns, veth, ip := fmt.Sprintf("kcs%d-%d", pid, i), fmt.Sprintf("kcsv%dh%d", pid, i), fmt.Sprintf("%s.%d", subnet, i+1)
		run(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		run(t, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		// Deleted here, at once: deleting the namespace frees its pair
		// only later, and the next test of this process reuses the name.
		t.Cleanup(func() { _ = exec.Command("ip", "link", "del", veth).Run() })
		run(t, "ip", "link", "set", veth, "master", br, "up")
		run(t, "ip", "-n", ns, "addr", "add", ip+"/24", "dev", "eth0")
		run(t, "ip", "-n", ns, "link", "set", "eth0", "up")
		run(t, "ip", "-n", ns, "link", "set", "lo", "up")
		run(t, "ip", "-n", ns, "route", "add", "default", "via", subnet+".254")
		// A node forwards: node port traffic to another node's endpoint.
		run(t, "ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1")
		names, ips = append(names, ns), append(ips, ip)
	}
	return names, ips
}

// proc is a kubecore process in a host namespace, stopped by PID at the end.
type proc struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// awaitAllInOne waits for an all-in-one started by start to say it is
// ready, and shows its log if the test fails.
func awaitAllInOne(t testing.TB, server *proc) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("all-in-one log:\n%s", server.tail())
		}
	})
	waitFor(t, 120*time.Second, "all-in-one ready", func() error {
		if server.logHas("kubecore is ready") {
			return nil
		}
		return errors.New("not ready")
	})
}

func start(t testing.TB, bin, ns, logPath string, args ...string) *proc {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, bin}, args...)...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); _ = f.Close(); close(p.done) }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

func (p *proc) stop(t testing.TB) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

func (p *proc) logHas(s string) bool {
	b, _ := os.ReadFile(p.log)
	return bytes.Contains(b, []byte(s))
}

func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func waitFor(t testing.TB, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// inNS runs a command in a host namespace.
func inNS(ns string, args ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", ns}, args...)...).CombinedOutput()
	return string(out), err
}

// inNetns runs f on a thread moved into namespace ns and moved back
// after. A thread is never left to die: processes started with a
// parent-death signal would get it when their starting thread exits.
func inNetns(ns string, f func()) error {
	target, err := unix.Open("/var/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(target) }()
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		home, err := unix.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer func() { _ = unix.Close(home) }()
		if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		f()
		if err := unix.Setns(home, unix.CLONE_NEWNET); err == nil {
			runtime.UnlockOSThread()
		} // else: stays locked, and the thread ends with the goroutine
		done <- nil
	}()
	return <-done
}

// lookup asks server for name's A records from namespace ns (through the
// proxy there when server is a cluster IP).
func lookup(ns, server, name string) (string, error) {
	var out []string
	var qerr error
	if err := inNetns(ns, func() {
		m := new(mdns.Msg)
		m.SetQuestion(mdns.Fqdn(name), mdns.TypeA)
		r, _, err := (&mdns.Client{Timeout: 2 * time.Second}).Exchange(m, server)
		if err != nil {
			qerr = err
			return
		}
		for _, rr := range r.Answer {
			if a, ok := rr.(*mdns.A); ok {
				out = append(out, a.A.String())
			}
		}
	}); err != nil {
		return "", err
	}
	return strings.Join(out, ","), qerr
}

// lookupSRV asks server for name's SRV records from namespace ns, each as
// "priority weight port target", joined by commas.
func lookupSRV(ns, server, name string) (string, error) {
	var out []string
	var qerr error
	if err := inNetns(ns, func() {
		m := new(mdns.Msg)
		m.SetQuestion(mdns.Fqdn(name), mdns.TypeSRV)
		r, _, err := (&mdns.Client{Timeout: 2 * time.Second}).Exchange(m, server)
		if err != nil {
			qerr = err
			return
		}
		for _, rr := range r.Answer {
			if s, ok := rr.(*mdns.SRV); ok {
				out = append(out, fmt.Sprintf("%d %d %d %s", s.Priority, s.Weight, s.Port, s.Target))
			}
		}
	}); err != nil {
		return "", err
	}
	return strings.Join(out, ","), qerr
}

// dial connects to addr from namespace ns.
func dial(ns, addr string) error {
	var derr error
	if err := inNetns(ns, func() {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err == nil {
			_ = c.Close()
		}
		derr = err
	}); err != nil {
		return err
	}
	return derr
}

// tableExists reports whether the proxy's table is in namespace ns.
func tableExists(t testing.TB, ns string) bool {
	fd, err := unix.Open("/var/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unix.Close(fd) }()
	c, err := nftables.New(nftables.WithNetNSFd(fd))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := c.ListTables()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == proxy.TableName {
			return true
		}
	}
	return false
}

func intOrPort(p int32) intstr.IntOrString { return intstr.FromInt32(p) }

// startAllInOne runs all-in-one as node0 in host namespace ns at ip with
// its defaults as root: the pod network, the service proxy and the
// cluster DNS (upstream an address that answers nothing), no flag asking
// for them; data under data, until the test ends,
// its log shown when the test fails; once it is ready it returns an admin
// kubeconfig (system:masters) for the address.
func startAllInOne(t testing.TB, bin, dir, data, ns, ip string, extra ...string) string {
	t.Helper()
	resolv := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(resolv, []byte("nameserver 192.0.2.53\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"all-in-one", "-v", "2",
		"--data-dir", data, "--bind-address", ip, "--secure-port", apiPort, "--kubelet-port", "0",
		"--node-name", "node0", "--node-ip", ip, "--resolv-conf", resolv}, extra...)
	server := start(t, bin, ns, filepath.Join(dir, "allinone.log"), args...)
	awaitAllInOne(t, server)
	admin := filepath.Join(dir, "admin.kubeconfig")
	run(t, bin, "certs", "kubeconfig", "--data-dir", data, "--user", "e2e-admin", "--groups", "system:masters",
		"--server", "https://"+ip+":"+apiPort, "--out", admin)
	return admin
}

// cluster is an all-in-one (node0, with the service proxy and the cluster
// DNS) and a kubelet with its proxy (node1), each in its own host namespace.
type cluster struct {
	names, ips []string
	cs         *typed.Clientset
	kubelet    *proc
}

// startCluster starts the two hosts and waits until both Nodes are ready.
func startCluster(t testing.TB) *cluster {
	t.Helper()
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	names, ips := hosts(t, 2)
	data := filepath.Join(dir, "data")
	admin := startAllInOne(t, bin, dir, data, names[0], ips[0])
	url := "https://" + ips[0] + ":" + apiPort
	rc, err := clientcmd.BuildConfigFromFlags("", admin)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The all-in-one's DNS publishes kube-system/kube-dns; a kubelet
	// joining after it gives its pods that address by default.
	waitFor(t, 60*time.Second, "the kube-dns Service", func() error {
		_, err := cs.CoreV1().Services("kube-system").Get(ctx, "kube-dns", metav1.GetOptions{})
		return err
	})
	node1 := filepath.Join(dir, "node1.kubeconfig")
	run(t, bin, "certs", "kubeconfig", "--data-dir", data, "--user", "system:node:node1", "--groups", "system:nodes", "--server", url, "--out", node1)
	// Its defaults as root: the pod network and the service proxy.
	kubelet := start(t, bin, names[1], filepath.Join(dir, "kubelet1.log"), "kubelet", "-v", "2",
		"--kubeconfig", node1, "--node-name", "node1", "--node-ip", ips[1], "--address", ips[1], "--port", "0", "--read-only-port", "0",
		"--runtime", "process", "--root-dir", filepath.Join(dir, "kubelet1"), "--resolv-conf", filepath.Join(dir, "resolv.conf"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kubelet1 log:\n%s", kubelet.tail())
		}
	})
	waitFor(t, 120*time.Second, "two nodes ready", func() error {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		if ready != 2 {
			return fmt.Errorf("%d nodes ready", ready)
		}
		return nil
	})
	return &cluster{names: names, ips: ips, cs: cs, kubelet: kubelet}
}

// webDeployment is one python3 HTTP server on 8080 pinned to node0, ready
// once it accepts connections.
func webDeployment(labels map[string]string) *appsv1.Deployment {
	one := int32(1)
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				NodeSelector: map[string]string{"kubernetes.io/hostname": "node0"},
				Containers: []corev1.Container{{Name: "web", Image: "python",
					// Every address of the pod: its own with the bridge pod
					// network, the node's with the host's.
					Command: []string{"python3", "-m", "http.server", "8080"},
					Ports:   []corev1.ContainerPort{{ContainerPort: 8080}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intOrPort(8080)}},
						PeriodSeconds: 1}}}}}}}
}

func TestServicesAcrossHosts(t *testing.T) {
	c := startCluster(t)
	names, ips, cs, kubelet := c.names, c.ips, c.cs, c.kubelet
	ctx := context.Background()

	// A Deployment on node0 behind a NodePort Service.
	ns := "svcnet"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, webDeployment(labels), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: labels,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intOrPort(8080)}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// From node1, by name: the cluster DNS (on node0, through node1's
	// proxy) gives the cluster IP, which node1's proxy sends to node0.
	fqdn := "web." + ns + ".svc.cluster.local"
	waitFor(t, 120*time.Second, "DNS from node1", func() error {
		got, err := lookup(names[1], "10.96.0.10:53", fqdn)
		if err != nil || got != svc.Spec.ClusterIP {
			return fmt.Errorf("lookup %s: %q %v", fqdn, got, err)
		}
		return nil
	})
	get := func(ns, url string) error {
		out, err := inNS(ns, "curl", "-sS", "-m", "2", "-o", "/dev/null", "-w", "%{http_code}", url)
		if err != nil || out != "200" {
			return fmt.Errorf("GET %s: %q %v", url, out, err)
		}
		return nil
	}
	waitFor(t, 120*time.Second, "web by cluster IP from node1", func() error {
		return get(names[1], "http://"+net.JoinHostPort(svc.Spec.ClusterIP, "80")+"/")
	})
	// A pod on node1, by the Service's short name: its resolv.conf names
	// the cluster DNS (kubelet1 found kube-dns's address) with the
	// namespace's search path, and node1's proxy routes both. The busybox
	// image runs the host's busybox, whose wget (Debian's 1.35) crashes
	// on -T: no timeout flags, the wait below bounds it.
	never := corev1.RestartPolicyNever
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "client"},
		Spec: corev1.PodSpec{NodeName: "node1", RestartPolicy: never, Containers: []corev1.Container{{Name: "wget", Image: "busybox",
			Command: []string{"wget", "-q", "-O", "/dev/null", "http://web:80/"}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 120*time.Second, "wget web:80 from a pod on node1", func() error {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "client", metav1.GetOptions{})
		if err != nil {
			return err
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			return nil
		case corev1.PodFailed:
			t.Fatalf("the client pod failed: %+v", p.Status.ContainerStatuses)
		}
		return fmt.Errorf("phase %s", p.Status.Phase)
	})
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "client", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// The node port on node1's address, from the machine outside.
	nodePort := fmt.Sprint(svc.Spec.Ports[0].NodePort)
	waitFor(t, 30*time.Second, "node port on node1 from the host", func() error {
		out, err := exec.Command("curl", "-sS", "-m", "2", "-o", "/dev/null", "-w", "%{http_code}", "http://"+net.JoinHostPort(ips[1], nodePort)+"/").CombinedOutput()
		if err != nil || string(out) != "200" {
			return fmt.Errorf("%q %v", out, err)
		}
		return nil
	})

	// A headless Service over the same pods: its name gives the pods'
	// addresses (their own on the bridge pod network).
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-h"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: labels,
			Ports: []corev1.ServicePort{{Name: "http", Port: 8080}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	headless := "web-h." + ns + ".svc.cluster.local"
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Status.PodIP == "" {
		t.Fatalf("the web pod: %v %v", pods, err)
	}
	podIP := pods.Items[0].Status.PodIP
	waitFor(t, 120*time.Second, "headless name from node1", func() error {
		got, err := lookup(names[1], "10.96.0.10:53", headless)
		if err != nil || got != podIP {
			return fmt.Errorf("lookup %s: %q %v", headless, got, err)
		}
		return nil
	})

	// A StatefulSet on node0 behind its headless Service: its pod's name
	// web-0.db resolves by the pod's hostname and subdomain, and the
	// Service's SRV record names it with its port.
	db := map[string]string{"app": "db"}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: db,
			Ports: []corev1.ServicePort{{Name: "http", Port: 8080}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sts := webDeployment(db).Spec
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{ServiceName: "db", Replicas: sts.Replicas, Selector: sts.Selector, Template: sts.Template}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var stsIP string
	waitFor(t, 120*time.Second, "web-0.db from node1", func() error {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{})
		if err != nil {
			return err
		}
		stsIP = p.Status.PodIP
		name := "web-0.db." + ns + ".svc.cluster.local"
		got, err := lookup(names[1], "10.96.0.10:53", name)
		if err != nil || stsIP == "" || got != stsIP {
			return fmt.Errorf("lookup %s: %q %v, pod IP %q", name, got, err, stsIP)
		}
		return nil
	})
	srvName := "_http._tcp.db." + ns + ".svc.cluster.local"
	waitFor(t, 30*time.Second, "the headless Service's SRV record", func() error {
		got, err := lookupSRV(names[1], "10.96.0.10:53", srvName)
		if want := "0 100 8080 web-0.db." + ns + ".svc.cluster.local."; err != nil || got != want {
			return fmt.Errorf("SRV %s: %q %v, want %q", srvName, got, err, want)
		}
		return nil
	})
	if err := cs.AppsV1().StatefulSets(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 120*time.Second, "web-0 gone", func() error {
		if _, err := cs.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{}); err == nil {
			return errors.New("still there")
		}
		return nil
	})

	// Scaled to 0: the headless name has no address left, and
	// connections to the cluster IP are refused at once on node1.
	zero := int32(0)
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = &zero
	if _, err := cs.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 120*time.Second, "headless name without endpoints", func() error {
		got, err := lookup(names[1], "10.96.0.10:53", headless)
		if err != nil || got != "" {
			return fmt.Errorf("lookup %s: %q %v", headless, got, err)
		}
		return nil
	})
	waitFor(t, 120*time.Second, "connection refused without endpoints", func() error {
		err := dial(names[1], net.JoinHostPort(svc.Spec.ClusterIP, "80"))
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil
		}
		return fmt.Errorf("dial: %v, want connection refused", err)
	})

	// Stopping the kubelet deletes its proxy's table.
	if !tableExists(t, names[1]) {
		t.Fatal("no proxy table on node1 while its kubelet runs")
	}
	kubelet.stop(t)
	if tableExists(t, names[1]) {
		t.Error("the proxy table is left on node1 after its kubelet stopped")
	}
}
