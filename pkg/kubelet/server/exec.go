package server

import (
	"context"
	"encoding/base64"
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

// The WebSocket subprotocols of exec and attach, newest first. A client
// that asks for none gets the framing of channel.k8s.io, as from
// Kubernetes' kubelet.
const (
	ProtocolV5       = "v5.channel.k8s.io"
	ProtocolV4       = "v4.channel.k8s.io"
	ProtocolV4Base64 = "v4.base64.channel.k8s.io"
	ProtocolV1       = "channel.k8s.io"
	ProtocolV1Base64 = "base64.channel.k8s.io"
)

// wsFraming is what a subprotocol decides about the messages.
type wsFraming struct {
	// base64: text messages whose first byte is the channel as an ASCII
	// digit ('0'+channel) and whose rest is the payload in standard
	// base64, both ways; otherwise binary messages [channel, payload...].
	base64 bool
	// statusJSON: the error channel carries the outcome as a meta/v1
	// Status, Success included (v4, v5); otherwise (channel.k8s.io,
	// base64.channel.k8s.io) only a failure's message, as plain text.
	statusJSON bool
	// closeSignal: a client message [255, channel] closes that channel
	// (v5).
	closeSignal bool
}

// framingOf returns the framing of a subprotocol the kubelet serves.
func framingOf(protocol string) (wsFraming, bool) {
	switch protocol {
	case ProtocolV5:
		return wsFraming{statusJSON: true, closeSignal: true}, true
	case ProtocolV4:
		return wsFraming{statusJSON: true}, true
	case ProtocolV4Base64:
		return wsFraming{base64: true, statusJSON: true}, true
	case ProtocolV1, "":
		return wsFraming{}, true
	case ProtocolV1Base64:
		return wsFraming{base64: true}, true
	}
	return wsFraming{}, false
}

// negotiateWS picks the subprotocol of a WebSocket request: the first the
// client lists that the kubelet serves (the client's preference decides),
// "" when it lists none; ok is false when it lists only others.
func negotiateWS(requested []string) (protocol string, ok bool) {
	if len(requested) == 0 {
		return "", true
	}
	for _, p := range requested {
		if _, ok := framingOf(p); ok && p != "" {
			return p, true
		}
	}
	return "", false
}

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
	mu      sync.Mutex
	conn    *websocket.Conn
	framing wsFraming
}

func (c *wsChannels) send(channel byte, p []byte) error {
	kind, msg := websocket.BinaryMessage, make([]byte, 0, 1+len(p))
	if c.framing.base64 {
		kind = websocket.TextMessage
		msg = base64.StdEncoding.AppendEncode(append(msg, '0'+channel), p)
	} else {
		msg = append(append(msg, channel), p...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(time.Minute))
	return c.conn.WriteMessage(kind, msg)
}

// receive splits a client's message into its channel and payload; ok is
// false for a message to drop (empty, or not base64 under a base64
// subprotocol).
func (c *wsChannels) receive(msg []byte) (channel byte, p []byte, ok bool) {
	if len(msg) == 0 {
		return 0, nil, false
	}
	if msg[0] == chanClose {
		// The close signal of v5; no channel of the others.
		return chanClose, msg[1:], c.framing.closeSignal
	}
	if !c.framing.base64 {
		return msg[0], msg[1:], true
	}
	p, err := base64.StdEncoding.AppendDecode(nil, msg[1:])
	if err != nil || msg[0] < '0' {
		return 0, nil, false
	}
	return msg[0] - '0', p, true
}

// sendStatus writes the outcome on the error channel as the subprotocol
// wants it: a Status, or a failure's message and nothing for a success.
func (c *wsChannels) sendStatus(st metav1.Status) error {
	if c.framing.statusJSON {
		b, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("encode the exec's status: %w", err)
		}
		return c.send(chanError, b)
	}
	if st.Status == metav1.StatusSuccess {
		return nil
	}
	return c.send(chanError, []byte(st.Message))
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
		httpError(w, http.StatusBadRequest, "%s needs a WebSocket (%s, %s, %s, %s, %s) or SPDY/3.1 upgrade", x.verb(), ProtocolV5, ProtocolV4, ProtocolV4Base64, ProtocolV1, ProtocolV1Base64)
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

// overWebSocket carries the exec over a WebSocket of one of the channel
// subprotocols.
func (x *execution) overWebSocket(w http.ResponseWriter, r *http.Request) {
	o := x.opts
	protocol, ok := negotiateWS(websocket.Subprotocols(r))
	if !ok {
		httpError(w, http.StatusBadRequest, "none of the WebSocket subprotocols %v is served; %s serves %s", websocket.Subprotocols(r), x.verb(),
			strings.Join([]string{ProtocolV5, ProtocolV4, ProtocolV4Base64, ProtocolV1, ProtocolV1Base64}, ", "))
		return
	}
	framing, _ := framingOf(protocol)
	var header http.Header
	if protocol != "" {
		header = http.Header{"Sec-Websocket-Protocol": {protocol}}
	}
	up := websocket.Upgrader{
		// Callers are authenticated by their client certificate.
		CheckOrigin:      func(*http.Request) bool { return true },
		HandshakeTimeout: 30 * time.Second,
	}
	conn, err := up.Upgrade(w, r, header)
	if err != nil {
		return // the upgrader answered
	}
	defer func() { _ = conn.Close() }()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ch := &wsChannels{conn: conn, framing: framing}
	// An empty message on the first channel the server writes tells the
	// client the streams are set up (clients of channel.k8s.io wait for
	// it, others skip it).
	first := byte(chanError)
	switch {
	case o.stdout:
		first = chanStdout
	case o.stderr:
		first = chanStderr
	}
	if err := ch.send(first, nil); err != nil {
		return
	}
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
			channel, p, ok := ch.receive(msg)
			if !ok {
				continue
			}
			switch channel {
			case chanStdin:
				if stdinW != nil {
					if _, err := stdinW.Write(p); err != nil {
						stdinW = nil
					}
				}
			case chanResize:
				var sz kruntime.TerminalSize
				if json.Unmarshal(p, &sz) == nil {
					offerResize(resize, sz)
				}
			case chanClose:
				// [255, channel], or [255, 0 (half-close), channel].
				if len(p) >= 1 && p[len(p)-1] == chanStdin && stdinW != nil {
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
	if err := ch.sendStatus(st); err != nil {
		klog.FromContext(ctx).V(4).Info("Could not send the outcome", append([]any{"verb", x.verb(), "err", err}, x.what...)...)
	}
	ch.mu.Lock()
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	ch.mu.Unlock()
}
