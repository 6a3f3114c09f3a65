package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// KubectlPath is the stock kubectl the suite drives.
const KubectlPath = "/usr/bin/kubectl"

// kubectlTimeout bounds one kubectl invocation that is not a watch.
const kubectlTimeout = 60 * time.Second

// Kubectl runs one kubectl binary against one kubeconfig.
type Kubectl struct {
	// Path is the kubectl binary.
	Path string
	// Args come before each run's own arguments: {"kubectl"} makes
	// Path=kubecore the bundled CLI, `kubecore kubectl`.
	Args []string
	// Kubeconfig is exported as $KUBECONFIG.
	Kubeconfig string
	// Home is kubectl's $HOME (its discovery cache lives under it).
	Home string
	// Env holds more NAME=value variables (KUBE_EDITOR, say).
	Env []string
}

// With returns a copy of k whose runs also have the variables env.
func (k *Kubectl) With(env ...string) *Kubectl {
	c := *k
	c.Env = append(append([]string(nil), k.Env...), env...)
	return &c
}

// Result is what one kubectl run printed and how it exited.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	ExitCode int
}

// String describes the run for a failure message.
func (r Result) String() string {
	return fmt.Sprintf("kubectl %s: exit %d\nstdout:\n%s\nstderr:\n%s",
		strings.Join(r.Args, " "), r.ExitCode, r.Stdout, r.Stderr)
}

func (k *Kubectl) command(ctx context.Context, stdin string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, k.Path, append(slices.Clip(k.Args), args...)...)
	env := []string{"KUBECONFIG=" + k.Kubeconfig, "PATH=" + os.Getenv("PATH")}
	if k.Home != "" {
		env = append(env, "HOME="+k.Home)
	}
	cmd.Env = append(env, k.Env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return cmd
}

// RunStdin runs kubectl with args and stdin and returns its output and
// exit code; it fails the test only when kubectl could not run at all.
func (k *Kubectl) RunStdin(t testing.TB, stdin string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := k.command(ctx, stdin, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		t.Fatalf("kubectl %s: no answer within %s\n%s", strings.Join(args, " "), kubectlTimeout, r)
	case errors.As(err, &exitErr):
		r.ExitCode = exitErr.ExitCode()
	default:
		t.Fatalf("run kubectl %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// Run is RunStdin without stdin.
func (k *Kubectl) Run(t testing.TB, args ...string) Result {
	t.Helper()
	return k.RunStdin(t, "", args...)
}

// MustRunStdin runs kubectl and fails the test unless it exits 0; it
// returns stdout.
func (k *Kubectl) MustRunStdin(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	r := k.RunStdin(t, stdin, args...)
	if r.ExitCode != 0 {
		t.Fatalf("unexpected failure: %s", r)
	}
	return r.Stdout
}

// MustRun is MustRunStdin without stdin.
func (k *Kubectl) MustRun(t testing.TB, args ...string) string {
	t.Helper()
	return k.MustRunStdin(t, "", args...)
}

// MustFail runs kubectl and fails the test unless it exits non-zero; it
// returns the result to look at the error.
func (k *Kubectl) MustFail(t testing.TB, stdin string, args ...string) Result {
	t.Helper()
	r := k.RunStdin(t, stdin, args...)
	if r.ExitCode == 0 {
		t.Fatalf("kubectl succeeded, want a failure: %s", r)
	}
	return r
}

// Background is a long-running kubectl (a watch) whose output is
// collected while it runs.
type Background struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// Start runs kubectl in the background; it is stopped (SIGTERM) when the
// test ends if it still runs.
func (k *Kubectl) Start(t testing.TB, args ...string) *Background {
	t.Helper()
	b := &Background{done: make(chan struct{})}
	b.cmd = k.command(context.Background(), "", args)
	b.cmd.Stdout = lockedWriter{&b.mu, &b.stdout}
	b.cmd.Stderr = lockedWriter{&b.mu, &b.stderr}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start kubectl %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		b.err = b.cmd.Wait()
		close(b.done)
	}()
	t.Cleanup(func() { b.Stop() })
	return b
}

// Stdout returns what the command printed so far.
func (b *Background) Stdout() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stdout.String()
}

// Stderr returns what the command printed to stderr so far.
func (b *Background) Stderr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

// Exited reports whether the command has ended.
func (b *Background) Exited() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// Stop ends the command (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (b *Background) Stop() {
	if b.Exited() {
		return
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}
