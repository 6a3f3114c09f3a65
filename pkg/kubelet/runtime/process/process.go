// Package process is the kubelet's laptop runtime: each container's command
// runs as a host process group, with the pod's env, working dir and log file.
package process

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/version"

	"kubecore.io/kubecore/pkg/kubelet/network"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Reasons of containers the process runtime cannot run.
const (
	// ReasonNeedsCommand: the container gives no command and the runtime
	// does not know its image's entrypoint (see Entrypoints).
	ReasonNeedsCommand = "ProcessRuntimeNeedsCommand"
	// ReasonProgramNotFound: the program the image's entrypoint names is
	// not installed on the host.
	ReasonProgramNotFound = "ProcessRuntimeProgramNotFound"
	// ReasonNeedsRoot: volumes need a private mount namespace, which
	// needs root.
	ReasonNeedsRoot = "ProcessRuntimeNeedsRoot"
	// ReasonImageConfig: the image's configuration could not be read
	// from the layout or store that holds it, or asks for what the
	// process runtime cannot do.
	ReasonImageConfig = "ProcessRuntimeImageConfigError"
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
	// StateDir holds the state files of sandboxes and containers, from
	// which a new Runtime re-adopts the processes of an earlier one.
	StateDir string
	// ShimCommand runs RunShim with the path of a spec file appended, such
	// as [kubecore, kubelet, process-shim]. See shim.go.
	ShimCommand []string
	// ContainerLogMaxSize, when positive, rotates a container's log file
	// once it would grow past that many bytes, keeping at most
	// ContainerLogMaxFiles files (at least 2) per container instance.
	ContainerLogMaxSize  int64
	ContainerLogMaxFiles int
	// Entrypoints knows the entrypoints of images, for containers without
	// a command; nil knows the well-known images only.
	Entrypoints *Entrypoints
	// Builtins run programs images name that the host lacks, by base
	// name: {"pause": [kubecore, kubelet, process-pause]}.
	Builtins map[string][]string
	// Network, when set, gives every sandbox that is not HostNetwork a
	// network namespace and address of its own, in which all its
	// containers run (through nsenter); without it pods share the
	// host's network and HostIP.
	Network PodNetwork
}

// PodNetwork makes and removes sandboxes' network namespaces;
// *network.Network satisfies it.
type PodNetwork interface {
	SetUpPod(ctx context.Context, sandboxID string) (network.Pod, error)
	TearDownPod(ctx context.Context, sandboxID string) error
}

var _ PodNetwork = (*network.Network)(nil)

// networkSetUpTimeout bounds how long a sandbox waits for the pod network
// (the node's pod CIDR) before its creation fails and is retried.
const networkSetUpTimeout = 30 * time.Second

// Runtime runs containers as host process groups, each under a shim (see
// shim.go). Its state lives in files under Options.StateDir:
//
//	sandboxes/<id>.json          a sandbox: its config and state
//	containers/<id>/state.json   a container: config, status, shim and
//	                             process IDs with their start times
//	containers/<id>/spec.json    what the shim runs
//	containers/<id>/exit.json    the exit status, written by the shim
//	containers/<id>/shim.log     the shim's own errors
//
// so that a kubelet killed and restarted re-adopts running containers
// without restarting them, and learns how the ones that exited meanwhile
// ended.
type Runtime struct {
	hostIP   string
	root     bool
	stateDir string
	shim     []string
	// logMaxSize and logMaxFiles are Options.ContainerLogMax*.
	logMaxSize  int64
	logMaxFiles int
	entrypoints *Entrypoints
	builtins    map[string][]string
	multicall   multicallPrograms
	network     PodNetwork
	bootID      string
	stop        chan struct{} // closed by Close

	mu         sync.Mutex
	closed     bool
	next       uint64
	sandboxes  kruntime.Sandboxes
	containers map[string]*container
}

var _ kruntime.Runtime = (*Runtime)(nil)

