// Package fake is a container runtime without processes: containers run
// as soon as they start, until stopped. Hollow nodes and tests use it.
package fake

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Clock is the time source of the runtime.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Runtime is the fake runtime. A container whose command ends with the
// word list "exit N" (as in `sh -c "exit 3"`) exits with N as soon as it
// starts; every other container runs until stopped.
type Runtime struct {
	clock Clock
	ip    string

	mu         sync.Mutex
	next       uint64
	sandboxes  kruntime.Sandboxes
	containers map[string]*kruntime.ContainerStatus
	exitCodes  map[string]int32 // containers that exit at start
	calls      []string
	usage      Usage
}

var (
	_ kruntime.Runtime           = (*Runtime)(nil)
	_ kruntime.StatsProvider     = (*Runtime)(nil)
	_ kruntime.NodeStatsProvider = (*Runtime)(nil)
)

// Usage is the made-up resource usage of the fake runtime: every running
// container uses CPUMillicores of CPU (its cumulative CPU time grows by
// that much each second since it started) and MemoryBytes of memory; the
// node uses the sum of its containers plus NodeBaseMemoryBytes, out of
// NodeMemoryBytes.
type Usage struct {
	CPUMillicores       int64
	MemoryBytes         int64
	NodeBaseMemoryBytes int64
	NodeMemoryBytes     int64
}

// DefaultUsage is the usage of a new fake runtime: 1m of CPU and 4 MiB per
// container, a node of 32 GiB using 64 MiB by itself.
func DefaultUsage() Usage {
	return Usage{CPUMillicores: 1, MemoryBytes: 4 << 20, NodeBaseMemoryBytes: 64 << 20, NodeMemoryBytes: 32 << 30}
}

// SetUsage sets the made-up usage (hollow-node and kubelet flags).
func (r *Runtime) SetUsage(u Usage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.usage = u
}

// New returns an empty fake runtime whose sandboxes have address ip; a nil
// clock is the real one.
func New(ip string, clock Clock) *Runtime {
	if clock == nil {
		clock = realClock{}
	}
	return &Runtime{
		clock: clock, ip: ip,
		sandboxes:  kruntime.Sandboxes{},
		containers: map[string]*kruntime.ContainerStatus{},
		exitCodes:  map[string]int32{},
		usage:      DefaultUsage(),
	}
}

// Type is "fake".
func (r *Runtime) Type() string { return "fake" }

// Version is "0.1.0".
func (r *Runtime) Version(context.Context) (string, error) { return "0.1.0", nil }

// Status is always healthy.
func (r *Runtime) Status(context.Context) error { return nil }

// Calls returns the operations made so far, such as "StartContainer c-3".
func (r *Runtime) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func (r *Runtime) record(op, id string) { r.calls = append(r.calls, op+" "+id) }

func (r *Runtime) newID(prefix string) string {
	r.next++
	return prefix + "-" + strconv.FormatUint(r.next, 10)
}

// RunPodSandbox makes a ready sandbox.
func (r *Runtime) RunPodSandbox(_ context.Context, cfg kruntime.PodSandboxConfig) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.newID("sandbox")
	r.sandboxes[id] = &kruntime.PodSandboxStatus{ID: id, Config: cfg, State: kruntime.SandboxReady, CreatedAt: r.clock.Now(), IP: r.ip}
	r.record("RunPodSandbox", id)
	return id, nil
}

// StopPodSandbox exits the sandbox's containers with 137.
func (r *Runtime) StopPodSandbox(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[id]
	if !ok {
		return fmt.Errorf("sandbox %s: %w", id, kruntime.ErrNotFound)
	}
	for _, c := range r.containers {
		if c.SandboxID == id && c.State != kruntime.ContainerExited {
			r.exit(c, 137)
		}
	}
	s.State = kruntime.SandboxNotReady
	r.record("StopPodSandbox", id)
	return nil
}

