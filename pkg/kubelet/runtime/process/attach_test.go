package process

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWith runs cfg in a new sandbox logging to logDir.
func startWith(t *testing.T, r *Runtime, logDir string, cfg kruntime.ContainerConfig) string {
	t.Helper()
	ctx := t.Context()
	sb, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "u", LogDirectory: logDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.StopPodSandbox(ctx, sb) })
	cfg.Name, cfg.LogPath = "c", "c/0.log"
	id, err := r.CreateContainer(ctx, sb, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAttachStdinOnce: a shell reading its stdin gets what the attached
// client writes, its output and errors come back on their streams, and the
// end of the client's input (stdinOnce) ends the shell, which ends the
// attach; the log file has the output too.
func TestAttachStdinOnce(t *testing.T) {
	r := newRuntime(t, Options{})
	logDir := t.TempDir()
	id := startWith(t, r, logDir, kruntime.ContainerConfig{
		Command: []string{"sh"}, Stdin: true, StdinOnce: true,
	})
	var stdout, stderr syncBuffer
	err := r.Attach(t.Context(), id, kruntime.ExecStreams{
		Stdin:  strings.NewReader("echo hello from stdin\necho oops >&2\nexit 3\n"),
		Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); got != "hello from stdin\n" {
		t.Errorf("stdout %q", got)
	}
	if got := stderr.String(); got != "oops\n" {
		t.Errorf("stderr %q", got)
	}
	if s := waitExited(t, r, id); s.ExitCode != 3 {
		t.Errorf("exit code %d, want 3", s.ExitCode)
	}
	log, err := os.ReadFile(filepath.Join(logDir, "c", "0.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), " stdout F hello from stdin\n") {
		t.Errorf("log %q", log)
	}
}

// TestAttachSeesOutputFromNow: a second client attaching to a container
// that prints gets the output written after it attached, and detaching
// leaves the container running.
func TestAttachSeesOutputFromNow(t *testing.T) {
	r := newRuntime(t, Options{})
	id := startWith(t, r, t.TempDir(), kruntime.ContainerConfig{
		Command: []string{"sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.05; done"},
	})
	ctx, cancel := contextWithCancel(t)
	out := &lineWaiter{want: 3, done: make(chan struct{})}
	errc := make(chan error, 1)
	go func() { errc <- r.Attach(ctx, id, kruntime.ExecStreams{Stdout: out}) }()
	<-out.done
	cancel()
	if err := <-errc; err == nil {
		t.Error("a cancelled attach returned no error")
	}
	if !strings.HasPrefix(out.String(), "tick ") {
		t.Errorf("output %q", out.String())
	}
	s, err := r.ContainerStatus(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s.State != kruntime.ContainerRunning {
		t.Errorf("state %s after detaching", s.State)
	}
}

// TestAttachTTY: a container with a terminal echoes its input and sees a
// terminal; ^D at the end of stdinOnce input ends it.
func TestAttachTTY(t *testing.T) {
	r := newRuntime(t, Options{})
	id := startWith(t, r, t.TempDir(), kruntime.ContainerConfig{
		Command: []string{"sh", "-c", `if [ -t 0 ]; then echo tty; fi; stty size; cat`}, Stdin: true, StdinOnce: true, TTY: true,
	})
	var stdout syncBuffer
	resize := make(chan kruntime.TerminalSize, 1)
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- r.Attach(t.Context(), id, kruntime.ExecStreams{Stdin: pr, Stdout: &stdout, TTY: true, Resize: resize})
	}()
	resize <- kruntime.TerminalSize{Width: 100, Height: 40}
	_, _ = pw.Write([]byte("typed\n"))
	_ = pw.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	waitExited(t, r, id)
	if got := stdout.String(); !strings.Contains(got, "typed") {
		t.Errorf("terminal output %q lacks the typed line", got)
	}
}

// TestAttachNotRunning: attaching to an exited container fails.
func TestAttachNotRunning(t *testing.T) {
	r := newRuntime(t, Options{})
	id := startWith(t, r, t.TempDir(), kruntime.ContainerConfig{Command: []string{"true"}})
	waitExited(t, r, id)
	if err := r.Attach(t.Context(), id, kruntime.ExecStreams{Stdout: io.Discard}); err == nil {
		t.Fatal("attach to an exited container succeeded")
	}
}

// lineWaiter closes done once it has seen want lines (containing marker,
// when set).
type lineWaiter struct {
	syncBuffer
	want   int
	marker string
	once   sync.Once
	done   chan struct{}
}

func (l *lineWaiter) Write(p []byte) (int, error) {
	n, err := l.syncBuffer.Write(p)
	if s := l.String(); strings.Count(s, "\n") >= l.want && strings.Contains(s, l.marker) {
		l.once.Do(func() { close(l.done) })
	}
	return n, err
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	return ctx, cancel
}

// TestAttachLeaveStdinOpen: without stdinOnce the end of a client's input
// ends its session and leaves the container running with its stdin open,
// for the next client.
func TestAttachLeaveStdinOpen(t *testing.T) {
	r := newRuntime(t, Options{})
	logDir := t.TempDir()
	id := startWith(t, r, logDir, kruntime.ContainerConfig{
		Command: []string{"sh", "-c", "cat; echo stdin closed"}, Stdin: true,
	})
	if err := r.Attach(t.Context(), id, kruntime.ExecStreams{Stdin: strings.NewReader("first\n"), Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	out := &lineWaiter{want: 1, done: make(chan struct{}), marker: "second\n"}
	pr, pw := io.Pipe()
	defer func() { _ = pw.Close() }()
	go func() { _ = r.Attach(t.Context(), id, kruntime.ExecStreams{Stdin: pr, Stdout: out}) }()
	// The second client's line comes back through cat, which is still
	// reading: the first client's end of input did not close its stdin.
	for {
		_, _ = pw.Write([]byte("second\n"))
		select {
		case <-out.done:
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	// (The first line may come too: the first client left before cat
	// echoed it.)
	if got := out.String(); !strings.Contains(got, "second\n") {
		t.Errorf("second client got %q", got)
	}
	s, err := r.ContainerStatus(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s.State != kruntime.ContainerRunning {
		t.Errorf("state %s", s.State)
	}
}

// TestAttachAfterKubeletRestart: the shim holds the streams, so a runtime
// that re-adopted a container (a restarted kubelet) attaches to it.
func TestAttachAfterKubeletRestart(t *testing.T) {
	state := t.TempDir()
	r := newRuntime(t, Options{StateDir: state})
	id := startWith(t, r, t.TempDir(), kruntime.ContainerConfig{Command: []string{"cat"}, Stdin: true, StdinOnce: true})
	r.Close()
	r2 := newRuntime(t, Options{StateDir: state})
	defer r2.Close()
	var stdout syncBuffer
	if err := r2.Attach(t.Context(), id, kruntime.ExecStreams{Stdin: strings.NewReader("still here\n"), Stdout: &stdout}); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); got != "still here\n" {
		t.Errorf("stdout %q", got)
	}
	waitExited(t, r2, id)
}
