// Package podproxy tests pods/log and pods/exec end to end in one process:
// the apiserver (`kubecore apiserver`, in-process) proxies them to a real
// kubelet with the process runtime, its HTTPS server requiring the
// apiserver's kubelet client certificate.
package podproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/kubelet"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
	"kubecore.io/kubecore/pkg/kubelet/server"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

// TestMain runs the tests, or the process runtime's shim when the runtime
// starts this binary as one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == process.ShimSubcommand {
		os.Exit(process.RunShim(os.Args[2:]))
	}
	os.Exit(framework.RunWithEtcd(m, &testEtcd))
}

// nodeName is the node's name and Hostname address: the apiserver reaches
// kubelets by Hostname first, as Kubernetes does, and localhost resolves.
const nodeName = "localhost"

// lateHost is the kubelet server's host, set once the kubelet exists: the
// server listens first so that the node reports its real port.
type lateHost struct{ server.Host }

type env struct {
	t   *testing.T
	ctx context.Context
	api *framework.APIServer
	cs  *typed.Clientset
	ns  string
}

// newEnv starts an apiserver and a kubelet with the process runtime whose
// server trusts the cluster CA, as a node's kubelet does.
func newEnv(t *testing.T) *env {
	t.Helper()
	api := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	e := &env{t: t, ctx: t.Context(), api: api, cs: api.Clientset(t)}
	e.ns = api.CreateNamespace(t, "podproxy")

	cas, err := server.LoadClientCAs(filepath.Join(api.DataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	cert, err := server.LoadOrCreateCertificate("", "", filepath.Join(root, "pki"), nodeName, nil)
	if err != nil {
		t.Fatal(err)
	}
	host := &lateHost{}
	srv, err := server.New(server.Config{Host: host, Address: "127.0.0.1", Port: 0, Certificate: cert, ClientCAs: cas, LogPollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := process.New(process.Options{HostIP: "127.0.0.1", StateDir: filepath.Join(root, "runtime"),
		ShimCommand: []string{os.Args[0], process.ShimSubcommand}})
	if err != nil {
		t.Fatal(err)
	}
	kl, err := kubelet.New(kubelet.Config{
		NodeName: nodeName, Client: e.cs, Runtime: rt, RootDir: root, NodeIP: "127.0.0.1",
		KubeletPort:               int32(srv.Addr().(*net.TCPAddr).Port),
		NodeStatusUpdateFrequency: 500 * time.Millisecond,
		NodeStatusReportFrequency: 2 * time.Second,
		LeaseRenewInterval:        500 * time.Millisecond,
		SyncFrequency:             2 * time.Second,
		RelistPeriod:              100 * time.Millisecond,
		StopPodsOnExit:            true,
	})
	if err != nil {
		t.Fatal(err)
	}
	host.Host = kl
	ctx, cancel := context.WithCancel(context.Background())
	klDone, srvDone := make(chan error, 1), make(chan error, 1)
	go func() { klDone <- kl.Run(ctx) }()
	go func() { srvDone <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		for name, ch := range map[string]chan error{"kubelet": klDone, "kubelet server": srvDone} {
			select {
			case err := <-ch:
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("%s did not stop within 30s", name)
			}
		}
	})
	return e
}

// pod creates a pod on the node whose containers run the scripts in sh,
// named c0, c1, ...
func (e *env) pod(name string, policy corev1.RestartPolicy, scripts ...string) {
	e.t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
		Spec: corev1.PodSpec{NodeName: nodeName, RestartPolicy: policy, TerminationGracePeriodSeconds: new(int64)}}
	for i, s := range scripts {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c" + string(rune('0'+i)), Image: "busybox", Command: []string{"sh", "-c", s}})
	}
	if _, err := e.cs.CoreV1().Pods(e.ns).Create(e.ctx, p, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("create pod %s: %v", name, err)
	}
}

func (e *env) waitFor(name, what string, cond func(*corev1.Pod) bool) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last *corev1.Pod
	for time.Now().Before(deadline) {
		p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err == nil {
			last = p
			if cond(p) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("pod %s not %s after 60s: %+v", name, what, last)
}

func running(p *corev1.Pod) bool {
	for _, s := range p.Status.ContainerStatuses {
		if s.State.Running == nil {
			return false
		}
	}
	return len(p.Status.ContainerStatuses) > 0
}

// logs reads the whole log with opts.
func (e *env) logs(name string, opts *typed.PodLogOptions) (string, error) {
	e.t.Helper()
	rc, err := e.cs.CoreV1().Pods(e.ns).GetLogs(e.ctx, name, opts)
	if err != nil {
		return "", err
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	return string(b), err
}

func TestLogs(t *testing.T) {
	e := newEnv(t)
	e.pod("counter", corev1.RestartPolicyAlways, `i=0; while true; do echo line $i; i=$((i+1)); sleep 0.05; done`, `echo side; sleep 3600`)
	e.waitFor("counter", "running", running)
	// Wait for a few lines.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := e.logs("counter", &typed.PodLogOptions{Container: "c0"})
		if err == nil && strings.Contains(out, "line 5\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log: %q, %v", out, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	out, err := e.logs("counter", &typed.PodLogOptions{Container: "c1"})
	if err != nil || out != "side\n" {
		t.Fatalf("c1 log %q, %v", out, err)
	}
	tail := int64(2)
	out, err = e.logs("counter", &typed.PodLogOptions{Container: "c0", TailLines: &tail})
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "line ") {
		t.Fatalf("tail 2: %q, %v", out, err)
	}
	limit := int64(4)
	if out, err = e.logs("counter", &typed.PodLogOptions{Container: "c0", LimitBytes: &limit}); err != nil || out != "line" {
		t.Fatalf("limitBytes 4: %q, %v", out, err)
	}
	if out, err = e.logs("counter", &typed.PodLogOptions{Container: "c1", Timestamps: true}); err != nil || !strings.HasSuffix(out, " side\n") {
		t.Fatalf("timestamps: %q, %v", out, err)
	} else if _, perr := time.Parse(time.RFC3339Nano, strings.Fields(out)[0]); perr != nil {
		t.Fatalf("timestamps: %q: %v", out, perr)
	}

	// Follow: lines written after the request arrive on the open stream.
	ctx, cancel := context.WithCancel(e.ctx)
	rc, err := e.cs.CoreV1().Pods(e.ns).GetLogs(ctx, "counter", &typed.PodLogOptions{Container: "c0", Follow: true, TailLines: new(int64)})
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(rc)
	var got []string
	for len(got) < 5 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("follow: after %q: %v", got, err)
		}
		got = append(got, line)
	}
	cancel()
	_ = rc.Close()

	// Errors, as Kubernetes words them.
	for _, tc := range []struct {
		opts *typed.PodLogOptions
		pod  string
		is   func(error) bool
		msg  string
	}{
		{&typed.PodLogOptions{}, "counter", apierrors.IsBadRequest, "a container name must be specified for pod counter, choose one of: [c0 c1]"},
		{&typed.PodLogOptions{Container: "nope"}, "counter", apierrors.IsBadRequest, "container nope is not valid for pod counter"},
		{&typed.PodLogOptions{Container: "c0", Previous: true}, "counter", apierrors.IsBadRequest, `previous terminated container "c0" in pod "counter" not found`},
		{&typed.PodLogOptions{}, "missing", apierrors.IsNotFound, `pods "missing" not found`},
	} {
		if _, err := e.logs(tc.pod, tc.opts); !tc.is(err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("logs %s %+v: %v, want %q", tc.pod, tc.opts, err, tc.msg)
		}
	}
}

func TestPreviousLog(t *testing.T) {
	e := newEnv(t)
	e.pod("crasher", corev1.RestartPolicyAlways, `echo "run at $(date +%s%N)"; sleep 0.3; exit 2`)
	e.waitFor("crasher", "restarted", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1 &&
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated != nil
	})
	prev, err := e.logs("crasher", &typed.PodLogOptions{Previous: true})
	if err != nil || !strings.HasPrefix(prev, "run at ") || strings.Count(prev, "\n") != 1 {
		t.Fatalf("previous log %q, %v", prev, err)
	}
}

// adminTLS is the admin's TLS client config, from the apiserver's pki.
func (e *env) adminTLS() *tls.Config {
	e.t.Helper()
	dir := filepath.Join(e.api.DataDir, "pki")
	cas, err := server.LoadClientCAs(filepath.Join(dir, "ca.crt"))
	if err != nil {
		e.t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "admin.crt"), filepath.Join(dir, "admin.key"))
	if err != nil {
		e.t.Fatal(err)
	}
	return &tls.Config{RootCAs: cas, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
}

// execResult is what an exec printed and how it ended.
type execResult struct {
	stdout, stderr string
	status         metav1.Status
	protocol       string
}

// exec runs command in container c0 of pod over the WebSocket channel
// protocol, as kubectl v1.32 does, sending stdin (then closing it) when
// not nil.
func (e *env) exec(pod string, stdin *string, command ...string) (execResult, error) {
	e.t.Helper()
	q := url.Values{"command": command, "stdout": {"true"}, "stderr": {"true"}}
	if stdin != nil {
		q.Set("stdin", "true")
	}
	u := strings.Replace(e.api.URL, "https://", "wss://", 1) + "/api/v1/namespaces/" + e.ns + "/pods/" + pod + "/exec?" + q.Encode()
	tlsCfg := e.adminTLS()
	d := websocket.Dialer{TLSClientConfig: tlsCfg, Subprotocols: []string{"v5.channel.k8s.io", "v4.channel.k8s.io"}, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.DialContext(e.ctx, u, nil)
	if err != nil {
		if resp != nil {
			var st metav1.Status
			_ = json.NewDecoder(resp.Body).Decode(&st)
			_ = resp.Body.Close()
			return execResult{status: st}, &apierrors.StatusError{ErrStatus: st}
		}
		return execResult{}, err
	}
	defer func() { _ = conn.Close() }()
	res := execResult{protocol: conn.Subprotocol()}
	if stdin != nil {
		if err := conn.WriteMessage(websocket.BinaryMessage, append([]byte{0}, *stdin...)); err != nil {
			return res, err
		}
		if err := conn.WriteMessage(websocket.BinaryMessage, []byte{255, 0}); err != nil {
			return res, err
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure {
				return res, nil
			}
			return res, err
		}
		if len(msg) <= 1 {
			continue // the empty message opening the first channel
		}
		switch msg[0] {
		case 1:
			res.stdout += string(msg[1:])
		case 2:
			res.stderr += string(msg[1:])
		case 3:
			if err := json.Unmarshal(msg[1:], &res.status); err != nil {
				return res, err
			}
		}
	}
}

func TestExec(t *testing.T) {
	e := newEnv(t)
	e.pod("shell", corev1.RestartPolicyAlways, `sleep 3600`)
	e.waitFor("shell", "running", running)

	res, err := e.exec("shell", nil, "sh", "-c", "echo hi; echo oops >&2; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if res.protocol != "v5.channel.k8s.io" || res.stdout != "hi\n" || res.stderr != "oops\n" {
		t.Fatalf("exec: %+v", res)
	}
	if res.status.Reason != "NonZeroExitCode" || res.status.Details == nil || len(res.status.Details.Causes) == 0 || res.status.Details.Causes[0].Message != "3" {
		t.Fatalf("exit status %+v", res.status)
	}

	in := "hello\nworld\n"
	res, err = e.exec("shell", &in, "sh", "-c", "cat; echo done")
	if err != nil {
		t.Fatal(err)
	}
	if res.stdout != in+"done\n" || res.status.Status != metav1.StatusSuccess {
		t.Fatalf("exec with stdin: %+v", res)
	}

	if _, err := e.exec("missing", nil, "true"); !apierrors.IsNotFound(err) {
		t.Fatalf("exec in a missing pod: %v", err)
	}
}
