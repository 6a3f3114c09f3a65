package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// ProtocolPortForward is the SPDY subprotocol of port forwarding.
const ProtocolPortForward = "portforward.k8s.io"

// The headers of a port-forward stream: the client opens an error stream
// and a data stream per connection, with the port and a request ID that
// pairs them.
const (
	headerPort      = "port"
	headerRequestID = "requestID"
	streamData      = "data"
)

// portForwardIdle closes a port-forward connection without streams for
// this long, as Kubernetes' kubelet does after its stream idle timeout.
const portForwardIdle = 4 * time.Hour

// servePortForward is /portForward/{namespace}/{pod}: over SPDY/3.1, each
// pair of streams the client opens is one TCP connection to a port in the
// pod's network. Clients that try a WebSocket first are refused, and
// fall back to SPDY.
func (s *Server) servePortForward(w http.ResponseWriter, r *http.Request) {
	ns, pod := r.PathValue("namespace"), r.PathValue("pod")
	fw, ok := s.cfg.Host.Runtime().(kruntime.PortForwarder)
	if !ok {
		httpError(w, http.StatusBadRequest, "port forwarding is not supported by this node's container runtime")
		return
	}
	sb, err := s.cfg.Host.Sandbox(r.Context(), ns, pod)
	if err != nil {
		containerError(w, err)
		return
	}
	if !isSPDYUpgrade(r) {
		httpError(w, http.StatusBadRequest, "port forwarding needs an upgrade to %s", spdy.HeaderSpdy31)
		return
	}
	if _, err := httpstream.Handshake(r, w, []string{ProtocolPortForward}); err != nil {
		return // the handshake answered
	}
	f := &forwarder{fw: fw, sandbox: sb.ID, pod: ns + "/" + pod, uid: sb.Config.UID, pairs: map[string]*streamPair{}}
	conn, opened := upgradeSPDY(w, r)
	if conn == nil {
		return // the upgrader answered
	}
	defer func() { _ = conn.Close() }()
	conn.SetIdleTimeout(portForwardIdle)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel, which ends the forwards
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	for {
		select {
		case <-conn.CloseChan():
			return
		case <-ctx.Done():
			return
		case st := <-opened:
			if p := f.add(st); p != nil {
				wg.Go(func() { f.forward(ctx, p) })
			}
		}
	}
}

// forwarder pairs the streams of one port-forward connection.
type forwarder struct {
	fw       kruntime.PortForwarder
	sandbox  string
	pod, uid string

	mu    sync.Mutex
	pairs map[string]*streamPair
}

// streamPair is the data and error streams of one forwarded connection.
type streamPair struct {
	id          string
	data, error httpstream.Stream
}

// add files st under its request ID and returns the pair it completes.
// A stream that is neither data nor error, or lacks its request ID, is
// reset.
func (f *forwarder) add(st httpstream.Stream) *streamPair {
	id := st.Headers().Get(headerRequestID)
	kind := st.Headers().Get(headerStreamType)
	if id == "" || (kind != streamData && kind != streamError) {
		_ = st.Reset()
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pairs[id]
	if p == nil {
		p = &streamPair{id: id}
		f.pairs[id] = p
	}
	if kind == streamData {
		p.data = st
	} else {
		p.error = st
	}
	if p.data == nil || p.error == nil {
		return nil
	}
	delete(f.pairs, id)
	return p
}

// forward connects one pair's data stream to the pod's port; a failure
// is written on its error stream.
//
// At the end the error stream is closed first (the client waits for it
// once its data stream ends), then the data stream, which is also reset:
// data the client still sends on it would otherwise wait for a reader
// forever, and with it every stream the connection's frame handler
// shares with it (later forwarded connections hang).
func (f *forwarder) forward(ctx context.Context, p *streamPair) {
	defer func() {
		_ = p.error.Close()
		_ = p.data.Close()
		_ = p.data.Reset()
	}()
	logger := klog.FromContext(ctx)
	port, err := strconv.ParseUint(p.data.Headers().Get(headerPort), 10, 16)
	if err == nil && port == 0 {
		err = errors.New("must be between 1 and 65535")
	}
	if err != nil {
		fmt.Fprintf(p.error, "invalid port %q: %v", p.data.Headers().Get(headerPort), err)
		return
	}
	target, err := f.fw.PortForward(ctx, f.sandbox, int32(port))
	if err != nil {
		logger.V(2).Info("Port forward failed", "pod", f.pod, "port", port, "err", err)
		fmt.Fprintf(p.error, "error forwarding port %d to pod %s, uid %s: %v", port, f.pod, f.uid, err)
		return
	}
	defer func() { _ = target.Close() }()
	go func() {
		// The client finished sending: so does the target's side.
		_, _ = io.Copy(target, p.data)
		if cw, ok := target.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}()
	// The connection lasts until the target closes it, or the client's
	// connection ends.
	back := make(chan struct{})
	go func() {
		_, _ = io.Copy(p.data, target)
		close(back)
	}()
	select {
	case <-back:
	case <-ctx.Done():
	}
}
