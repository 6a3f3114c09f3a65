package server

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// scriptRuntime runs "echo ARGS..." (to stdout), "cat" (stdin to
// stdout) and "fail" (a line on stderr, exit code 3); only Type and Exec
// are called.
type scriptRuntime struct{ kruntime.Runtime }

func (scriptRuntime) Type() string { return "script" }

func (scriptRuntime) Exec(_ context.Context, _ string, cmd []string, s kruntime.ExecStreams) (int32, error) {
	switch cmd[0] {
	case "echo":
		_, err := s.Stdout.Write([]byte(strings.Join(cmd[1:], " ") + "\n"))
		return 0, err
	case "cat":
		_, err := io.Copy(s.Stdout, s.Stdin)
		return 0, err
	case "fail":
		_, err := s.Stderr.Write([]byte("failing\n"))
		return 3, err
	}
	return 127, nil
}

// wsMessage is one server message, decoded by the test itself from the
// subprotocol's framing.
type wsMessage struct {
	channel byte
	data    string
}

func dialExec(t *testing.T, base string, protocols []string, query url.Values) (*websocket.Conn, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: protocols, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/exec/ns/pod/c?"+query.Encode(), nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	return conn, err
}

// readAll reads the server's messages until it closes, decoding each
// as base64 text or binary as the test expects.
func readAll(t *testing.T, conn *websocket.Conn, b64 bool) []wsMessage {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	var out []wsMessage
	for {
		kind, msg, err := conn.ReadMessage()
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				t.Fatalf("read: %v (messages so far %q)", err, out)
			}
			return out
		}
		if b64 {
			if kind != websocket.TextMessage {
				t.Fatalf("binary message %q under a base64 subprotocol", msg)
			}
			data, err := base64.StdEncoding.DecodeString(string(msg[1:]))
			if err != nil {
				t.Fatalf("message %q: %v", msg, err)
			}
			out = append(out, wsMessage{msg[0] - '0', string(data)})
			continue
		}
		if kind != websocket.BinaryMessage {
			t.Fatalf("text message %q under a binary subprotocol", msg)
		}
		out = append(out, wsMessage{msg[0], string(msg[1:])})
	}
}

// TestExecSubprotocols: exec serves every channel subprotocol Kubernetes'
// kubelet serves, with the framing of each: binary or base64 text, the
// empty message that opens the first written channel, and the outcome as a
// Status (v4, v5) or as a failure's bare message (channel.k8s.io,
// base64.channel.k8s.io, and no subprotocol at all).
func TestExecSubprotocols(t *testing.T) {
	s, err := New(Config{Host: attachHost{rt: scriptRuntime{}}, Address: "127.0.0.1", ClientCAs: x509.NewCertPool()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.secure.Close() }()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	echo := url.Values{"command": {"echo", "remote", "execution", "test"}, "stdout": {"1"}, "stderr": {"1"}}
	fail := url.Values{"command": {"fail"}, "stdout": {"1"}, "stderr": {"1"}}
	failMsg := "command terminated with non-zero exit code: error executing command [fail], exit code 3"
	for _, tc := range []struct {
		name      string
		requested []string
		chosen    string
		b64, json bool
	}{
		{"v1", []string{ProtocolV1}, ProtocolV1, false, false},
		{"v1 base64", []string{ProtocolV1Base64}, ProtocolV1Base64, true, false},
		{"none", nil, "", false, false},
		{"v4", []string{ProtocolV4}, ProtocolV4, false, true},
		{"v4 base64", []string{ProtocolV4Base64}, ProtocolV4Base64, true, true},
		{"v5", []string{ProtocolV5, ProtocolV4}, ProtocolV5, false, true},
		{"client's order", []string{"v9.channel.k8s.io", ProtocolV1Base64, ProtocolV5}, ProtocolV1Base64, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range []url.Values{echo, fail} {
				conn, err := dialExec(t, srv.URL, tc.requested, q)
				if err != nil {
					t.Fatal(err)
				}
				if conn.Subprotocol() != tc.chosen {
					t.Errorf("subprotocol %q, want %q", conn.Subprotocol(), tc.chosen)
				}
				msgs := readAll(t, conn, tc.b64)
				_ = conn.Close()
				if len(msgs) == 0 || msgs[0] != (wsMessage{chanStdout, ""}) {
					t.Fatalf("first message %q, want an empty one on stdout", msgs)
				}
				var stdout, stderr string
				var errs []string
				for _, m := range msgs[1:] {
					switch m.channel {
					case chanStdout:
						stdout += m.data
					case chanStderr:
						stderr += m.data
					case chanError:
						errs = append(errs, m.data)
					default:
						t.Errorf("message on channel %d: %q", m.channel, m.data)
					}
				}
				succeeds := q.Get("command") == "echo"
				if succeeds && (stdout != "remote execution test\n" || stderr != "") || !succeeds && (stdout != "" || stderr != "failing\n") {
					t.Errorf("%s: stdout %q, stderr %q", q.Get("command"), stdout, stderr)
				}
				switch {
				case tc.json:
					var st metav1.Status
					if len(errs) != 1 || json.Unmarshal([]byte(errs[0]), &st) != nil {
						t.Fatalf("error channel %q, want one Status", errs)
					}
					if succeeds && st.Status != metav1.StatusSuccess || !succeeds && (st.Reason != "NonZeroExitCode" || st.Message != failMsg) {
						t.Errorf("%s: status %+v", q.Get("command"), st)
					}
				case succeeds:
					if len(errs) != 0 {
						t.Errorf("error channel %q after a success, want nothing", errs)
					}
				default:
					if len(errs) != 1 || errs[0] != failMsg {
						t.Errorf("error channel %q, want %q", errs, failMsg)
					}
				}
			}
		})
	}

	t.Run("stdin", func(t *testing.T) {
		for _, tc := range []struct {
			protocol string
			in       [][]byte
			kind     int
		}{
			// Only v5 can end stdin (the close signal); under the
			// others the test reads the echo and hangs up.
			{ProtocolV5, [][]byte{append([]byte{chanStdin}, "abc"...), {chanClose, chanStdin}}, websocket.BinaryMessage},
			{ProtocolV1Base64, [][]byte{[]byte("0" + base64.StdEncoding.EncodeToString([]byte("abc")))}, websocket.TextMessage},
		} {
			conn, err := dialExec(t, srv.URL, []string{tc.protocol}, url.Values{"command": {"cat"}, "stdin": {"1"}, "stdout": {"1"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tc.in {
				if err := conn.WriteMessage(tc.kind, m); err != nil {
					t.Fatal(err)
				}
			}
			b64 := tc.kind == websocket.TextMessage
			_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			var stdout string
			for stdout != "abc" {
				kind, msg, err := conn.ReadMessage()
				if err != nil {
					t.Fatalf("%s: read: %v (stdout %q)", tc.protocol, err, stdout)
				}
				if (kind == websocket.TextMessage) != b64 || len(msg) == 0 {
					t.Fatalf("%s: message %q of type %d", tc.protocol, msg, kind)
				}
				data := msg[1:]
				if b64 {
					if data, err = base64.StdEncoding.DecodeString(string(data)); err != nil {
						t.Fatal(err)
					}
				}
				stdout += string(data)
			}
			_ = conn.Close()
		}
	})

	t.Run("unknown subprotocols", func(t *testing.T) {
		_, err := dialExec(t, srv.URL, []string{"v9.channel.k8s.io"}, echo)
		if err != websocket.ErrBadHandshake {
			t.Errorf("dial with only an unknown subprotocol: %v, want a refused handshake", err)
		}
	})
}
