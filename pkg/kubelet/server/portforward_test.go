package server

import (
	"context"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// loopbackRuntime forwards to the host's loopback, as the process runtime
// does for pods in the host's network; only Type and PortForward are
// called.
type loopbackRuntime struct{ kruntime.Runtime }

func (loopbackRuntime) Type() string { return "loopback" }

func (loopbackRuntime) PortForward(ctx context.Context, _ string, port int32) (net.Conn, error) {
	return kruntime.DialHostNetwork(ctx, port)
}

// sandboxHost is attachHost with a ready sandbox for every pod.
type sandboxHost struct{ attachHost }

func (sandboxHost) Sandbox(context.Context, string, string) (*kruntime.PodSandboxStatus, error) {
	return &kruntime.PodSandboxStatus{ID: "sb1", State: kruntime.SandboxReady, IP: "127.0.0.1"}, nil
}

// TestPortForwardRefusedConnections opens many forwarded connections to a
// port nothing listens on over one SPDY connection, each sending data as
// kubectl does: every one must get its error message (written only after
// the stream's reply, or the client drops it), and none may hang (data
// the kubelet never reads must not stall the streams after it). A
// forward to a listening port then still works.
func TestPortForwardRefusedConnections(t *testing.T) {
	s, err := New(Config{Host: sandboxHost{attachHost{rt: loopbackRuntime{}}}, Address: "127.0.0.1", ClientCAs: x509.NewCertPool()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.secure.Close() }()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	rt, err := spdy.NewRoundTripperWithConfig(spdy.RoundTripperConfig{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/portForward/ns/web", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(httpstream.HeaderConnection, httpstream.HeaderUpgrade)
	req.Header.Set(httpstream.HeaderUpgrade, spdy.HeaderSpdy31)
	req.Header.Set(httpstream.HeaderProtocolVersion, ProtocolPortForward)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %s", resp.Status)
	}
	conn, err := rt.NewConnection(resp)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().(*net.TCPAddr).Port
	_ = closed.Close()
	for i := range 25 {
		msg, _ := forwardOnce(t, conn, i, refused, "GET / HTTP/1.0\r\n\r\n")
		if want := "error forwarding port " + strconv.Itoa(refused) + " to pod ns/web"; !strings.Contains(msg, want) {
			t.Fatalf("connection %d: error stream %q, want it to contain %q", i, msg, want)
		}
	}

	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = echo.Close() }()
	go func() {
		c, err := echo.Accept()
		if err != nil {
			return
		}
		b, _ := io.ReadAll(c)
		_, _ = c.Write([]byte(strings.ToUpper(string(b))))
		_ = c.Close()
	}()
	msg, got := forwardOnce(t, conn, 25, echo.Addr().(*net.TCPAddr).Port, "hello")
	if msg != "" || got != "HELLO" {
		t.Errorf("forward to a listening port: error %q, data %q", msg, got)
	}
}

// forwardOnce is one forwarded connection as kubectl makes it: an error
// stream it only reads, a data stream it sends on and then half-closes.
// It returns the error stream's message and what came back on the data
// stream, and fails the test when either does not end in time.
func forwardOnce(t *testing.T, conn httpstream.Connection, id, port int, send string) (string, string) {
	t.Helper()
	h := http.Header{}
	h.Set(headerStreamType, streamError)
	h.Set(headerPort, strconv.Itoa(port))
	h.Set(headerRequestID, strconv.Itoa(id))
	errStream, err := conn.CreateStream(h)
	if err != nil {
		t.Fatal(err)
	}
	_ = errStream.Close()
	defer conn.RemoveStreams(errStream)
	h.Set(headerStreamType, streamData)
	data, err := conn.CreateStream(h)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.RemoveStreams(data)
	if _, err := data.Write([]byte(send)); err != nil {
		t.Fatal(err)
	}
	_ = data.Close()

	type result struct{ msg, data string }
	done := make(chan result, 1)
	go func() {
		back, _ := io.ReadAll(data)
		_ = data.Reset()
		msg, _ := io.ReadAll(errStream)
		done <- result{string(msg), string(back)}
	}()
	select {
	case r := <-done:
		return r.msg, r.data
	case <-time.After(30 * time.Second):
		t.Fatalf("connection %d to port %d: no end after 30s", id, port)
		return "", ""
	}
}