type container struct {
	status kruntime.ContainerStatus
	cfg    kruntime.ContainerConfig
	done   chan struct{} // closed once the container has exited
	// The shim's PID and both start times (see procStartTime).
	shimPID             int
	shimStart, pidStart uint64
	// multicall is the image's multi-call binary, "" for most images.
	multicall string
}

// containerRecord is a container's state.json.
type containerRecord struct {
	Status    kruntime.ContainerStatus `json:"status"`
	Config    kruntime.ContainerConfig `json:"config"`
	ShimPID   int                      `json:"shimPID,omitempty"`
	ShimStart uint64                   `json:"shimStart,omitempty"`
	PIDStart  uint64                   `json:"pidStart,omitempty"`
	BootID    string                   `json:"bootID,omitempty"`
	// Multicall is the image's multi-call binary (ImageConfig.Multicall),
	// through which exec runs its applets too.
	Multicall string `json:"multicall,omitempty"`
}

// New returns a process runtime holding the sandboxes and containers
// recorded under o.StateDir: those whose processes still run are watched
// again, those that exited meanwhile get the status their shim wrote.
func New(o Options) (*Runtime, error) {
	if o.StateDir == "" || len(o.ShimCommand) == 0 {
		return nil, errors.New("process runtime: a state dir and a shim command are required")
	}
	root := os.Geteuid() == 0
	if o.Root != nil {
		root = *o.Root
	}
	r := &Runtime{
		hostIP: o.HostIP, root: root, stateDir: o.StateDir, shim: slices.Clone(o.ShimCommand),
		logMaxSize: o.ContainerLogMaxSize, logMaxFiles: o.ContainerLogMaxFiles,
		entrypoints: o.Entrypoints, builtins: o.Builtins, network: o.Network,
		bootID: bootID(), stop: make(chan struct{}),
		sandboxes:  kruntime.Sandboxes{},
		containers: map[string]*container{},
	}
	for _, d := range []string{"sandboxes", "containers"} {
		if err := os.MkdirAll(filepath.Join(o.StateDir, d), 0o700); err != nil {
			return nil, fmt.Errorf("process runtime state dir: %w", err)
		}
	}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

// Close stops watching processes and writing state, and leaves every
// container running: the Runtime is then as good as a killed kubelet's,
// and a new one on the same state dir takes over.
func (r *Runtime) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.stop)
	}
}