// RemovePodSandbox removes the sandbox and its containers.
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
		if c.SandboxID == id {
			delete(r.containers, cid)
			delete(r.exitCodes, cid)
		}
	}
	delete(r.sandboxes, id)
	r.record("RemovePodSandbox", id)
	return nil
}

// PodSandboxStatus returns a copy of the sandbox.
func (r *Runtime) PodSandboxStatus(_ context.Context, id string) (*kruntime.PodSandboxStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sandboxes.Status(id)
}

// ListPodSandbox returns copies of every sandbox.
func (r *Runtime) ListPodSandbox(context.Context) ([]kruntime.PodSandboxStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sandboxes.List(), nil
}

// CreateContainer makes a created container in a ready sandbox.
func (r *Runtime) CreateContainer(_ context.Context, sandboxID string, cfg kruntime.ContainerConfig) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[sandboxID]
	if !ok {
		return "", fmt.Errorf("sandbox %s: %w", sandboxID, kruntime.ErrNotFound)
	}
	if s.State != kruntime.SandboxReady {
		return "", fmt.Errorf("create container in sandbox %s: sandbox is not ready", sandboxID)
	}
	id := r.newID("container")
	r.containers[id] = &kruntime.ContainerStatus{
		ID: id, SandboxID: sandboxID, Name: cfg.Name, Attempt: cfg.Attempt, Image: cfg.Image,
		State: kruntime.ContainerCreated, CreatedAt: r.clock.Now(),
		LogPath: filepath.Join(s.Config.LogDirectory, cfg.LogPath),
	}
	if code, ok := exitCode(append(slices.Clone(cfg.Command), cfg.Args...)); ok {
		r.exitCodes[id] = code
	}
	r.record("CreateContainer", id)
	return id, nil
}

