package process

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Attach.
//
// A container's own process is the shim's child, so its standard streams
// are the shim's to hand out: the shim listens on a Unix socket (see
// attachSocketPath) for as long as the command runs, and every client
// connected to it gets a copy of the output from the moment it connects
// (the log file keeps getting all of it) and may write to the command's
// standard input, when the container has one. A kubelet restart loses
// nothing: the new kubelet connects to the same socket.
//
// On the socket both ways go frames: a type byte, a 4-byte big-endian
// length and the payload. The shim sends frameStdout and frameStderr (a
// terminal's output is all frameStdout) and closes the connection once
// the command has exited and its output is copied; the client sends
// frameStdin, frameCloseStdin (its input ended: the container's stdin
// closes when it has stdinOnce) and frameResize (a JSON TerminalSize).
const (
	frameStdin      byte = 0
	frameStdout     byte = 1
	frameStderr     byte = 2
	frameResize     byte = 4
	frameCloseStdin byte = 255

	maxFrame = 1 << 20
	// attachBacklog is how many chunks of output a client may fall
	// behind before it is cut off, so that a stuck client never stalls
	// the container.
	attachBacklog = 1024
	// attachWriteTimeout cuts off a client that takes no output at all.
	attachWriteTimeout = 10 * time.Second
)

// maxSocketPath is the longest path a Unix socket address holds.
const maxSocketPath = 107

// attachSocketPath is where the shim of container id listens: in its
// state directory, or in the temporary directory when that path is too
// long for a socket address.
func (r *Runtime) attachSocketPath(id string) string {
	p := filepath.Join(r.containerDir(id), "attach.sock")
	if len(p) > maxSocketPath {
		p = filepath.Join(os.TempDir(), "kubecore-attach-"+id+".sock")
	}
	return p
}

func writeFrame(w io.Writer, kind byte, p []byte) error {
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if _, err := w.Write(append(h[:], p...)); err != nil {
		return err
	}
	return nil
}

func readFrame(r io.Reader) (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("attach frame of %d bytes is too long", n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	return h[0], p, nil
}

// Attach implements kruntime.Attacher through the container's shim.
func (r *Runtime) Attach(ctx context.Context, id string, s kruntime.ExecStreams) error {
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	running := c.status.State == kruntime.ContainerRunning
	// The end of a client's input ends its session when nothing else
	// will: the container's stdin stays open (no stdinOnce) and it has no
	// terminal, whose user ends a session from within.
	detachAtEOF := !c.cfg.StdinOnce && !c.cfg.TTY
	r.mu.Unlock()
	if !running {
		return fmt.Errorf("attach to container %s: not running", id)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", r.attachSocketPath(id))
	if err != nil {
		return fmt.Errorf("attach to container %s: %w", id, err)
	}
	defer func() { _ = conn.Close() }()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	var wmu sync.Mutex
	send := func(kind byte, p []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return writeFrame(conn, kind, p)
	}
	// detached is closed when the client's input ended and that ends the
	// session (detachAtEOF), as containerd does for kubectl run
	// --leave-stdin-open: nothing the client sends could end it.
	detached := make(chan struct{})
	if s.Stdin != nil {
		// Not waited for: the reader may block after the container exits.
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Stdin.Read(buf)
				if n > 0 && send(frameStdin, buf[:n]) != nil {
					return
				}
				if err != nil {
					_ = send(frameCloseStdin, nil)
					if detachAtEOF {
						close(detached)
						_ = conn.Close()
					}
					return
				}
			}
		}()
	}
	go forwardResizes(ctx, s.Resize, func(sz kruntime.TerminalSize) error {
		b, _ := json.Marshal(sz)
		return send(frameResize, b)
	})
	for {
		kind, p, err := readFrame(conn)
		if err != nil {
			select {
			case <-detached:
				return nil
			default:
			}
			if ctx.Err() != nil {
				return fmt.Errorf("attach to container %s: %w", id, ctx.Err())
			}
			if errors.Is(err, io.EOF) {
				return nil // the container exited
			}
			return fmt.Errorf("attach to container %s: %w", id, err)
		}
		var w io.Writer
		switch kind {
		case frameStdout:
			w = s.Stdout
		case frameStderr:
			w = s.Stderr
		}
		if w != nil {
			if _, err := w.Write(p); err != nil {
				return fmt.Errorf("attach to container %s: %w", id, err)
			}
		}
	}
}