// load reads the state files and re-adopts the containers.
func (r *Runtime) load() error {
	sbFiles, err := filepath.Glob(filepath.Join(r.stateDir, "sandboxes", "*.json"))
	if err != nil {
		return fmt.Errorf("process runtime state: %w", err)
	}
	for _, f := range sbFiles {
		var s kruntime.PodSandboxStatus
		if err := readJSON(f, &s); err != nil {
			klog.ErrorS(err, "Skipping an unreadable sandbox state file", "path", f)
			continue
		}
		r.sandboxes[s.ID] = &s
	}
	dirs, err := os.ReadDir(filepath.Join(r.stateDir, "containers"))
	if err != nil {
		return fmt.Errorf("process runtime state: %w", err)
	}
	for _, d := range dirs {
		f := filepath.Join(r.stateDir, "containers", d.Name(), "state.json")
		var rec containerRecord
		if err := readJSON(f, &rec); err != nil {
			klog.ErrorS(err, "Skipping an unreadable container state file", "path", f)
			continue
		}
		if _, ok := r.sandboxes[rec.Status.SandboxID]; !ok || rec.Status.ID != d.Name() {
			continue
		}
		c := &container{status: rec.Status, cfg: rec.Config, done: make(chan struct{}),
			shimPID: rec.ShimPID, shimStart: rec.ShimStart, pidStart: rec.PIDStart, multicall: rec.Multicall}
		r.containers[c.status.ID] = c
		switch {
		case c.status.State == kruntime.ContainerExited:
			close(c.done)
		case c.status.State == kruntime.ContainerRunning && rec.BootID == r.bootID:
			klog.V(2).InfoS("Re-adopting a running container", "container", c.status.ID, "name", c.status.Name, "pid", c.status.PID)
			go r.watch(c, 200*time.Millisecond)
		case c.status.State == kruntime.ContainerRunning:
			// The machine rebooted: nothing of it runs.
			r.finish(c, exitStatus{ExitCode: 255, FinishedAt: time.Now()}, "the node restarted while the container ran")
		default:
			// Created but never started: still startable.
		}
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (r *Runtime) containerDir(id string) string { return filepath.Join(r.stateDir, "containers", id) }

// saveSandbox writes a sandbox's state file; r.mu is held.
func (r *Runtime) saveSandbox(s *kruntime.PodSandboxStatus) error {
	if r.closed {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode sandbox %s: %w", s.ID, err)
	}
	return writeFileAtomic(filepath.Join(r.stateDir, "sandboxes", s.ID+".json"), b)
}

// saveContainer writes a container's state file; r.mu is held.
func (r *Runtime) saveContainer(c *container) error {
	if r.closed {
		return nil
	}
	b, err := json.Marshal(containerRecord{Status: c.status, Config: c.cfg,
		ShimPID: c.shimPID, ShimStart: c.shimStart, PIDStart: c.pidStart, BootID: r.bootID, Multicall: c.multicall})
	if err != nil {
		return fmt.Errorf("encode container %s: %w", c.status.ID, err)
	}
	return writeFileAtomic(filepath.Join(r.containerDir(c.status.ID), "state.json"), b)
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

// RunPodSandbox records a sandbox and makes its log directory, and its
// network namespace with the pod network.
func (r *Runtime) RunPodSandbox(ctx context.Context, cfg kruntime.PodSandboxConfig) (string, error) {
	if cfg.LogDirectory != "" {
		if err := os.MkdirAll(cfg.LogDirectory, 0o755); err != nil {
			return "", fmt.Errorf("sandbox log directory: %w", err)
		}
	}
	r.mu.Lock()
	id := r.newID()
	r.mu.Unlock()
	s := &kruntime.PodSandboxStatus{ID: id, Config: cfg, State: kruntime.SandboxReady, CreatedAt: time.Now(), IP: r.hostIP}
	if r.network != nil && !cfg.HostNetwork {
		nctx, cancel := context.WithTimeout(ctx, networkSetUpTimeout)
		p, err := r.network.SetUpPod(nctx, id)
		cancel()
		if err != nil {
			return "", err
		}
		s.IP, s.NetNS = p.IP, p.NetNS
	}
	if err := r.setUpSandboxSecurity(ctx, s); err != nil {
		r.tearDown(ctx, s)
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.saveSandbox(s); err != nil {
		r.tearDown(ctx, s)
		return "", err
	}
	r.sandboxes[id] = s
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
	var errs []error
	if s.State != kruntime.SandboxNotReady {
		s.State = kruntime.SandboxNotReady
		errs = append(errs, r.saveSandbox(s))
	}
	var ids []string
	for cid, c := range r.containers {
		if c.status.SandboxID == id {
			ids = append(ids, cid)
		}
	}
	netns, ipcns := s.NetNS, s.IPCNS
	r.mu.Unlock()
	for _, cid := range ids {
		errs = append(errs, r.StopContainer(ctx, cid, 0))
	}
	if netns != "" && r.network != nil {
		errs = append(errs, r.network.TearDownPod(ctx, id))
	}
	errs = append(errs, removeNamespace(ipcns))
	return errors.Join(errs...)
}

// tearDown removes a sandbox's namespaces, logging a failure.
func (r *Runtime) tearDown(ctx context.Context, s *kruntime.PodSandboxStatus) {
	if err := removeNamespace(s.IPCNS); err != nil {
		klog.ErrorS(err, "Failed to remove a sandbox's IPC namespace", "sandbox", s.ID)
	}
	if s.NetNS == "" || r.network == nil {
		return
	}
	if err := r.network.TearDownPod(ctx, s.ID); err != nil {
		klog.ErrorS(err, "Failed to remove a sandbox's network", "sandbox", s.ID)
	}
}

// RemovePodSandbox forgets a stopped sandbox and its containers.
func (r *Runtime) RemovePodSandbox(ctx context.Context, id string) error {
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
		if c.status.SandboxID == id && c.status.State == kruntime.ContainerRunning {
			return fmt.Errorf("remove sandbox %s: container %s still running", id, cid)
		}
	}
	for cid, c := range r.containers {
		if c.status.SandboxID == id {
			if err := os.RemoveAll(r.containerDir(cid)); err != nil {
				return fmt.Errorf("remove container %s: %w", cid, err)
			}
			delete(r.containers, cid)
		}
	}
	if s.NetNS != "" && r.network != nil {
		// Stopping tore it down; this is for a stop that failed half way.
		if err := r.network.TearDownPod(ctx, id); err != nil {
			return fmt.Errorf("remove sandbox %s: %w", id, err)
		}
	}
	if err := removeNamespace(s.IPCNS); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	if err := os.Remove(filepath.Join(r.stateDir, "sandboxes", id+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	delete(r.sandboxes, id)
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

// CreateContainer checks that the container can run as a process and
// records it.
func (r *Runtime) CreateContainer(ctx context.Context, sandboxID string, cfg kruntime.ContainerConfig) (string, error) {
	image, known, err := r.entrypoints.lookup(ctx, cfg.Image)
	if err != nil {
		return "", &kruntime.ContainerError{Reason: ReasonImageConfig, Message: fmt.Sprintf("image %q: %v", cfg.Image, err)}
	}
	if err := checkUser(cfg.Image, image.User, r.root); err != nil {
		return "", &kruntime.ContainerError{Reason: ReasonImageConfig, Message: err.Error()}
	}
	cfg = withImageConfig(cfg, image)
	if len(cfg.Command) == 0 {
		argv, err := argv(image, known, cfg.Image, nil, cfg.Args)
		if err != nil {
			return "", &kruntime.ContainerError{Reason: ReasonNeedsCommand, Message: err.Error()}
		}
		program, err := hostProgram(argv[0], r.builtins)
		if err != nil {
			return "", &kruntime.ContainerError{Reason: ReasonProgramNotFound, Message: fmt.Sprintf(
				"image %q runs %q, which is not installed on this node: install it, set command in the container spec, "+
					"map the image in the kubelet's --image-entrypoints file, or run the pod on a node with a CRI runtime", cfg.Image, argv[0])}
		}
		cfg.Command, cfg.Args = append(program, argv[1:]...), nil
	} else {
		cfg.Command = imageCommand(image, cfg.Image, cfg.Command, r.builtins)
	}
	cfg.Command = r.multicall.command(image.Multicall, cfg.Command)
	if !r.root {
		// Without root the service account's API access volume cannot be
		// placed at its well-known path; the pod runs without it rather
		// than not at all. Volumes the pod asked for still need root.
		cfg.Mounts = slices.DeleteFunc(slices.Clone(cfg.Mounts), func(m kruntime.Mount) bool {
			return m.Optional || m.ContainerPath == corev1.ServiceAccountMountPath
		})
	}
	if cfg.Security != nil && cfg.Security.ReadOnlyRootfs && !r.root {
		return "", &kruntime.ContainerError{Reason: ReasonNeedsRoot, Message: fmt.Sprintf(
			"container %q has a read-only root filesystem, which the process runtime makes in a private mount namespace and that needs the kubelet to run as root", cfg.Name)}
	}
	if len(cfg.Mounts) > 0 && !r.root {
		return "", &kruntime.ContainerError{Reason: ReasonNeedsRoot, Message: fmt.Sprintf(
			"container %q mounts volumes, which the process runtime does in a private mount namespace and that needs the kubelet to run as root", cfg.Name)}
	}
	if _, err := r.credentials(cfg); err != nil {
		return "", fmt.Errorf("container %q: %w", cfg.Name, err)
	}
	if u := cfg.User; u != nil && !r.root && (u.UID != int64(os.Geteuid()) || u.GID != int64(os.Getegid()) || len(u.SupplementalGroups) > 0) {
		return "", &kruntime.ContainerError{Reason: ReasonNeedsRoot, Message: fmt.Sprintf(
			"container %q runs as user %d, group %d (its security context), which needs the kubelet to run as root", cfg.Name, u.UID, u.GID)}
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
	c := &container{
		cfg: cfg, done: make(chan struct{}), multicall: image.Multicall,
		status: kruntime.ContainerStatus{
			ID: id, SandboxID: sandboxID, Name: cfg.Name, Attempt: cfg.Attempt, Image: cfg.Image,
			State: kruntime.ContainerCreated, CreatedAt: time.Now(), LogPath: logPath,
		},
	}
	if err := os.MkdirAll(r.containerDir(id), 0o700); err != nil {
		return "", fmt.Errorf("container state dir: %w", err)
	}
	if err := r.saveContainer(c); err != nil {
		return "", err
	}
	r.containers[id] = c
	return id, nil
}

// shimStartTimeout bounds how long a shim may take to start its command.
const shimStartTimeout = 30 * time.Second

// StartContainer starts the container's command under a shim, in its own
// process group. A command that cannot start makes the container exit
// with 128 and StartError.
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
	cfg, logPath := c.cfg, c.status.LogPath
	var pod podNamespaces
	if s, ok := r.sandboxes[c.status.SandboxID]; ok {
		pod.ipcns = s.IPCNS
		if s.NetNS != "" {
			pod.netns, pod.hostname, pod.dns, pod.ip, pod.hosts = s.NetNS, s.Config.Hostname, s.Config.DNS, s.IP, s.Config.Hosts
		}
	}
	r.mu.Unlock()

	// Taken before the command starts, so never after its exit.
	now := time.Now()
	shim, pid, pidStart, err := r.startShim(id, cfg, logPath, pod)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		c.status.StartedAt = now
		setExited(c, exitStatus{ExitCode: 128, FinishedAt: time.Now()}, err.Error())
		c.status.Reason = ReasonStartError
		saveErr := r.saveContainer(c)
		close(c.done)
		return saveErr
	}
	c.status.State, c.status.StartedAt, c.status.PID = kruntime.ContainerRunning, now, pid
	c.shimPID, c.pidStart = shim.Process.Pid, pidStart
	c.shimStart, _ = procStartTime(c.shimPID)
	saveErr := r.saveContainer(c)
	go func() {
		_ = shim.Wait()
		r.watch(c, 200*time.Millisecond)
	}()
	return saveErr
}

// workDir is the working directory of container id when neither it nor
// its image names one.
func (r *Runtime) workDir(id string) string { return filepath.Join(r.containerDir(id), "workdir") }

// podNamespaces is what a sandbox with a network of its own gives its
// containers; the zero value (host network) gives nothing.
type podNamespaces struct {
	// netns is the path of the pod's network namespace.
	netns string
	// hostname is the pod's hostname ("" keeps the host's).
	hostname string
	// dns is the pod's resolv.conf; nil keeps the host's.
	dns *kruntime.DNSConfig
	// ip is the pod's address, and hosts what the pod's /etc/hosts has
	// besides (nil keeps the host's).
	ip    string
	hosts *kruntime.HostsConfig
	// ipcns is the path of the pod's IPC namespace ("" shares the host's).
	ipcns string
}

// startShim writes the container's spec and starts its shim, which
// reports the command's PID and start time, or why it did not start. In
// a pod with a network namespace (pod.netns) nsenter enters it and execs
// the command, whose PID it keeps; the pod's dns, when set, is then its
// /etc/resolv.conf (a file of the container's bind-mounted there), and
// its hostname that of a UTS namespace of the container's own, as a
// runtime with network namespaces gives them.
func (r *Runtime) startShim(id string, cfg kruntime.ContainerConfig, logPath string, pod podNamespaces) (*exec.Cmd, int, uint64, error) {
	netns, dns := pod.netns, pod.dns
	dir := r.containerDir(id)
	spec := shimSpec{Argv: append(slices.Clone(cfg.Command), cfg.Args...), Env: environ(cfg.Env),
		Dir: cfg.WorkingDir, LogPath: logPath, LogMaxSize: r.logMaxSize, LogMaxFiles: r.logMaxFiles,
		ExitPath:     filepath.Join(dir, "exit.json"),
		AttachSocket: r.attachSocketPath(id), Stdin: cfg.Stdin, StdinOnce: cfg.StdinOnce, TTY: cfg.TTY}
	creds, err := r.credentials(cfg)
	if err != nil {
		return nil, 0, 0, err
	}
	spec.Argv = append(creds, spec.Argv...)
	// The pod's /etc/hosts and resolv.conf come after the container's
	// mounts, whose sources are the host's files (a hostPath of the
	// node's /etc/hosts), not the pod's mounted over them.
	mounts := cfg.Mounts
	if netns != "" && pod.hosts != nil && !slices.ContainsFunc(mounts, func(m kruntime.Mount) bool { return m.ContainerPath == etcHostsPath }) {
		p := filepath.Join(dir, "hosts")
		if err := writeFileAtomic(p, pod.hosts.HostsFile(pod.ip, pod.hostname)); err != nil {
			return nil, 0, 0, fmt.Errorf("hosts: %w", err)
		}
		// Readable by a container's user; the container may change it,
		// as a kubelet-managed one can.
		if err := os.Chmod(p, 0o644); err != nil {
			return nil, 0, 0, fmt.Errorf("hosts: %w", err)
		}
		mounts = append(slices.Clone(mounts), kruntime.Mount{HostPath: p, ContainerPath: etcHostsPath})
	}
	if netns != "" && dns != nil && !slices.ContainsFunc(mounts, func(m kruntime.Mount) bool { return m.ContainerPath == resolvConfPath }) {
		p := filepath.Join(dir, "resolv.conf")
		if err := writeFileAtomic(p, dns.ResolvConf()); err != nil {
			return nil, 0, 0, fmt.Errorf("resolv.conf: %w", err)
		}
		// Readable by a container's user, as the host's is.
		if err := os.Chmod(p, 0o644); err != nil {
			return nil, 0, 0, fmt.Errorf("resolv.conf: %w", err)
		}
		mounts = append(slices.Clone(mounts), kruntime.Mount{HostPath: p, ContainerPath: resolvConfPath, ReadOnly: true})
	}
	hostname := ""
	if netns != "" {
		hostname = pod.hostname
	}
	readOnlyRoot := cfg.Security != nil && cfg.Security.ReadOnlyRootfs
	if len(mounts) > 0 || hostname != "" || readOnlyRoot {
		unshare := []string{"unshare"}
		if hostname != "" {
			unshare = append(unshare, "--uts")
		}
		if len(mounts) > 0 || readOnlyRoot {
			unshare = append(unshare, "--mount", "--propagation", "private")
		}
		script := setUpScript(hostname, mounts)
		if readOnlyRoot {
			script = strings.Replace(script, execArgs, readOnlyRootScript(mounts)+execArgs, 1)
		}
		spec.Argv = append(append(unshare, "sh", "-c", script, "kubecore-mount"), spec.Argv...)
	}
	var enter []string
	if netns != "" {
		enter = append(enter, "--net="+netns)
	}
	if pod.ipcns != "" {
		enter = append(enter, "--ipc="+pod.ipcns)
	}
	if len(enter) > 0 {
		spec.Argv = append(append(append([]string{"nsenter"}, enter...), "--"), spec.Argv...)
	}
	switch {
	case spec.Dir != "":
	case cfg.User != nil:
		// Another user cannot enter the kubelet's state directory.
		spec.Dir = "/"
	default:
		// No working directory from the container or its image: one of
		// the container's own, where an image's would be its root, so
		// that what a program writes relative to it (wget's index.html)
		// stays with the container and leaves the host's / alone.
		spec.Dir = r.workDir(id)
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return nil, 0, 0, fmt.Errorf("working dir: %w", err)
	}
	if logPath != "" {
		if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
			return nil, 0, 0, fmt.Errorf("log directory: %w", err)
		}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("encode shim spec: %w", err)
	}
	specPath := filepath.Join(dir, "spec.json")
	if err := writeFileAtomic(specPath, b); err != nil {
		return nil, 0, 0, err
	}
	shimLog, err := os.OpenFile(filepath.Join(dir, "shim.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("shim log: %w", err)
	}
	defer func() { _ = shimLog.Close() }()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("shim pipe: %w", err)
	}
	defer func() { _ = pr.Close() }()
	shim := exec.Command(r.shim[0], append(slices.Clone(r.shim[1:]), specPath)...)
	// One P is plenty for a process that waits: fewer threads and less memory.
	// GORACE: a race-enabled shim (a test binary) would linger a second
	// at exit.
	shim.Env = []string{"PATH=" + os.Getenv("PATH"), "GOMAXPROCS=1", "GORACE=atexit_sleep_ms=0"}
	shim.Dir = "/"
	shim.Stdout, shim.Stderr = shimLog, shimLog
	shim.ExtraFiles = []*os.File{pw}
	shim.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = shim.Start()
	_ = pw.Close()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("start shim %s: %w", r.shim[0], err)
	}
	_ = pr.SetReadDeadline(time.Now().Add(shimStartTimeout))
	out, readErr := io.ReadAll(pr)
	line := strings.TrimSpace(string(out))
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		_ = shim.Wait()
		return nil, 0, 0, errors.New(msg)
	}
	var pid int
	var start uint64
	if _, err := fmt.Sscanf(line, "ok %d %d", &pid, &start); err != nil || pid <= 0 {
		_ = shim.Process.Kill()
		_ = shim.Wait()
		return nil, 0, 0, fmt.Errorf("shim did not report the command's start (%q, %v)", line, readErr)
	}
	return shim, pid, start, nil
}

// watch waits for a running container to exit: for its exit.json, or for
// its shim and process to be gone without one (exit status unknown). It
// returns early when the runtime is closed.
func (r *Runtime) watch(c *container, every time.Duration) {
	exitPath := filepath.Join(r.containerDir(c.status.ID), "exit.json")
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		shimAlive := c.shimPID > 0 && alive(c.shimPID, c.shimStart)
		var st exitStatus
		err := readJSON(exitPath, &st)
		switch {
		case err == nil:
			r.finish(c, st, "")
			return
		case !shimAlive && (c.pidStart == 0 || !alive(c.status.PID, c.pidStart)):
			r.finish(c, exitStatus{ExitCode: 255, FinishedAt: time.Now()},
				"the container's shim ended without recording the exit status")
			return
		}
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
	}
}

// finish records that a container exited.
func (r *Runtime) finish(c *container, st exitStatus, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if c.status.State == kruntime.ContainerExited {
		return
	}
	setExited(c, st, message)
	if err := r.saveContainer(c); err != nil && !errors.Is(err, os.ErrNotExist) {
		klog.ErrorS(err, "Failed to record a container's exit", "container", c.status.ID)
	}
	close(c.done)
}

// setExited records an exit in c's status; closing c.done (once the state
// file is written) is the caller's.
func setExited(c *container, st exitStatus, message string) {
	c.status.State, c.status.FinishedAt = kruntime.ContainerExited, st.FinishedAt
	c.status.ExitCode, c.status.Signal, c.status.Reason, c.status.Message = st.ExitCode, st.Signal, kruntime.ExitReason(st.ExitCode), message
	if c.status.StartedAt.IsZero() {
		c.status.StartedAt = st.FinishedAt
	}
}

// execArgs ends the set-up script: it runs the container's command.
const execArgs = "exec \"$@\"\n"

// setUpScript sets the hostname of its UTS namespace when hostname is not
// "", bind-mounts each mount, then execs its arguments.
func setUpScript(hostname string, mounts []kruntime.Mount) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	if hostname != "" {
		// The hostname of the UTS namespace this runs in.
		fmt.Fprintf(&b, "printf '%%s' %s >/proc/sys/kernel/hostname\n", quote(hostname))
	}
	for _, m := range mounts {
		src, dst := quote(m.HostPath), quote(m.ContainerPath)
		// A file (resolv.conf) is mounted over an existing file; a file
		// where nothing is gets an empty file to be mounted on.
		fmt.Fprintf(&b, "if [ ! -e %s ]; then if [ -d %s ]; then mkdir -p %s; else mkdir -p \"$(dirname %s)\" && : >%s; fi; fi\nmount --bind %s %s\n",
			dst, src, dst, dst, dst, src, dst)
		if m.ReadOnly {
			fmt.Fprintf(&b, "mount -o remount,bind,ro %s\n", dst)
		}
	}
	b.WriteString(execArgs)
	return b.String()
}

