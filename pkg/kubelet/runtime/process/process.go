// Package process is the kubelet's laptop runtime: each container's command
// runs as a host process group, with the pod's env, working dir and log file.
package process

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"kubecore.io/apimachinery/pkg/version"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Reasons of containers the process runtime cannot run.
const (
	// ReasonNeedsCommand: the container gives no command, and without
	// images there is no entrypoint to run.
	ReasonNeedsCommand = "ProcessRuntimeNeedsCommand"
	// ReasonNeedsRoot: volumes need a private mount namespace, which
	// needs root.
	ReasonNeedsRoot = "ProcessRuntimeNeedsRoot"
	// ReasonStartError: the process could not be started (exit code 128).
	ReasonStartError = "StartError"
)

// Options configure a Runtime.
type Options struct {
	// HostIP is the sandboxes' address: pods share the host's network.
	HostIP string
	// Root, if true, allows volume mounts through a private mount
	// namespace (unshare and mount from util-linux); the default is
	// whether the kubelet runs as root.
	Root *bool
}

// Runtime runs containers as host process groups. It keeps its state in
// memory only, so it cannot re-adopt its processes after a restart: run the
// kubelet with Config.StopPodsOnExit so that none is left unowned.
type Runtime struct {
	hostIP string
	root   bool

	mu         sync.Mutex
	next       uint64
	sandboxes  map[string]*kruntime.PodSandboxStatus
	containers map[string]*container
}

var _ kruntime.Runtime = (*Runtime)(nil)

type container struct {
	status kruntime.ContainerStatus
	cfg    kruntime.ContainerConfig
	done   chan struct{} // closed when the process has exited and been reaped
	pgid   int
}

// New returns a process runtime.
func New(o Options) *Runtime {
	root := os.Geteuid() == 0
	if o.Root != nil {
		root = *o.Root
	}
	return &Runtime{
		hostIP: o.HostIP, root: root,
		sandboxes:  map[string]*kruntime.PodSandboxStatus{},
		containers: map[string]*container{},
	}
}

// Type is "process".
func (r *Runtime) Type() string { return "process" }

// Version is kubecore's version.
func (r *Runtime) Version(context.Context) (string, error) { return version.Get().GitVersion, nil }

// Status checks that a shell can be found, which most commands need.
func (r *Runtime) Status(context.Context) error {
	if _, err := exec.LookPath("sh"); err != nil {
		return fmt.Errorf("process runtime: %w", err)
	}
	return nil
}

func (r *Runtime) newID() string {
	r.next++
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x%04x", b, r.next&0xffff)
}

// RunPodSandbox records a sandbox and makes its log directory.
func (r *Runtime) RunPodSandbox(_ context.Context, cfg kruntime.PodSandboxConfig) (string, error) {
	if cfg.LogDirectory != "" {
		if err := os.MkdirAll(cfg.LogDirectory, 0o755); err != nil {
			return "", fmt.Errorf("sandbox log directory: %w", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.newID()
	r.sandboxes[id] = &kruntime.PodSandboxStatus{ID: id, Config: cfg, State: kruntime.SandboxReady, CreatedAt: time.Now(), IP: r.hostIP}
	return id, nil
}

// StopPodSandbox kills every process of the sandbox.
func (r *Runtime) StopPodSandbox(ctx context.Context, id string) error {
	r.mu.Lock()
	s, ok := r.sandboxes[id]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("sandbox %s: %w", id, kruntime.ErrNotFound)
	}
	s.State = kruntime.SandboxNotReady
	var ids []string
	for cid, c := range r.containers {
		if c.status.SandboxID == id {
			ids = append(ids, cid)
		}
	}
	r.mu.Unlock()
	var errs []error
	for _, cid := range ids {
		errs = append(errs, r.StopContainer(ctx, cid, 0))
	}
	return errors.Join(errs...)
}

// RemovePodSandbox forgets a stopped sandbox and its containers.
func (r *Runtime) RemovePodSandbox(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[id]
	if !ok {
		return nil
	}
	if s.State == kruntime.SandboxReady {
		return fmt.Errorf("remove sandbox %s: still ready, stop it first", id)
	}
	for cid, c := range r.containers {
		if c.status.SandboxID == id {
			if c.status.State == kruntime.ContainerRunning {
				return fmt.Errorf("remove sandbox %s: container %s still running", id, cid)
			}
			delete(r.containers, cid)
		}
	}
	delete(r.sandboxes, id)
	return nil
}

// PodSandboxStatus returns a copy of the sandbox.
func (r *Runtime) PodSandboxStatus(_ context.Context, id string) (*kruntime.PodSandboxStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[id]
	if !ok {
		return nil, fmt.Errorf("sandbox %s: %w", id, kruntime.ErrNotFound)
	}
	cp := *s
	return &cp, nil
}

// ListPodSandbox returns copies of every sandbox.
func (r *Runtime) ListPodSandbox(context.Context) ([]kruntime.PodSandboxStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]kruntime.PodSandboxStatus, 0, len(r.sandboxes))
	for _, s := range r.sandboxes {
		out = append(out, *s)
	}
	return out, nil
}

