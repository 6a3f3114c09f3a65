package server

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// echoRuntime attaches by echoing stdin to stdout in upper case; only
// Type and Attach are called.
type echoRuntime struct {
	kruntime.Runtime
	attached string
}

func (r *echoRuntime) Type() string { return "echo" }

func (r *echoRuntime) Attach(_ context.Context, id string, s kruntime.ExecStreams) error {
	r.attached = id
	b, err := io.ReadAll(s.Stdin)
	if err != nil {
		return err
	}
	_, err = s.Stdout.Write([]byte(strings.ToUpper(string(b))))
	return err
}

type attachHost struct{ rt kruntime.Runtime }

func (h attachHost) Pods() []*corev1.Pod { return nil }
func (h attachHost) Container(context.Context, string, string, string, bool) (*kruntime.ContainerStatus, error) {
	return &kruntime.ContainerStatus{ID: "c1", State: kruntime.ContainerRunning}, nil
}
func (h attachHost) Runtime() kruntime.Runtime { return h.rt }
func (h attachHost) Sandbox(context.Context, string, string) (*kruntime.PodSandboxStatus, error) {
	return nil, kruntime.ErrNotFound
}

// TestAttachOverWebSocket: /attach carries stdin to the runtime's attach
// and its output back on the channels of v5.channel.k8s.io, and ends with
// a Success Status once the attach returns.
func TestAttachOverWebSocket(t *testing.T) {
	rt := &echoRuntime{}
	s, err := New(Config{Host: attachHost{rt: rt}, Address: "127.0.0.1", ClientCAs: x509.NewCertPool()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.secure.Close() }()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	d := websocket.Dialer{Subprotocols: []string{ProtocolV5}}
	conn, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/attach/ns/pod/c?stdin=1&stdout=1&stderr=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	for _, msg := range [][]byte{append([]byte{chanStdin}, "hello"...), {chanClose, chanStdin}} {
		if err := conn.WriteMessage(websocket.BinaryMessage, msg); err != nil {
			t.Fatal(err)
		}
	}
	var stdout string
	var status *metav1.Status
	for status == nil {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("read: %v (stdout so far %q)", err, stdout)
		}
		switch msg[0] {
		case chanStdout:
			stdout += string(msg[1:])
		case chanError:
			status = &metav1.Status{}
			if err := json.Unmarshal(msg[1:], status); err != nil {
				t.Fatal(err)
			}
		}
	}
	if stdout != "HELLO" || status.Status != metav1.StatusSuccess || rt.attached != "c1" {
		t.Errorf("stdout %q, status %+v, attached to %q", stdout, status, rt.attached)
	}
}

// TestAttachNeedsAnAttacher: a runtime that cannot attach is a 400.
func TestAttachNeedsAnAttacher(t *testing.T) {
	s, err := New(Config{Host: attachHost{rt: struct{ kruntime.Runtime }{&echoRuntime{}}}, Address: "127.0.0.1", ClientCAs: x509.NewCertPool()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.secure.Close() }()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/attach/ns/pod/c?stdout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "cannot attach") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}
