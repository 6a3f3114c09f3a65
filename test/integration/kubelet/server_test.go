package kubelet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/kubelet/server"
)

// testCA is a CA that signs client certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key}
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// client issues a client certificate and returns an HTTPS client with it.
func (ca *testCA) client(t *testing.T, cn string) *http.Client {
	t.Helper()
	cert := ca.issue(t, cn)
	return httpsClient(&cert)
}

// issue issues a client certificate for cn.
func (ca *testCA) issue(t *testing.T, cn string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func httpsClient(cert *tls.Certificate) *http.Client {
	// The kubelet's certificate is self-signed, as the apiserver sees it.
	cfg := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test client of a self-signed server
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second}
}

// kubeletServer starts the kubelet server of e's kubelet.
func (e *env) kubeletServer(ca *testCA) *server.Server {
	e.t.Helper()
	cert, err := server.LoadOrCreateCertificate("", "", e.t.TempDir(), e.node, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := server.New(server.Config{Host: e.kl, Address: "127.0.0.1", Port: 0, ReadOnlyPort: -1,
		Certificate: cert, ClientCAs: ca.pool()})
	if err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(e.ctx) }()
	e.t.Cleanup(func() {
		if err := <-done; err != nil {
			e.t.Errorf("kubelet server: %v", err)
		}
	})
	return s
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestKubeletServer(t *testing.T) {
	e := newEnv(t, "process")
	ca := newTestCA(t, "cluster-ca")
	s := e.kubeletServer(ca)
	base := "https://" + s.Addr().String()
	c := ca.client(t, "kube-apiserver-kubelet-client")

	p := e.pod("talker", `echo one; echo two; echo three; exec sleep 1000`)
	crash := e.pod("crash", `echo "attempt at $(date +%s%N)"; exit 1`)
	e.waitFor(p.Name, 20*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	e.waitFor(crash.Name, 30*time.Second, "restarted", func(p *corev1.Pod) bool {
		cs := containerStatus(p)
		return cs != nil && cs.RestartCount >= 1
	})

	t.Run("authentication", func(t *testing.T) {
		if code, body := get(t, c, base+"/healthz"); code != 200 || body != "ok" {
			t.Errorf("/healthz = %d %q", code, body)
		}
		if _, err := httpsClient(nil).Get(base + "/healthz"); err == nil {
			t.Error("a client without a certificate was served")
		}
		if _, err := newTestCA(t, "other-ca").client(t, "intruder").Get(base + "/pods"); err == nil {
			t.Error("a client with a certificate of another CA was served")
		}
	})

	t.Run("pods", func(t *testing.T) {
		code, body := get(t, c, base+"/pods")
		var list corev1.PodList
		if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || list.Kind != "PodList" {
			t.Fatalf("/pods = %d %v %.200s", code, err, body)
		}
		names := map[string]bool{}
		for _, p := range list.Items {
			names[p.Name] = true
		}
		if !names["talker"] || !names["crash"] {
			t.Errorf("/pods has %v", names)
		}
	})

	logs := base + "/containerLogs/" + e.ns + "/talker/main"
	waitLog := func(u, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, body := get(t, c, u)
			if code == 200 && body == want {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("GET %s = %d %q, want %q", u, code, body, want)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Run("logs", func(t *testing.T) {
		waitLog(logs, "one\ntwo\nthree\n")
		waitLog(logs+"?tailLines=1", "three\n")
		waitLog(logs+"?limitBytes=5", "one\nt")
		code, body := get(t, c, logs+"?timestamps=true&tailLines=2")
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		if code != 200 || len(lines) != 2 {
			t.Fatalf("timestamps: %d %q", code, body)
		}
		for i, l := range lines {
			ts, text, _ := strings.Cut(l, " ")
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || text != []string{"two", "three"}[i] {
				t.Errorf("timestamped line %q", l)
			}
		}
		time.Sleep(1500 * time.Millisecond)
		waitLog(logs+"?sinceSeconds=1", "")
		if code, body := get(t, c, logs+"?tailLines=x"); code != 400 {
			t.Errorf("bad tailLines: %d %q", code, body)
		}
		if code, _ := get(t, c, base+"/containerLogs/"+e.ns+"/nope/main"); code != 404 {
			t.Errorf("unknown pod: %d, want 404", code)
		}
		if code, _ := get(t, c, base+"/containerLogs/"+e.ns+"/talker/nope"); code != 404 {
			t.Errorf("unknown container: %d, want 404", code)
		}
	})

	t.Run("previous", func(t *testing.T) {
		code, body := get(t, c, base+"/containerLogs/"+e.ns+"/crash/main?previous=true")
		if code != 200 || !strings.HasPrefix(body, "attempt at ") {
			t.Errorf("previous = %d %q", code, body)
		}
		if code, _ := get(t, c, logs+"?previous=true"); code != 404 {
			t.Errorf("previous of a container that never restarted: %d, want 404", code)
		}
	})

	t.Run("follow", func(t *testing.T) {
		e.pod("ticker", `sleep 1; for i in 1 2 3 4 5; do echo tick $i; sleep 0.2; done`, func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
		})
		e.waitFor("ticker", 20*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		start := time.Now()
		code, body := get(t, c, base+"/containerLogs/"+e.ns+"/ticker/main?follow=true")
		if want := "tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n"; code != 200 || body != want {
			t.Errorf("follow = %d %q, want %q", code, body, want)
		}
		if took := time.Since(start); took < 500*time.Millisecond {
			t.Errorf("follow returned after %s, before the container ended", took)
		}
	})

	t.Run("exec", func(t *testing.T) {
		out := execWS(t, c, base+"/exec/"+e.ns+"/talker/main?"+url.Values{
			"command": {"sh", "-c", `read x; echo "got $x"; echo oops >&2; exit 3`},
			"stdin":   {"1"}, "stdout": {"1"}, "stderr": {"1"},
		}.Encode(), [][]byte{append([]byte{0}, "hello\n"...), {255, 0}})
		if out.stdout != "got hello\n" || out.stderr != "oops\n" {
			t.Errorf("exec output: stdout %q stderr %q", out.stdout, out.stderr)
		}
		if out.status.Status != metav1.StatusFailure || out.status.Reason != "NonZeroExitCode" || out.status.Details == nil ||
			len(out.status.Details.Causes) != 1 || out.status.Details.Causes[0].Type != "ExitCode" || out.status.Details.Causes[0].Message != "3" {
			t.Errorf("exec status: %+v", out.status)
		}
		ok := execWS(t, c, base+"/exec/"+e.ns+"/talker/main?command=true&stdout=true", nil)
		if ok.status.Status != metav1.StatusSuccess {
			t.Errorf("exec of true: %+v", ok.status)
		}
	})

	t.Run("exec tty", func(t *testing.T) {
		out := execWS(t, c, base+"/exec/"+e.ns+"/talker/main?"+url.Values{
			"command": {"sh", "-c", "sleep 0.5; stty size; test -t 0 && echo tty"},
			"stdin":   {"1"}, "stdout": {"1"}, "tty": {"1"},
		}.Encode(), [][]byte{append([]byte{4}, `{"Width":123,"Height":45}`...)})
		if got := strings.ReplaceAll(out.stdout, "\r", ""); got != "45 123\ntty\n" {
			t.Errorf("tty exec output %q", out.stdout)
		}
		if out.status.Status != metav1.StatusSuccess {
			t.Errorf("tty exec status: %+v", out.status)
		}
	})

	// client-go's SPDY executor, what kubectl falls back to when its
	// WebSocket upgrade fails.
	spdyExec := func(t *testing.T, q url.Values, opts remotecommand.StreamOptions) error {
		t.Helper()
		u, _ := url.Parse(base + "/exec/" + e.ns + "/talker/main?" + q.Encode())
		cfg := &restclient.Config{Host: base, TLSClientConfig: restclient.TLSClientConfig{Insecure: true}}
		cert := ca.issue(t, "kube-apiserver-kubelet-client")
		cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = pemEncode(t, cert)
		x, err := remotecommand.NewSPDYExecutor(cfg, http.MethodPost, u)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
		defer cancel()
		return x.StreamWithContext(ctx, opts)
	}

	t.Run("exec over SPDY", func(t *testing.T) {
		var stdout, stderr strings.Builder
		err := spdyExec(t, url.Values{
			"command": {"sh", "-c", `cat; echo oops >&2; exit 3`},
			"stdin":   {"1"}, "stdout": {"1"}, "stderr": {"1"},
		}, remotecommand.StreamOptions{Stdin: strings.NewReader("hello\nworld\n"), Stdout: &stdout, Stderr: &stderr})
		var exit utilexec.ExitError
		if !errors.As(err, &exit) || exit.ExitStatus() != 3 {
			t.Errorf("exec over SPDY: %v, want exit code 3", err)
		}
		if stdout.String() != "hello\nworld\n" || stderr.String() != "oops\n" {
			t.Errorf("exec over SPDY output: stdout %q stderr %q", stdout.String(), stderr.String())
		}
		stdout.Reset()
		if err := spdyExec(t, url.Values{"command": {"echo", "fine"}, "stdout": {"1"}},
			remotecommand.StreamOptions{Stdout: &stdout}); err != nil || stdout.String() != "fine\n" {
			t.Errorf("exec of echo over SPDY: %v, stdout %q", err, stdout.String())
		}
	})

	t.Run("exec tty over SPDY", func(t *testing.T) {
		var stdout strings.Builder
		sizes := make(sizeQueue, 1)
		sizes <- remotecommand.TerminalSize{Width: 99, Height: 33}
		err := spdyExec(t, url.Values{
			"command": {"sh", "-c", "sleep 0.5; stty size; test -t 0 && echo tty"},
			"stdin":   {"1"}, "stdout": {"1"}, "tty": {"1"},
		}, remotecommand.StreamOptions{Stdin: blockingReader{e.ctx}, Stdout: &stdout, Tty: true, TerminalSizeQueue: sizes})
		close(sizes)
		if got := strings.ReplaceAll(stdout.String(), "\r", ""); err != nil || got != "33 99\ntty\n" {
			t.Errorf("tty exec over SPDY: %v, output %q", err, stdout.String())
		}
	})

	t.Run("exec without websocket", func(t *testing.T) {
		resp, err := c.Post(base+"/exec/"+e.ns+"/talker/main?command=true&stdout=1", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("exec without an upgrade: %d, want 400", resp.StatusCode)
		}
	})

	t.Run("read-only port", func(t *testing.T) {
		ro := "http://" + s.ReadOnlyAddr().String()
		plain := &http.Client{Timeout: 10 * time.Second}
		if code, body := get(t, plain, ro+"/pods"); code != 200 || !strings.Contains(body, `"talker"`) {
			t.Errorf("read-only /pods = %d %.100q", code, body)
		}
		if code, _ := get(t, plain, ro+"/containerLogs/"+e.ns+"/talker/main"); code != 404 {
			t.Errorf("read-only port served logs: %d", code)
		}
	})
}

type execOutput struct {
	stdout, stderr string
	status         metav1.Status
}

// execWS runs an exec over WebSocket v5.channel.k8s.io, sending msgs
// first, and collects the output until the server closes.
func execWS(t *testing.T, c *http.Client, u string, msgs [][]byte) execOutput {
	t.Helper()
	d := websocket.Dialer{
		TLSClientConfig:  c.Transport.(*http.Transport).TLSClientConfig,
		Subprotocols:     []string{server.ProtocolV5},
		HandshakeTimeout: 10 * time.Second,
	}
	conn, resp, err := d.Dial(strings.Replace(u, "https://", "wss://", 1), nil)
	if err != nil {
		body := ""
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			body = fmt.Sprintf("%d %s", resp.StatusCode, b)
		}
		t.Fatalf("dial %s: %v %s", u, err, body)
	}
	defer func() { _ = conn.Close() }()
	if conn.Subprotocol() != server.ProtocolV5 {
		t.Fatalf("subprotocol %q", conn.Subprotocol())
	}
	for _, m := range msgs {
		if err := conn.WriteMessage(websocket.BinaryMessage, m); err != nil {
			t.Fatal(err)
		}
	}
	var out execOutput
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	gotStatus := false
	for {
		_, m, err := conn.ReadMessage()
		if err != nil {
			if !gotStatus {
				t.Fatalf("exec ended without a status: %v (stdout %q)", err, out.stdout)
			}
			return out
		}
		if len(m) <= 1 {
			continue // the empty message opening the first channel
		}
		switch m[0] {
		case 1:
			out.stdout += string(m[1:])
		case 2:
			out.stderr += string(m[1:])
		case 3:
			gotStatus = true
			if err := json.Unmarshal(m[1:], &out.status); err != nil {
				t.Fatalf("status %q: %v", m[1:], err)
			}
		}
	}
}

// sizeQueue hands terminal sizes to client-go's executor.
type sizeQueue chan remotecommand.TerminalSize

func (q sizeQueue) Next() *remotecommand.TerminalSize {
	sz, ok := <-q
	if !ok {
		return nil
	}
	return &sz
}

// blockingReader is a terminal's stdin that nobody types on: it blocks
// until ctx ends.
type blockingReader struct{ ctx context.Context }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.ctx.Done()
	return 0, io.EOF
}

// pemEncode returns cert's first certificate and its key in PEM.
func pemEncode(t *testing.T, cert tls.Certificate) (certPEM, keyPEM []byte) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}
