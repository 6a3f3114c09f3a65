package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"k8s.io/klog/v2"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// The WebSocket subprotocols of exec, newest first.
const (
	ProtocolV5 = "v5.channel.k8s.io"
	ProtocolV4 = "v4.channel.k8s.io"
)

// The channels of the channel protocols.
const (
	chanStdin  = 0
	chanStdout = 1
	chanStderr = 2
	chanError  = 3
	chanResize = 4
	chanClose  = 255 // v5: [255, channel] closes a channel
)

// execOptions are the query parameters of /exec and /attach (which has
// no command).
type execOptions struct {
	command                   []string
	stdin, stdout, stderr, tt bool
}

func parseExecOptions(r *http.Request, attach bool) (execOptions, error) {
	q := r.URL.Query()
	o := execOptions{command: q["command"]}
	if len(o.command) == 0 && !attach {
		return o, fmt.Errorf("command is required")
	}
	var err error
	for name, p := range map[string]*bool{"stdin": &o.stdin, "stdout": &o.stdout, "stderr": &o.stderr, "tty": &o.tt} {
		// "1" and "true" are both sent by clients.
		if *p, err = parseBool(q, name); err != nil {
			return o, err
		}
	}
	if !o.stdin && !o.stdout && !o.stderr {
		return o, fmt.Errorf("you must specify at least one of stdin, stdout, stderr")
	}
	if o.tt && o.stderr {
		// A terminal merges stderr into stdout.
		o.stderr = false
	}
	return o, nil
}

// wsChannels writes to the channels of one WebSocket connection.
type wsChannels struct {
	mu   sync.Mutex
	conn *websocket.Conn
}

func (c *wsChannels) send(channel byte, p []byte) error {
	msg := make([]byte, 1+len(p))
	msg[0] = channel
	copy(msg[1:], p)
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(time.Minute))
	return c.conn.WriteMessage(websocket.BinaryMessage, msg)
}

// channelWriter is an io.Writer onto one channel.
type channelWriter struct {
	c       *wsChannels
	channel byte
}

func (w channelWriter) Write(p []byte) (int, error) {
	if err := w.c.send(w.channel, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// exitStatus is what channel 3 carries at the end of an exec.
func exitStatus(cmd []string, code int32, err error) metav1.Status {
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}}
	switch {
	case err != nil:
		st.Status, st.Reason, st.Code = metav1.StatusFailure, metav1.StatusReasonInternalError, http.StatusInternalServerError
		st.Message = err.Error()
	case code != 0:
		st.Status, st.Reason = metav1.StatusFailure, "NonZeroExitCode"
		st.Message = fmt.Sprintf("command terminated with non-zero exit code: error executing command [%s], exit code %d", strings.Join(cmd, " "), code)
		st.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "ExitCode", Message: strconv.Itoa(int(code))}}}
	default:
		st.Status = metav1.StatusSuccess
	}
	return st
}

func (s *Server) serveExec(w http.ResponseWriter, r *http.Request) {
	s.serveStreams(w, r, false)
}

// serveAttach attaches to a container's own process, over the same
// transports as exec.
func (s *Server) serveAttach(w http.ResponseWriter, r *http.Request) {
	s.serveStreams(w, r, true)
}

func (s *Server) serveStreams(w http.ResponseWriter, r *http.Request, attach bool) {
	ns, pod, name := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	o, err := parseExecOptions(r, attach)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	c, err := s.cfg.Host.Container(r.Context(), ns, pod, name, false)
	if err != nil {
		containerError(w, err)
		return
	}
	if c.State != kruntime.ContainerRunning {
		httpError(w, http.StatusBadRequest, "container %s is not running", name)
		return
	}
	x := &execution{host: s.cfg.Host, id: c.ID, opts: o, what: []any{"pod", ns + "/" + pod, "container", name}}
	if attach {
		a, ok := s.cfg.Host.Runtime().(kruntime.Attacher)
		if !ok {
			httpError(w, http.StatusBadRequest, "the %s runtime cannot attach to containers", s.cfg.Host.Runtime().Type())
			return
		}
		x.attacher = a
	}
	switch {
	case websocket.IsWebSocketUpgrade(r):
		x.overWebSocket(w, r)
	case isSPDYUpgrade(r):
		x.overSPDY(w, r)
	default:
		httpError(w, http.StatusBadRequest, "%s needs a WebSocket (%s, %s) or SPDY/3.1 upgrade", x.verb(), ProtocolV5, ProtocolV4)
	}
}