// exitCode reads "exit N" at the end of a command line.
func exitCode(argv []string) (int32, bool) {
	if len(argv) == 0 {
		return 0, false
	}
	f := strings.Fields(argv[len(argv)-1])
	if len(f) != 2 || f[0] != "exit" {
		return 0, false
	}
	n, err := strconv.ParseInt(f[1], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// StartContainer runs the container (or exits it at once, see Runtime).
func (r *Runtime) StartContainer(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.State != kruntime.ContainerCreated {
		return fmt.Errorf("start container %s: state is %s, not created", id, c.State)
	}
	c.State, c.StartedAt = kruntime.ContainerRunning, r.clock.Now()
	if code, ok := r.exitCodes[id]; ok {
		r.exit(c, code)
	}
	r.record("StartContainer", id)
	return nil
}

func (r *Runtime) exit(c *kruntime.ContainerStatus, code int32) {
	c.State, c.FinishedAt, c.ExitCode, c.Reason = kruntime.ContainerExited, r.clock.Now(), code, kruntime.ExitReason(code)
	if c.StartedAt.IsZero() {
		c.StartedAt = c.FinishedAt
	}
}

// StopContainer exits a running container with 143 (SIGTERM) at once.
func (r *Runtime) StopContainer(_ context.Context, id string, _ time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.State != kruntime.ContainerExited {
		r.exit(c, 143)
	}
	r.record("StopContainer", id)
	return nil
}

// RemoveContainer removes an exited container.
func (r *Runtime) RemoveContainer(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return nil
	}
	if c.State == kruntime.ContainerRunning {
		return fmt.Errorf("remove container %s: still running", id)
	}
	delete(r.containers, id)
	delete(r.exitCodes, id)
	r.record("RemoveContainer", id)
	return nil
}

// ContainerStatus returns a copy of the container.
func (r *Runtime) ContainerStatus(_ context.Context, id string) (*kruntime.ContainerStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return nil, fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	cp := *c
	return &cp, nil
}

// ListContainers returns copies of the sandbox's containers.
func (r *Runtime) ListContainers(_ context.Context, sandboxID string) ([]kruntime.ContainerStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []kruntime.ContainerStatus
	for _, c := range r.containers {
		if sandboxID == "" || c.SandboxID == sandboxID {
			out = append(out, *c)
		}
	}
	return out, nil
}

// ExecSync succeeds in a running container, or exits with N for "exit N".
func (r *Runtime) ExecSync(_ context.Context, id string, cmd []string, _ time.Duration) (kruntime.ExecResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return kruntime.ExecResult{}, fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.State != kruntime.ContainerRunning {
		return kruntime.ExecResult{}, fmt.Errorf("exec in container %s: not running", id)
	}
	code, _ := exitCode(cmd)
	return kruntime.ExecResult{ExitCode: code}, nil
}

// Exit ends a running container with code, as if its process exited.
func (r *Runtime) Exit(id string, code int32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if c.State == kruntime.ContainerRunning {
		r.exit(c, code)
	}
	return nil
}

// Exec succeeds in a running container, or exits with N for "exit N"; it
// copies stdin to stdout, as cat would.
func (r *Runtime) Exec(ctx context.Context, id string, cmd []string, s kruntime.ExecStreams) (int32, error) {
	res, err := r.ExecSync(ctx, id, cmd, 0)
	if err != nil {
		return 0, err
	}
	if s.Stdin != nil && s.Stdout != nil {
		if _, err := io.Copy(s.Stdout, s.Stdin); err != nil {
			return 0, fmt.Errorf("exec: %w", err)
		}
	}
	return res.ExitCode, nil
}

// ListContainerStats reports the made-up usage of every running container.
func (r *Runtime) ListContainerStats(context.Context) ([]kruntime.ContainerStats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	var out []kruntime.ContainerStats
	for _, c := range r.containers {
		if c.State != kruntime.ContainerRunning {
			continue
		}
		out = append(out, r.containerStats(c, now))
	}
	return out, nil
}

func (r *Runtime) containerStats(c *kruntime.ContainerStatus, now time.Time) kruntime.ContainerStats {
	ran := max(now.Sub(c.StartedAt), 0)
	cpu := uint64(max(r.usage.CPUMillicores, 0)) * uint64(ran.Nanoseconds()) / 1000
	mem := uint64(max(r.usage.MemoryBytes, 0))
	return kruntime.ContainerStats{ID: c.ID, Timestamp: now, CPUUsageCoreNanoSeconds: cpu,
		MemoryWorkingSetBytes: mem, MemoryUsageBytes: mem, MemoryRSSBytes: mem}
}

// NodeStats sums the containers' made-up usage, plus the node's base
// memory; the node's CPU time also counts containers that have exited.
func (r *Runtime) NodeStats(context.Context) (kruntime.NodeStats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	st := kruntime.NodeStats{Timestamp: now, MemoryWorkingSetBytes: uint64(max(r.usage.NodeBaseMemoryBytes, 0))}
	for _, c := range r.containers {
		switch c.State {
		case kruntime.ContainerRunning:
			cs := r.containerStats(c, now)
			st.CPUUsageCoreNanoSeconds += cs.CPUUsageCoreNanoSeconds
			st.MemoryWorkingSetBytes += cs.MemoryWorkingSetBytes
		case kruntime.ContainerExited:
			ran := max(c.FinishedAt.Sub(c.StartedAt), 0)
			st.CPUUsageCoreNanoSeconds += uint64(max(r.usage.CPUMillicores, 0)) * uint64(ran.Nanoseconds()) / 1000
		}
	}
	st.MemoryUsageBytes, st.MemoryRSSBytes = st.MemoryWorkingSetBytes, st.MemoryWorkingSetBytes
	if total := uint64(max(r.usage.NodeMemoryBytes, 0)); total > st.MemoryWorkingSetBytes {
		st.MemoryAvailableBytes = total - st.MemoryWorkingSetBytes
	}
	return st, nil
}
