// Package cri is the kubelet's runtime over a CRI v1 runtime such as
// containerd, reached through its gRPC socket: host-network pod sandboxes,
// their containers, images pulled when missing, logs and exec.
package cri

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	criapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Keys the runtime keeps in sandbox and container metadata, so that a
// restarted kubelet finds what it needs to carry on.
const (
	// annotationLogDirectory on a sandbox is its log directory, which
	// CreateContainer needs again after a restart.
	annotationLogDirectory = "kubecore.io/log-directory"
	// labelSandboxID on a container names its sandbox, which the CRI's
	// ContainerStatus does not report.
	labelSandboxID = "kubecore.io/sandbox-id"
	// labelManaged marks the sandboxes of kubecore kubelets: others on a
	// shared runtime are neither listed nor touched.
	labelManaged = "kubecore.io/managed"
	// maxMessageSize bounds gRPC messages, as large lists may be.
	maxMessageSize = 16 << 20
)

// Options configure the runtime.
type Options struct {
	// Endpoint is the runtime's socket: unix:///run/containerd/containerd.sock.
	Endpoint string
	// HostIP is the address of host-network sandboxes (the node's IP).
	HostIP string
	// CgroupRoot is the cgroup under which pods get theirs
	// (<root>/pod<uid>); "/kubepods" when empty.
	CgroupRoot string
	// ConnectTimeout bounds the first call, which checks the runtime is
	// there (10 s when zero).
	ConnectTimeout time.Duration
}

// Runtime runs pods through a CRI runtime. It keeps no state of its own:
// everything is read back from the runtime, so a restarted kubelet
// re-adopts what runs.
type Runtime struct {
	opts    Options
	conn    *grpc.ClientConn
	rs      criapi.RuntimeServiceClient
	is      criapi.ImageServiceClient
	name    string
	version string

	mu sync.Mutex
	// statuses caches container statuses by ID and state: a status does
	// not change while the state does not.
	statuses map[string]*kruntime.ContainerStatus
	// pulls serialises pulls of one image.
	pulls map[string]*sync.Mutex
}

var _ kruntime.Runtime = (*Runtime)(nil)

// New connects to the runtime at opts.Endpoint and checks that it speaks
// CRI v1.
func New(ctx context.Context, opts Options) (*Runtime, error) {
	if opts.CgroupRoot == "" {
		opts.CgroupRoot = "/kubepods"
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	target, err := grpcTarget(opts.Endpoint)
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize), grpc.MaxCallSendMsgSize(maxMessageSize)))
	if err != nil {
		return nil, fmt.Errorf("connect to container runtime %s: %w", opts.Endpoint, err)
	}
	r := &Runtime{
		opts: opts, conn: conn,
		rs: criapi.NewRuntimeServiceClient(conn), is: criapi.NewImageServiceClient(conn),
		statuses: map[string]*kruntime.ContainerStatus{}, pulls: map[string]*sync.Mutex{},
	}
	vctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	v, err := r.rs.Version(vctx, &criapi.VersionRequest{}, grpc.WaitForReady(true))
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("container runtime %s: CRI v1 version: %w", opts.Endpoint, err)
	}
	r.name, r.version = v.RuntimeName, v.RuntimeVersion
	if r.name == "" {
		r.name = "cri"
	}
	return r, nil
}