var _ kruntime.Attacher = (*Runtime)(nil)

// attachServer is the shim's side: the clients attached to the command
// and its standard input.
type attachServer struct {
	l         net.Listener
	path      string
	stdinOnce bool
	// stdin is the command's input (a pipe, or a terminal's master), nil
	// when it has none; tty is the terminal's master, for resizes.
	stdin io.WriteCloser
	tty   *os.File

	mu          sync.Mutex
	clients     map[*attachClient]struct{}
	stdinClosed bool
	closed      bool
	wg          sync.WaitGroup
}

type attachClient struct {
	conn net.Conn
	out  chan outputChunk
}

type outputChunk struct {
	kind byte
	p    []byte
}

// listenAttach listens on path (replacing a stale socket file).
func listenAttach(path string, stdinOnce bool) (*attachServer, error) {
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("attach socket: %w", err)
	}
	_ = os.Chmod(path, 0o600)
	return &attachServer{l: l, path: path, stdinOnce: stdinOnce, clients: map[*attachClient]struct{}{}}, nil
}

// serve accepts clients until close.
func (s *attachServer) serve() {
	for {
		conn, err := s.l.Accept()
		if err != nil {
			return
		}
		c := &attachClient{conn: conn, out: make(chan outputChunk, attachBacklog)}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = conn.Close()
			return
		}
		s.clients[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.writeTo(c)
		go s.readFrom(c)
	}
}

// writeTo sends c its output until its channel is closed, then hangs up.
func (s *attachServer) writeTo(c *attachClient) {
	defer s.wg.Done()
	defer func() { _ = c.conn.Close() }()
	for chunk := range c.out {
		_ = c.conn.SetWriteDeadline(time.Now().Add(attachWriteTimeout))
		if writeFrame(c.conn, chunk.kind, chunk.p) != nil {
			s.drop(c)
			for range c.out {
			}
			return
		}
	}
}

// readFrom takes c's input, resizes and end of input.
func (s *attachServer) readFrom(c *attachClient) {
	for {
		kind, p, err := readFrame(c.conn)
		if err != nil {
			s.drop(c)
			return
		}
		switch kind {
		case frameStdin:
			if s.stdin != nil && !s.isStdinClosed() {
				_, _ = s.stdin.Write(p)
			}
		case frameCloseStdin:
			if s.stdinOnce {
				s.closeStdin()
			}
		case frameResize:
			var sz kruntime.TerminalSize
			if s.tty != nil && json.Unmarshal(p, &sz) == nil {
				_ = setWinsize(s.tty, sz)
			}
		}
	}
}

func (s *attachServer) isStdinClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdinClosed
}

// closeStdin ends the command's input: a pipe is closed, a terminal gets
// ^D, which ends input for a program reading lines.
func (s *attachServer) closeStdin() {
	s.mu.Lock()
	if s.stdinClosed || s.stdin == nil {
		s.mu.Unlock()
		return
	}
	s.stdinClosed = true
	s.mu.Unlock()
	if s.tty != nil {
		_, _ = s.stdin.Write([]byte{4})
		return
	}
	_ = s.stdin.Close()
}

// drop cuts c off.
func (s *attachServer) drop(c *attachClient) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[c]; ok {
		delete(s.clients, c)
		close(c.out)
	}
}

// publish hands a chunk of output to every client; one too far behind is
// cut off.
func (s *attachServer) publish(kind byte, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) == 0 {
		return
	}
	chunk := outputChunk{kind: kind, p: append([]byte(nil), p...)}
	for c := range s.clients {
		select {
		case c.out <- chunk:
		default:
			delete(s.clients, c)
			close(c.out)
		}
	}
}

// writer is an io.Writer that publishes to the stream kind.
func (s *attachServer) writer(kind byte) io.Writer {
	return publishWriter{s: s, kind: kind}
}

type publishWriter struct {
	s    *attachServer
	kind byte
}

func (w publishWriter) Write(p []byte) (int, error) {
	w.s.publish(w.kind, p)
	return len(p), nil
}

// close stops listening and hangs up on every client once it has the
// output published so far.
func (s *attachServer) close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.clients {
		delete(s.clients, c)
		close(c.out)
	}
	s.mu.Unlock()
	_ = s.l.Close()
	_ = os.Remove(s.path)
	s.wg.Wait()
	if s.stdin != nil && s.tty == nil {
		_ = s.stdin.Close()
	}
}