// CreateContainer checks that the container can run as a process and
// records it.
func (r *Runtime) CreateContainer(_ context.Context, sandboxID string, cfg kruntime.ContainerConfig) (string, error) {
	if len(cfg.Command) == 0 {
		return "", &kruntime.ContainerError{Reason: ReasonNeedsCommand, Message: fmt.Sprintf(
			"the process runtime runs commands on the host and cannot read the entrypoint of image %q: "+
				"set command (for example [\"sh\", \"-c\", \"...\"]) in the container spec, or run the pod on a node with a CRI runtime", cfg.Image)}
	}
	if len(cfg.Mounts) > 0 && !r.root {
		return "", &kruntime.ContainerError{Reason: ReasonNeedsRoot, Message: fmt.Sprintf(
			"container %q mounts volumes, which the process runtime does in a private mount namespace and that needs the kubelet to run as root", cfg.Name)}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[sandboxID]
	if !ok {
		return "", fmt.Errorf("sandbox %s: %w", sandboxID, kruntime.ErrNotFound)
	}
	if s.State != kruntime.SandboxReady {
		return "", fmt.Errorf("create container in sandbox %s: sandbox is not ready", sandboxID)
	}
	id := r.newID()
	logPath := ""
	if cfg.LogPath != "" {
		logPath = filepath.Join(s.Config.LogDirectory, cfg.LogPath)
	}
	r.containers[id] = &container{
		cfg: cfg, done: make(chan struct{}),
		status: kruntime.ContainerStatus{
			ID: id, SandboxID: sandboxID, Name: cfg.Name, Attempt: cfg.Attempt, Image: cfg.Image,
			State: kruntime.ContainerCreated, CreatedAt: time.Now(), LogPath: logPath,
		},
	}
	return id, nil
}

// StartContainer starts the process in its own process group. A process
// that cannot start makes the container exit with 128 and StartError.
func (r *Runtime) StartContainer(_ context.Context, id string) error {
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.status.State != kruntime.ContainerCreated {
		r.mu.Unlock()
		return fmt.Errorf("start container %s: state is %s, not created", id, c.status.State)
	}
	r.mu.Unlock()

	cmd, logFile, err := r.command(c)
	if err == nil {
		err = cmd.Start()
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if logFile != nil {
			_ = logFile.Close()
		}
		c.status.State, c.status.StartedAt, c.status.FinishedAt = kruntime.ContainerExited, now, now
		c.status.ExitCode, c.status.Reason, c.status.Message = 128, ReasonStartError, err.Error()
		close(c.done)
		return nil
	}
	c.status.State, c.status.StartedAt, c.status.PID = kruntime.ContainerRunning, now, cmd.Process.Pid
	c.pgid = cmd.Process.Pid
	go r.wait(c, cmd, logFile)
	return nil
}

// command builds the process of a container; volumes are bind-mounted in
// a private mount namespace before the command is exec'd.
func (r *Runtime) command(c *container) (*exec.Cmd, *os.File, error) {
	argv := append(slices.Clone(c.cfg.Command), c.cfg.Args...)
	if len(c.cfg.Mounts) > 0 {
		argv = append([]string{"unshare", "--mount", "--propagation", "private", "sh", "-c", mountScript(c.cfg.Mounts), "kubecore-mount"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = environ(c.cfg.Env)
	cmd.Dir = c.cfg.WorkingDir
	if cmd.Dir == "" {
		cmd.Dir = "/"
	} else if err := os.MkdirAll(cmd.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("working dir: %w", err)
	}
	var logFile *os.File
	if c.status.LogPath != "" {
		if err := os.MkdirAll(filepath.Dir(c.status.LogPath), 0o755); err != nil {
			return nil, nil, fmt.Errorf("log directory: %w", err)
		}
		f, err := os.OpenFile(c.status.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
		if err != nil {
			return nil, nil, fmt.Errorf("log file: %w", err)
		}
		logFile = f
		cmd.Stdout, cmd.Stderr = f, f
	}
	return cmd, logFile, nil
}

// mountScript bind-mounts each mount, then execs its arguments.
func mountScript(mounts []kruntime.Mount) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	for _, m := range mounts {
		src, dst := quote(m.HostPath), quote(m.ContainerPath)
		fmt.Fprintf(&b, "mkdir -p %s\nmount --bind %s %s\n", dst, src, dst)
		if m.ReadOnly {
			fmt.Fprintf(&b, "mount -o remount,bind,ro %s\n", dst)
		}
	}
	b.WriteString("exec \"$@\"\n")
	return b.String()
}

// quote makes s one shell word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// environ is the pod's variables plus PATH from the host when not set.
func environ(env []kruntime.KeyValue) []string {
	out := make([]string, 0, len(env)+1)
	hasPath := false
	for _, kv := range env {
		out = append(out, kv.Key+"="+kv.Value)
		hasPath = hasPath || kv.Key == "PATH"
	}
	if !hasPath {
		path := os.Getenv("PATH")
		if path == "" {
			path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		}
		out = append(out, "PATH="+path)
	}
	return out
}

// wait reaps the process, records how it ended and kills what is left of
// its process group.
func (r *Runtime) wait(c *container, cmd *exec.Cmd, logFile *os.File) {
	err := cmd.Wait()
	_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	if logFile != nil {
		_ = logFile.Close()
	}
	code, sig := int32(0), int32(0)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Signaled():
			sig = int32(ws.Signal())
			code = 128 + sig
		default:
			code = int32(ws.ExitStatus())
		}
	} else if err != nil {
		code = 1
	}
	r.mu.Lock()
	c.status.State, c.status.FinishedAt = kruntime.ContainerExited, time.Now()
	c.status.ExitCode, c.status.Signal, c.status.Reason = code, sig, kruntime.ExitReason(code)
	r.mu.Unlock()
	close(c.done)
}

// StopContainer sends SIGTERM to the process group, then SIGKILL after
// timeout, and waits for the process to be reaped.
func (r *Runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	state, pgid := c.status.State, c.pgid
	if state == kruntime.ContainerCreated {
		now := time.Now()
		c.status.State, c.status.StartedAt, c.status.FinishedAt, c.status.ExitCode, c.status.Reason = kruntime.ContainerExited, now, now, 0, kruntime.ReasonCompleted
		close(c.done)
	}
	r.mu.Unlock()
	if state != kruntime.ContainerRunning {
		return nil
	}
	if timeout > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-c.done:
			return nil
		case <-t.C:
		case <-ctx.Done():
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("stop container %s: process group %d did not exit after SIGKILL", id, pgid)
	}
}

// RemoveContainer forgets an exited container; its log file stays.
func (r *Runtime) RemoveContainer(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return nil
	}
	if c.status.State == kruntime.ContainerRunning {
		return fmt.Errorf("remove container %s: still running", id)
	}
	delete(r.containers, id)
	return nil
}