// execution is one exec or attach request, whichever transport carries
// its streams.
type execution struct {
	host Host
	id   string
	opts execOptions
	what []any // pod and container, for logs
	// attacher, when set, makes this an attach to the container's own
	// process instead of an exec.
	attacher kruntime.Attacher
}

func (x *execution) verb() string {
	if x.attacher != nil {
		return "attach"
	}
	return "exec"
}

// run runs the command (or attaches) with streams and returns the Status
// the error channel carries: an attach ends in Success when the container
// exits. ok is false when the client went away first (ctx ended), leaving
// nobody to tell.
func (x *execution) run(ctx context.Context, streams kruntime.ExecStreams) (st metav1.Status, ok bool) {
	var code int32
	var err error
	if x.attacher != nil {
		err = x.attacher.Attach(ctx, x.id, streams)
	} else {
		code, err = x.host.Runtime().Exec(ctx, x.id, x.opts.command, streams)
	}
	if ctx.Err() != nil && err != nil {
		klog.FromContext(ctx).V(4).Info("Stream client went away", append([]any{"verb", x.verb()}, x.what...)...)
		return st, false
	}
	return exitStatus(x.opts.command, code, err), true
}

// offerResize hands sz to the exec, replacing a size not taken yet.
func offerResize(resize chan kruntime.TerminalSize, sz kruntime.TerminalSize) {
	select {
	case resize <- sz:
	default:
		select {
		case <-resize:
		default:
		}
		resize <- sz
	}
}

// overWebSocket carries the exec over a WebSocket of the channel protocol.
func (x *execution) overWebSocket(w http.ResponseWriter, r *http.Request) {
	o := x.opts
	up := websocket.Upgrader{
		Subprotocols: []string{ProtocolV5, ProtocolV4},
		// Callers are authenticated by their client certificate.
		CheckOrigin:      func(*http.Request) bool { return true },
		HandshakeTimeout: 30 * time.Second,
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	defer func() { _ = conn.Close() }()
	if conn.Subprotocol() == "" {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseProtocolError,
			"one of the subprotocols "+ProtocolV5+", "+ProtocolV4+" is required"), time.Now().Add(time.Second))
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ch := &wsChannels{conn: conn}
	streams := kruntime.ExecStreams{TTY: o.tt}
	if o.stdout {
		streams.Stdout = channelWriter{ch, chanStdout}
	}
	if o.stderr {
		streams.Stderr = channelWriter{ch, chanStderr}
	}
	var stdinW *io.PipeWriter
	if o.stdin {
		var stdinR *io.PipeReader
		stdinR, stdinW = io.Pipe()
		streams.Stdin = stdinR
	}
	resize := make(chan kruntime.TerminalSize, 1)
	if o.tt {
		streams.Resize = resize
	}
	// The reader: stdin, resizes and closes from the client; a client
	// that goes away ends the exec.
	go func(stdinW *io.PipeWriter) {
		defer cancel()
		for {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				if stdinW != nil {
					_ = stdinW.CloseWithError(io.EOF)
				}
				return
			}
			if len(msg) == 0 {
				continue
			}
			switch msg[0] {
			case chanStdin:
				if stdinW != nil {
					if _, err := stdinW.Write(msg[1:]); err != nil {
						stdinW = nil
					}
				}
			case chanResize:
				var sz kruntime.TerminalSize
				if json.Unmarshal(msg[1:], &sz) == nil {
					offerResize(resize, sz)
				}
			case chanClose:
				// [255, channel], or [255, 0 (half-close), channel].
				if len(msg) >= 2 && msg[len(msg)-1] == chanStdin && stdinW != nil {
					_ = stdinW.Close()
				}
			}
		}
	}(stdinW)
	st, ok := x.run(ctx, streams)
	if stdinW != nil {
		_ = stdinW.Close()
	}
	if !ok {
		return
	}
	b, _ := json.Marshal(st)
	_ = ch.send(chanError, b)
	ch.mu.Lock()
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	ch.mu.Unlock()
}