// grpcTarget turns unix:///path (or a bare path) into a gRPC target.
func grpcTarget(endpoint string) (string, error) {
	if strings.HasPrefix(endpoint, "/") {
		return "unix://" + endpoint, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("container runtime endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "unix" || u.Path == "" {
		return "", fmt.Errorf("container runtime endpoint %q: want unix:///path/to/socket", endpoint)
	}
	return "unix://" + u.Path, nil
}

// Close closes the connection; running containers are left running.
func (r *Runtime) Close() error { return r.conn.Close() }

// Type is the runtime's name, "containerd" for containerd.
func (r *Runtime) Type() string { return r.name }

// Version is the runtime's version.
func (r *Runtime) Version(context.Context) (string, error) { return r.version, nil }

// Status fails unless the runtime says it is ready; the network condition
// is ignored, as sandboxes use the host's network.
func (r *Runtime) Status(ctx context.Context) error {
	resp, err := r.rs.Status(ctx, &criapi.StatusRequest{})
	if err != nil {
		return fmt.Errorf("runtime status: %w", err)
	}
	for _, c := range resp.GetStatus().GetConditions() {
		if c.Type == criapi.RuntimeReady && !c.Status {
			return fmt.Errorf("runtime not ready: %s: %s", c.Reason, c.Message)
		}
	}
	return nil
}

// wrap adds context to a CRI error and makes NotFound kruntime.ErrNotFound.
func wrap(op, id string, err error) error {
	if status.Code(err) == codes.NotFound {
		return fmt.Errorf("%s %s: %w: %s", op, id, kruntime.ErrNotFound, status.Convert(err).Message())
	}
	return fmt.Errorf("%s %s: %w", op, id, err)
}

func hostNetwork() *criapi.NamespaceOption {
	return &criapi.NamespaceOption{Network: criapi.NamespaceMode_NODE, Pid: criapi.NamespaceMode_CONTAINER, Ipc: criapi.NamespaceMode_POD}
}

func (r *Runtime) sandboxConfig(cfg kruntime.PodSandboxConfig) *criapi.PodSandboxConfig {
	annotations := maps.Clone(cfg.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[annotationLogDirectory] = cfg.LogDirectory
	labels := maps.Clone(cfg.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[labelManaged] = "true"
	return &criapi.PodSandboxConfig{
		Metadata: &criapi.PodSandboxMetadata{Name: cfg.Name, Uid: cfg.UID, Namespace: cfg.Namespace, Attempt: cfg.Attempt},
		// Host-network sandboxes keep the node's hostname: none is set.
		LogDirectory: cfg.LogDirectory,
		Labels:       labels,
		Annotations:  annotations,
		DnsConfig:    dnsConfig(cfg.DNS),
		Linux: &criapi.LinuxPodSandboxConfig{
			CgroupParent:    r.opts.CgroupRoot + "/pod" + cfg.UID,
			SecurityContext: &criapi.LinuxSandboxSecurityContext{NamespaceOptions: hostNetwork()},
		},
	}
}

// RunPodSandbox runs a host-network sandbox.
func (r *Runtime) RunPodSandbox(ctx context.Context, cfg kruntime.PodSandboxConfig) (string, error) {
	resp, err := r.rs.RunPodSandbox(ctx, &criapi.RunPodSandboxRequest{Config: r.sandboxConfig(cfg)})
	if err != nil {
		return "", fmt.Errorf("run pod sandbox of %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	return resp.PodSandboxId, nil
}

// StopPodSandbox stops the sandbox and every container in it.
func (r *Runtime) StopPodSandbox(ctx context.Context, id string) error {
	if _, err := r.rs.StopPodSandbox(ctx, &criapi.StopPodSandboxRequest{PodSandboxId: id}); err != nil {
		return wrap("stop pod sandbox", id, err)
	}
	return nil
}

// RemovePodSandbox removes the sandbox and its containers.
func (r *Runtime) RemovePodSandbox(ctx context.Context, id string) error {
	if _, err := r.rs.RemovePodSandbox(ctx, &criapi.RemovePodSandboxRequest{PodSandboxId: id}); err != nil {
		return wrap("remove pod sandbox", id, err)
	}
	r.forgetSandbox(id)
	return nil
}

func (r *Runtime) forgetSandbox(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, c := range r.statuses {
		if c.SandboxID == id {
			delete(r.statuses, k)
		}
	}
}

func (r *Runtime) sandboxStatus(id string, state criapi.PodSandboxState, createdAt int64, md *criapi.PodSandboxMetadata, labels, annotations map[string]string, ip string) kruntime.PodSandboxStatus {
	annotations, labels = maps.Clone(annotations), maps.Clone(labels)
	logDir := annotations[annotationLogDirectory]
	delete(annotations, annotationLogDirectory)
	delete(labels, labelManaged)
	s := kruntime.PodSandboxStatus{
		ID: id, State: kruntime.SandboxNotReady, CreatedAt: time.Unix(0, createdAt),
		Config: kruntime.PodSandboxConfig{
			UID: md.GetUid(), Namespace: md.GetNamespace(), Name: md.GetName(), Attempt: md.GetAttempt(),
			LogDirectory: logDir, Labels: labels, Annotations: annotations,
		},
		IP: ip,
	}
	if state == criapi.PodSandboxState_SANDBOX_READY {
		s.State = kruntime.SandboxReady
	}
	if s.IP == "" {
		s.IP = r.opts.HostIP
	}
	return s
}

// PodSandboxStatus returns one sandbox.
func (r *Runtime) PodSandboxStatus(ctx context.Context, id string) (*kruntime.PodSandboxStatus, error) {
	resp, err := r.rs.PodSandboxStatus(ctx, &criapi.PodSandboxStatusRequest{PodSandboxId: id})
	if err != nil {
		return nil, wrap("pod sandbox status", id, err)
	}
	st := resp.GetStatus()
	s := r.sandboxStatus(st.Id, st.State, st.CreatedAt, st.Metadata, st.Labels, st.Annotations, st.GetNetwork().GetIp())
	return &s, nil
}

// ListPodSandbox lists the sandboxes of kubecore kubelets.
func (r *Runtime) ListPodSandbox(ctx context.Context) ([]kruntime.PodSandboxStatus, error) {
	resp, err := r.rs.ListPodSandbox(ctx, &criapi.ListPodSandboxRequest{
		Filter: &criapi.PodSandboxFilter{LabelSelector: map[string]string{labelManaged: "true"}},
	})
	if err != nil {
		return nil, fmt.Errorf("list pod sandboxes: %w", err)
	}
	out := make([]kruntime.PodSandboxStatus, 0, len(resp.Items))
	for _, s := range resp.Items {
		out = append(out, r.sandboxStatus(s.Id, s.State, s.CreatedAt, s.Metadata, s.Labels, s.Annotations, ""))
	}
	return out, nil
}

var _ kruntime.ImageService = (*Runtime)(nil)

// ImagePresent says whether the runtime has the image.
func (r *Runtime) ImagePresent(ctx context.Context, image string) (bool, error) {
	st, err := r.is.ImageStatus(ctx, &criapi.ImageStatusRequest{Image: &criapi.ImageSpec{Image: image}})
	if err != nil {
		return false, fmt.Errorf("image status of %s: %w", image, err)
	}
	return st.GetImage() != nil, nil
}

// PullImage pulls the image for the pod of a sandbox ("" for none) and
// returns its size. Pulls of one image are serialised.
func (r *Runtime) PullImage(ctx context.Context, image, sandboxID string) (uint64, error) {
	var sandbox *criapi.PodSandboxConfig
	if sandboxID != "" {
		sb, err := r.PodSandboxStatus(ctx, sandboxID)
		if err != nil {
			return 0, err
		}
		sandbox = r.sandboxConfig(sb.Config)
	}
	unlock := r.lockImage(image)
	defer unlock()
	return r.pull(ctx, image, sandbox)
}

// lockImage serialises the pulls of an image; it returns the unlock.
func (r *Runtime) lockImage(image string) func() {
	r.mu.Lock()
	m, ok := r.pulls[image]
	if !ok {
		m = &sync.Mutex{}
		r.pulls[image] = m
	}
	r.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// pull pulls an image and returns its size; the error is the runtime's
// message.
func (r *Runtime) pull(ctx context.Context, image string, sandbox *criapi.PodSandboxConfig) (uint64, error) {
	klog.FromContext(ctx).V(2).Info("Pulling image", "image", image)
	resp, err := r.is.PullImage(ctx, &criapi.PullImageRequest{Image: &criapi.ImageSpec{Image: image}, SandboxConfig: sandbox})
	if err != nil {
		return 0, errors.New(status.Convert(err).Message())
	}
	st, err := r.is.ImageStatus(ctx, &criapi.ImageStatusRequest{Image: &criapi.ImageSpec{Image: resp.GetImageRef()}})
	if err != nil {
		return 0, fmt.Errorf("image status of %s: %w", resp.GetImageRef(), err)
	}
	return st.GetImage().GetSize(), nil
}

// ensureImage pulls the image unless the runtime has it (the kubelet
// pulls first, through ImageService; this covers other callers).
func (r *Runtime) ensureImage(ctx context.Context, image string, sandbox *criapi.PodSandboxConfig) error {
	unlock := r.lockImage(image)
	defer unlock()
	present, err := r.ImagePresent(ctx, image)
	if err != nil {
		return err
	}
	if present {
		return nil
	}
	if _, err := r.pull(ctx, image, sandbox); err != nil {
		return &kruntime.ContainerError{Reason: "ErrImagePull", Message: fmt.Sprintf("pull image %q: %v", image, err)}
	}
	return nil
}

// CreateContainer pulls the image when missing and creates the container
// in the sandbox, with the host's network.
func (r *Runtime) CreateContainer(ctx context.Context, sandboxID string, cfg kruntime.ContainerConfig) (string, error) {
	sb, err := r.PodSandboxStatus(ctx, sandboxID)
	if err != nil {
		return "", err
	}
	sandboxCfg := r.sandboxConfig(sb.Config)
	if cfg.Image == "" {
		return "", &kruntime.ContainerError{Reason: "InvalidImageName", Message: "the container has no image"}
	}
	if err := r.ensureImage(ctx, cfg.Image, sandboxCfg); err != nil {
		return "", err
	}
	labels := maps.Clone(cfg.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[labelSandboxID] = sandboxID
	c := &criapi.ContainerConfig{
		Metadata:    &criapi.ContainerMetadata{Name: cfg.Name, Attempt: cfg.Attempt},
		Image:       &criapi.ImageSpec{Image: cfg.Image},
		Command:     cfg.Command,
		Args:        cfg.Args,
		WorkingDir:  cfg.WorkingDir,
		LogPath:     cfg.LogPath,
		Stdin:       cfg.Stdin,
		StdinOnce:   cfg.StdinOnce,
		Tty:         cfg.TTY,
		Labels:      labels,
		Annotations: cfg.Annotations,
		Linux: &criapi.LinuxContainerConfig{
			SecurityContext: &criapi.LinuxContainerSecurityContext{NamespaceOptions: hostNetwork()},
		},
	}
	for _, kv := range cfg.Env {
		c.Envs = append(c.Envs, &criapi.KeyValue{Key: kv.Key, Value: []byte(kv.Value)})
	}
	for _, m := range cfg.Mounts {
		c.Mounts = append(c.Mounts, &criapi.Mount{ContainerPath: m.ContainerPath, HostPath: m.HostPath, Readonly: m.ReadOnly})
	}
	resp, err := r.rs.CreateContainer(ctx, &criapi.CreateContainerRequest{PodSandboxId: sandboxID, Config: c, SandboxConfig: sandboxCfg})
	if err != nil {
		return "", fmt.Errorf("create container %s: %w", cfg.Name, err)
	}
	return resp.ContainerId, nil
}

// StartContainer starts a created container.
func (r *Runtime) StartContainer(ctx context.Context, id string) error {
	if _, err := r.rs.StartContainer(ctx, &criapi.StartContainerRequest{ContainerId: id}); err != nil {
		return wrap("start container", id, err)
	}
	return nil
}

// StopContainer stops the container, with SIGKILL after timeout (whole
// seconds, rounded up), and returns once it exited.
func (r *Runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	secs := int64(math.Ceil(timeout.Seconds()))
	if _, err := r.rs.StopContainer(ctx, &criapi.StopContainerRequest{ContainerId: id, Timeout: secs}); err != nil {
		return wrap("stop container", id, err)
	}
	return nil
}

// RemoveContainer removes the container.
func (r *Runtime) RemoveContainer(ctx context.Context, id string) error {
	if _, err := r.rs.RemoveContainer(ctx, &criapi.RemoveContainerRequest{ContainerId: id}); err != nil {
		return wrap("remove container", id, err)
	}
	r.mu.Lock()
	delete(r.statuses, id)
	r.mu.Unlock()
	return nil
}

func containerState(s criapi.ContainerState) kruntime.ContainerState {
	switch s {
	case criapi.ContainerState_CONTAINER_CREATED:
		return kruntime.ContainerCreated
	case criapi.ContainerState_CONTAINER_RUNNING:
		return kruntime.ContainerRunning
	case criapi.ContainerState_CONTAINER_EXITED:
		return kruntime.ContainerExited
	}
	return kruntime.ContainerUnknown
}

func unixNano(ns int64) time.Time {
	if ns <= 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// ContainerStatus returns one container.
func (r *Runtime) ContainerStatus(ctx context.Context, id string) (*kruntime.ContainerStatus, error) {
	resp, err := r.rs.ContainerStatus(ctx, &criapi.ContainerStatusRequest{ContainerId: id})
	if err != nil {
		return nil, wrap("container status", id, err)
	}
	st := resp.GetStatus()
	c := &kruntime.ContainerStatus{
		ID: st.Id, SandboxID: st.Labels[labelSandboxID],
		Name: st.GetMetadata().GetName(), Attempt: st.GetMetadata().GetAttempt(),
		Image: st.GetImage().GetImage(), State: containerState(st.State),
		CreatedAt: unixNano(st.CreatedAt), StartedAt: unixNano(st.StartedAt), FinishedAt: unixNano(st.FinishedAt),
		ExitCode: st.ExitCode, Reason: st.Reason, Message: st.Message, LogPath: st.LogPath,
	}
	if c.State == kruntime.ContainerExited && c.Reason == "" {
		c.Reason = kruntime.ExitReason(c.ExitCode)
	}
	r.mu.Lock()
	r.statuses[id] = c
	r.mu.Unlock()
	cp := *c
	return &cp, nil
}

// ListContainers lists the containers of a sandbox ("" for all), with
// their full status: read once per state change of each container.
func (r *Runtime) ListContainers(ctx context.Context, sandboxID string) ([]kruntime.ContainerStatus, error) {
	req := &criapi.ListContainersRequest{}
	if sandboxID != "" {
		req.Filter = &criapi.ContainerFilter{PodSandboxId: sandboxID}
	}
	resp, err := r.rs.ListContainers(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	if sandboxID == "" {
		r.pruneStatuses(resp.Containers)
	}
	out := make([]kruntime.ContainerStatus, 0, len(resp.Containers))
	for _, c := range resp.Containers {
		state := containerState(c.State)
		r.mu.Lock()
		cached := r.statuses[c.Id]
		r.mu.Unlock()
		if cached != nil && cached.State == state {
			out = append(out, *cached)
			continue
		}
		st, err := r.ContainerStatus(ctx, c.Id)
		if errors.Is(err, kruntime.ErrNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		if st.SandboxID == "" {
			st.SandboxID = c.PodSandboxId
		}
		out = append(out, *st)
	}
	return out, nil
}

// pruneStatuses forgets the cached statuses of containers that are gone.
func (r *Runtime) pruneStatuses(all []*criapi.Container) {
	ids := make(map[string]bool, len(all))
	for _, c := range all {
		ids[c.Id] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.statuses {
		if !ids[id] {
			delete(r.statuses, id)
		}
	}
}

// ExecSync runs cmd in the container and returns its output and exit
// code.
func (r *Runtime) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (kruntime.ExecResult, error) {
	secs := int64(math.Ceil(timeout.Seconds()))
	resp, err := r.rs.ExecSync(ctx, &criapi.ExecSyncRequest{ContainerId: id, Cmd: cmd, Timeout: secs})
	if err != nil {
		return kruntime.ExecResult{}, wrap("exec in container", id, err)
	}
	return kruntime.ExecResult{Stdout: resp.Stdout, Stderr: resp.Stderr, ExitCode: resp.ExitCode}, nil
}

var _ kruntime.Attacher = (*Runtime)(nil)

// Attach asks the runtime for a streaming URL to the container's own
// streams and copies them, as Exec does, until the container exits or ctx
// ends.
func (r *Runtime) Attach(ctx context.Context, id string, s kruntime.ExecStreams) error {
	resp, err := r.rs.Attach(ctx, &criapi.AttachRequest{
		ContainerId: id, Tty: s.TTY,
		Stdin: s.Stdin != nil, Stdout: s.Stdout != nil, Stderr: s.Stderr != nil && !s.TTY,
	})
	if err != nil {
		return wrap("attach to container", id, err)
	}
	if _, err := streamExec(ctx, resp.Url, s); err != nil {
		return fmt.Errorf("attach to container %s: %w", id, err)
	}
	return nil
}

// Exec asks the runtime for a streaming URL and runs cmd through it,
// attached to the streams.
func (r *Runtime) Exec(ctx context.Context, id string, cmd []string, s kruntime.ExecStreams) (int32, error) {
	resp, err := r.rs.Exec(ctx, &criapi.ExecRequest{
		ContainerId: id, Cmd: cmd, Tty: s.TTY,
		Stdin: s.Stdin != nil, Stdout: s.Stdout != nil, Stderr: s.Stderr != nil && !s.TTY,
	})
	if err != nil {
		return 0, wrap("exec in container", id, err)
	}
	code, err := streamExec(ctx, resp.Url, s)
	if err != nil {
		return 0, fmt.Errorf("exec in container %s: %w", id, err)
	}
	return code, nil
}

var _ kruntime.PortForwarder = (*Runtime)(nil)

// PortForward implements kruntime.PortForwarder: kubecore's sandboxes use
// the node's network (see hostNetwork).
func (r *Runtime) PortForward(ctx context.Context, id string, port int32) (net.Conn, error) {
	s, err := r.PodSandboxStatus(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.State != kruntime.SandboxReady {
		return nil, fmt.Errorf("sandbox %s is not ready", id)
	}
	return kruntime.DialHostNetwork(ctx, port)
}

// dnsConfig is the sandbox's resolv.conf for the CRI runtime, which
// writes it into the sandbox.
func dnsConfig(c *kruntime.DNSConfig) *criapi.DNSConfig {
	if c == nil {
		return nil
	}
	return &criapi.DNSConfig{Servers: c.Servers, Searches: c.Searches, Options: c.Options}
}