// ContainerStatus returns a copy of the container's status.
func (r *Runtime) ContainerStatus(_ context.Context, id string) (*kruntime.ContainerStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return nil, fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	cp := c.status
	return &cp, nil
}

// ListContainers returns the statuses of a sandbox's containers.
func (r *Runtime) ListContainers(_ context.Context, sandboxID string) ([]kruntime.ContainerStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []kruntime.ContainerStatus
	for _, c := range r.containers {
		if sandboxID == "" || c.status.SandboxID == sandboxID {
			out = append(out, c.status)
		}
	}
	return out, nil
}

// ExecSync runs cmd with the container's environment and working dir (in
// its mount namespace when it has volumes).
func (r *Runtime) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (kruntime.ExecResult, error) {
	if len(cmd) == 0 {
		return kruntime.ExecResult{}, errors.New("exec: empty command")
	}
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok {
		r.mu.Unlock()
		return kruntime.ExecResult{}, fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.status.State != kruntime.ContainerRunning {
		r.mu.Unlock()
		return kruntime.ExecResult{}, fmt.Errorf("exec in container %s: not running", id)
	}
	cfg, pid := c.cfg, c.status.PID
	r.mu.Unlock()

	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	argv := cmd
	if len(cfg.Mounts) > 0 {
		argv = append([]string{"nsenter", "--target", strconv.Itoa(pid), "--mount", "--"}, cmd...)
	}
	x := exec.CommandContext(ctx, argv[0], argv[1:]...)
	x.Env = environ(cfg.Env)
	x.Dir = cfg.WorkingDir
	if x.Dir == "" {
		x.Dir = "/"
	}
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.Cancel = func() error { return syscall.Kill(-x.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr strings.Builder
	x.Stdout, x.Stderr = &stdout, &stderr
	err := x.Run()
	res := kruntime.ExecResult{Stdout: []byte(stdout.String()), Stderr: []byte(stderr.String())}
	if ctx.Err() != nil {
		return res, fmt.Errorf("exec %q: %w", cmd[0], ctx.Err())
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.ExitCode = int32(exitErr.ExitCode())
		if res.ExitCode < 0 {
			res.ExitCode = 137
		}
	case err != nil:
		return res, fmt.Errorf("exec %q: %w", cmd[0], err)
	}
	return res, nil
}
