package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Over SPDY/3.1 (the fallback of clients whose WebSocket upgrade fails),
// each standard stream is a SPDY stream of its own that the client opens
// with a streamType header; closing a stream's write half ends it (so v5
// means the same as v4 here). The error stream carries the outcome Status.
const (
	headerStreamType = "streamType"

	streamError  = "error"
	streamStdin  = "stdin"
	streamStdout = "stdout"
	streamStderr = "stderr"
	streamResize = "resize"
)

// Waits of the SPDY exec: for the client to open its streams, and, at the
// end, for it to hang up after reading the outcome.
const (
	spdyStreamCreationTimeout = 30 * time.Second
	spdyHangUpTimeout         = 5 * time.Second
)

// isSPDYUpgrade tells whether r asks to upgrade to SPDY/3.1.
func isSPDYUpgrade(r *http.Request) bool {
	return httpstream.IsUpgradeRequest(r) && strings.EqualFold(r.Header.Get(httpstream.HeaderUpgrade), spdy.HeaderSpdy31)
}

// upgradeSPDY upgrades r to SPDY/3.1 and returns the connection and the
// streams the client opens. A stream is handed over only once the reply
// accepting it is on the wire: a SPDY client drops the data of a stream it
// has no reply for yet, so a message written earlier (an exec's output, a
// port forward's error) could be lost. The caller closes the connection;
// it is nil when the upgrader has answered the request itself.
func upgradeSPDY(w http.ResponseWriter, r *http.Request) (httpstream.Connection, <-chan httpstream.Stream) {
	opened := make(chan httpstream.Stream)
	closed := make(chan struct{})
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, replied <-chan struct{}) error {
		go func() {
			select {
			case <-replied:
			case <-closed:
				return
			}
			select {
			case opened <- s:
			case <-closed:
			}
		}()
		return nil
	})
	if conn == nil {
		return nil, nil
	}
	go func() {
		<-conn.CloseChan()
		close(closed)
	}()
	return conn, opened
}

// wantedStreams are the stream types an exec with o needs.
func wantedStreams(o execOptions) []string {
	want := []string{streamError}
	for _, s := range []struct {
		on   bool
		kind string
	}{{o.stdin, streamStdin}, {o.stdout, streamStdout}, {o.stderr, streamStderr}, {o.tt, streamResize}} {
		if s.on {
			want = append(want, s.kind)
		}
	}
	return want
}

// overSPDY carries the exec over a SPDY/3.1 connection: it negotiates the
// protocol version, waits for the client's streams, runs the command and
// writes the outcome on the error stream.
func (x *execution) overSPDY(w http.ResponseWriter, r *http.Request) {
	if _, err := httpstream.Handshake(r, w, []string{ProtocolV5, ProtocolV4}); err != nil {
		return // the handshake answered
	}
	conn, opened := upgradeSPDY(w, r)
	if conn == nil {
		return // the upgrader answered
	}
	defer func() { _ = conn.Close() }()
	logger := klog.FromContext(r.Context())

	streams, err := awaitStreams(conn, opened, wantedStreams(x.opts))
	if err != nil {
		logger.V(2).Info("Exec over SPDY abandoned", append(x.what, "err", err)...)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// A client that hangs up ends the exec.
	go func() {
		select {
		case <-conn.CloseChan():
			cancel()
		case <-ctx.Done():
		}
	}()
	es := kruntime.ExecStreams{TTY: x.opts.tt}
	if s := streams[streamStdin]; s != nil {
		es.Stdin = s
	}
	if s := streams[streamStdout]; s != nil {
		es.Stdout = s
	}
	if s := streams[streamStderr]; s != nil {
		es.Stderr = s
	}
	if s := streams[streamResize]; s != nil {
		resize := make(chan kruntime.TerminalSize, 1)
		es.Resize = resize
		go func() {
			dec := json.NewDecoder(s)
			for {
				var sz kruntime.TerminalSize
				if dec.Decode(&sz) != nil {
					return
				}
				offerResize(resize, sz)
			}
		}()
	}
	st, ok := x.run(ctx, es)
	if !ok {
		return
	}
	b, _ := json.Marshal(st)
	_, _ = streams[streamError].Write(b)
	for _, s := range streams {
		_ = s.Close()
	}
	// The client reads to the end of its streams and then hangs up;
	// closing first could cut off what it has not read yet.
	select {
	case <-conn.CloseChan():
	case <-time.After(spdyHangUpTimeout):
	}
}

// awaitStreams collects the streams of the wanted types as the client
// opens them, by type.
func awaitStreams(conn httpstream.Connection, opened <-chan httpstream.Stream, want []string) (map[string]httpstream.Stream, error) {
	got := make(map[string]httpstream.Stream, len(want))
	timeout := time.NewTimer(spdyStreamCreationTimeout)
	defer timeout.Stop()
	for len(got) < len(want) {
		select {
		case s := <-opened:
			kind := s.Headers().Get(headerStreamType)
			if _, dup := got[kind]; dup || !slices.Contains(want, kind) {
				_ = s.Reset()
				return nil, errors.New("unexpected stream of type " + kind)
			}
			got[kind] = s
		case <-conn.CloseChan():
			return nil, io.ErrUnexpectedEOF
		case <-timeout.C:
			return nil, errors.New("the client did not open its streams in time")
		}
	}
	return got, nil
}
