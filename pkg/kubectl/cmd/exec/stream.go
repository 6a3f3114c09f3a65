package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// The channel protocols of pods/exec over a WebSocket, newest first, and
// their channels: each message starts with its channel's byte.
const (
	protocolV5 = "v5.channel.k8s.io"
	protocolV4 = "v4.channel.k8s.io"

	chanStdin  = 0
	chanStdout = 1
	chanStderr = 2
	chanError  = 3
	chanResize = 4
	// chanClose ([255, channel], v5 only) closes the client's side of a
	// channel: stdin at its end.
	chanClose = 255
)

// terminalSize is what the resize channel carries.
type terminalSize struct {
	Width  uint16 `json:"Width"`
	Height uint16 `json:"Height"`
}

// streamOptions say which streams an exec has.
type streamOptions struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	tty            bool
	// resizes, when the exec has a terminal, sends its sizes: the first
	// at once, then each change; closed when done.
	resizes <-chan terminalSize
}

// wsConn serializes the writes of a WebSocket connection.
type wsConn struct {
	mu   sync.Mutex
	conn *websocket.Conn
}

func (c *wsConn) send(channel byte, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn.WriteMessage(websocket.BinaryMessage, append([]byte{channel}, data...))
}

// stream runs the exec at u over a WebSocket with the credentials of cfg
// and copies the streams until the server closes it. The command's end
// is the error channel's Status: nil for success, an ExitError for a
// non-zero exit code.
func stream(ctx context.Context, cfg *rest.Config, u *url.URL, o streamOptions) error {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return err
	}
	header, err := cmdutil.RequestHeader(cfg)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "https":
		u.Scheme = "wss"
	case "http":
		u.Scheme = "ws"
	}
	dialer := websocket.Dialer{
		TLSClientConfig:  tlsConfig,
		Subprotocols:     []string{protocolV5, protocolV4},
		HandshakeTimeout: 30 * time.Second,
		Proxy:            http.ProxyFromEnvironment,
	}
	c, resp, err := dialer.DialContext(ctx, u.String(), header)
	if err != nil {
		return cmdutil.UpgradeError(resp, err)
	}
	conn := &wsConn{conn: c}
	defer func() { _ = c.Close() }()
	if o.stdin != nil {
		go copyStdin(conn, o.stdin, c.Subprotocol() == protocolV5)
	}
	if o.resizes != nil {
		go func() {
			for sz := range o.resizes {
				b, _ := json.Marshal(sz)
				if conn.send(chanResize, b) != nil {
					return
				}
			}
		}()
	}
	var status *metav1.Status
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			if websocket.IsCloseError(err, websocket.CloseNormalClosure) || errors.Is(err, io.EOF) {
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("error reading from the exec stream: %w", err)
		}
		if len(msg) <= 1 {
			// The empty message that opens the server's first channel.
			continue
		}
		switch msg[0] {
		case chanStdout:
			if o.stdout != nil {
				_, _ = o.stdout.Write(msg[1:])
			}
		case chanStderr:
			if o.stderr != nil {
				_, _ = o.stderr.Write(msg[1:])
			}
		case chanError:
			var st metav1.Status
			if err := json.Unmarshal(msg[1:], &st); err != nil {
				return fmt.Errorf("error stream protocol error: %v in %q", err, msg[1:])
			}
			status = &st
		}
	}
	return statusError(status)
}

// copyStdin sends stdin, then closes the channel where the protocol can.
func copyStdin(conn *wsConn, in io.Reader, canClose bool) {
	buf := make([]byte, 32*1024)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if conn.send(chanStdin, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	if canClose {
		_ = conn.send(chanClose, []byte{chanStdin})
	}
}

// statusError turns the Status of the error channel into the command's
// result.
func statusError(st *metav1.Status) error {
	if st == nil || st.Status == metav1.StatusSuccess {
		return nil
	}
	if st.Reason == "NonZeroExitCode" && st.Details != nil {
		for _, c := range st.Details.Causes {
			if c.Type != "ExitCode" {
				continue
			}
			code, err := strconv.Atoi(c.Message)
			if err != nil {
				return fmt.Errorf("invalid exit code in status: %q", c.Message)
			}
			return &cmdutil.ExitError{Code: code, Msg: fmt.Sprintf("command terminated with exit code %d", code)}
		}
	}
	return errors.New(st.Message)
}