// resolvConfPath is where a pod's processes read their DNS configuration.
const resolvConfPath = "/etc/resolv.conf"

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

// signalGroup signals the container's process group, unless its leader is
// gone or its PID now belongs to another process.
func signalGroup(pid int, pidStart uint64, sig syscall.Signal) {
	if pid <= 0 || (pidStart != 0 && !alive(pid, pidStart)) {
		return
	}
	_ = syscall.Kill(-pid, sig)
}

// StopContainer sends SIGTERM to the process group, then SIGKILL after
// timeout, and waits for the process to exit.
func (r *Runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok {
		r.mu.Unlock()
		return fmt.Errorf("container %s: %w", id, kruntime.ErrNotFound)
	}
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("stop container %s: the runtime is closed", id)
	}
	state, pid, pidStart := c.status.State, c.status.PID, c.pidStart
	var saveErr error
	if state == kruntime.ContainerCreated {
		setExited(c, exitStatus{FinishedAt: time.Now()}, "")
		saveErr = r.saveContainer(c)
		close(c.done)
	}
	r.mu.Unlock()
	if state != kruntime.ContainerRunning {
		return saveErr
	}
	if timeout > 0 {
		signalGroup(pid, pidStart, syscall.SIGTERM)
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-c.done:
			return nil
		case <-t.C:
		case <-ctx.Done():
		}
	}
	signalGroup(pid, pidStart, syscall.SIGKILL)
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("stop container %s: process group %d did not exit after SIGKILL", id, pid)
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
	if err := os.RemoveAll(r.containerDir(id)); err != nil {
		return fmt.Errorf("remove container %s: %w", id, err)
	}
	_ = os.Remove(r.attachSocketPath(id)) // when outside the state dir
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
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var stdout, stderr strings.Builder
	code, err := r.Exec(ctx, id, cmd, kruntime.ExecStreams{Stdout: &stdout, Stderr: &stderr})
	return kruntime.ExecResult{Stdout: []byte(stdout.String()), Stderr: []byte(stderr.String()), ExitCode: code}, err
}

var _ kruntime.PortForwarder = (*Runtime)(nil)

// PortForward implements kruntime.PortForwarder: the pod's address when
// it has a network of its own, the host's loopback when it shares the
// host's network.
func (r *Runtime) PortForward(ctx context.Context, id string, port int32) (net.Conn, error) {
	s, err := r.PodSandboxStatus(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.State != kruntime.SandboxReady {
		return nil, fmt.Errorf("sandbox %s is not ready", id)
	}
	if s.NetNS != "" {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(s.IP, strconv.Itoa(int(port))))
		if err != nil {
			return nil, fmt.Errorf("port forward to pod %s port %d: %w", s.IP, port, err)
		}
		return c, nil
	}
	return kruntime.DialHostNetwork(ctx, port)
}
