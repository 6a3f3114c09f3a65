// Package runtime is the kubelet's container runtime interface, shaped like
// CRI: pod sandboxes, containers in them, their status, exec and log files.
package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Runtime runs pod sandboxes and their containers. Implementations are safe
// for concurrent use; IDs are unique for the life of the runtime.
type Runtime interface {
	// Type names the runtime, as in "<type>://<id>" container IDs.
	Type() string
	// Version is the runtime's version, for nodeInfo.containerRuntimeVersion.
	Version(ctx context.Context) (string, error)
	// Status reports whether the runtime can run pods; an error means not.
	Status(ctx context.Context) error

	// RunPodSandbox makes the pod's sandbox and returns its ID.
	RunPodSandbox(ctx context.Context, cfg PodSandboxConfig) (string, error)
	// StopPodSandbox stops every container of the sandbox at once (no
	// grace) and marks it not ready. Stopping a stopped sandbox is fine.
	StopPodSandbox(ctx context.Context, id string) error
	// RemovePodSandbox removes a stopped sandbox and its containers.
	RemovePodSandbox(ctx context.Context, id string) error
	// PodSandboxStatus returns one sandbox; ErrNotFound when unknown.
	PodSandboxStatus(ctx context.Context, id string) (*PodSandboxStatus, error)
	// ListPodSandbox lists every sandbox.
	ListPodSandbox(ctx context.Context) ([]PodSandboxStatus, error)

	// CreateContainer makes a container in a sandbox. A container the
	// runtime cannot run fails with a *ContainerError saying why.
	CreateContainer(ctx context.Context, sandboxID string, cfg ContainerConfig) (string, error)
	// StartContainer starts a created container.
	StartContainer(ctx context.Context, id string) error
	// StopContainer asks the container to stop (SIGTERM) and kills it
	// after timeout; it returns once the container has exited.
	StopContainer(ctx context.Context, id string, timeout time.Duration) error
	// RemoveContainer removes an exited container.
	RemoveContainer(ctx context.Context, id string) error
	// ContainerStatus returns one container; ErrNotFound when unknown.
	ContainerStatus(ctx context.Context, id string) (*ContainerStatus, error)
	// ListContainers lists the containers of a sandbox ("" for all).
	ListContainers(ctx context.Context, sandboxID string) ([]ContainerStatus, error)
	// ExecSync runs cmd in a running container's environment and returns
	// its output and exit code; a non-zero exit is not an error.
	ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (ExecResult, error)
	// Exec runs cmd in a running container's environment with the
	// streams attached, until it exits or ctx ends, and returns its exit
	// code; a non-zero exit is not an error.
	Exec(ctx context.Context, id string, cmd []string, streams ExecStreams) (int32, error)
}

// ImageService is implemented by runtimes that pull images (cri): the
// kubelet asks it before it creates a container, as the container's pull
// policy says, and reports Pulling and Pulled. A runtime without one
// (process, fake) runs no images: every image counts as present.
type ImageService interface {
	// ImagePresent says whether the runtime has the image.
	ImagePresent(ctx context.Context, image string) (bool, error)
	// PullImage pulls the image for a pod's sandbox and returns its size
	// in bytes.
	PullImage(ctx context.Context, image, sandboxID string) (uint64, error)
}

// PortForwarder is a Runtime that connects to ports in its sandboxes'
// networks (kubectl port-forward).
type PortForwarder interface {
	// PortForward opens a TCP connection to port in the network of the
	// sandbox id, as a process of the pod connecting to localhost would.
	PortForward(ctx context.Context, id string, port int32) (net.Conn, error)
}

// Attacher is a Runtime that attaches to the standard streams of a
// running container's own process (kubectl attach).
type Attacher interface {
	// Attach copies the container's output (from now on) to the streams
	// and the streams' Stdin to its standard input, until the container
	// exits or ctx ends. Stdin is dropped for a container without stdin;
	// the end of Stdin closes the container's stdin when it has stdinOnce
	// (the attach goes on until the container exits), and ends the attach
	// of a container without stdinOnce and without a terminal.
	Attach(ctx context.Context, id string, streams ExecStreams) error
}

// ExecStreams are the standard streams of Exec; nil ones are not
// attached. With TTY the command gets a terminal, whose output (stdout and
// stderr merged) goes to Stdout, and Resize changes its size.
type ExecStreams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	TTY            bool
	Resize         <-chan TerminalSize
}

// TerminalSize is the size of an exec's terminal, in characters.
type TerminalSize struct {
	Width  uint16
	Height uint16
}

// ErrNotFound is returned for an unknown sandbox or container ID.
var ErrNotFound = errors.New("not found")

// PodSandboxConfig describes a pod's sandbox.
type PodSandboxConfig struct {
	UID       string
	Namespace string
	Name      string
	// Attempt counts sandboxes made for this pod, from 0.
	Attempt uint32
	// LogDirectory holds the containers' log files.
	LogDirectory string
	Labels       map[string]string
	Annotations  map[string]string
	// HostNetwork: the pod uses the node's network namespace and address.
	HostNetwork bool `json:",omitempty"`
	// Hostname is the pod's hostname (spec.hostname, else its name), ""
	// for host-network pods; runtimes that give a pod a network of its own
	// give its processes this hostname (a UTS namespace), as Kubernetes'
	// runtimes do.
	Hostname string `json:",omitempty"`
	// DNS is the pod's resolv.conf content (see kubelet.DNSConfigurer);
	// runtimes with their own network namespace give it to the pod.
	DNS *DNSConfig
	// Hosts is what a runtime that gives the pod a network namespace of
	// its own writes in the pod's /etc/hosts (with the pod's address),
	// as Kubernetes' kubelet does; nil keeps the node's.
	Hosts *HostsConfig `json:",omitempty"`
	// HostIPC: the pod uses the node's IPC namespace; else runtimes that
	// can give it one of its own.
	HostIPC bool `json:",omitempty"`
	// Sysctls are the pod's namespaced kernel parameters
	// (securityContext.sysctls, names with '.' or '/' as the API allows),
	// set in the pod's namespaces before its containers start.
	Sysctls []KeyValue `json:",omitempty"`
}

// HostsConfig is the pod's part of a kubelet-managed /etc/hosts.
type HostsConfig struct {
	// FQDN is the pod's fully qualified name when it has a subdomain
	// (hostname.subdomain.namespace.svc.cluster-domain), else "".
	FQDN string `json:",omitempty"`
	// Aliases are spec.hostAliases.
	Aliases []HostAlias `json:",omitempty"`
}

// HostAlias is one spec.hostAliases entry.
type HostAlias struct {
	IP        string
	Hostnames []string
}

// HostsFile renders the /etc/hosts of a pod with address ip and the given
// hostname, in the layout of Kubernetes' kubelet (its first line is what
// the e2e suite looks for).
func (c HostsConfig) HostsFile(ip, hostname string) []byte {
	var b bytes.Buffer
	b.WriteString("# Kubernetes-managed hosts file.\n" +
		"127.0.0.1\tlocalhost\n" +
		"::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\n" +
		"fe00::0\tip6-mcastprefix\n" +
		"fe00::1\tip6-allnodes\n" +
		"fe00::2\tip6-allrouters\n")
	if ip != "" && hostname != "" {
		if c.FQDN != "" {
			fmt.Fprintf(&b, "%s\t%s\t%s\n", ip, c.FQDN, hostname)
		} else {
			fmt.Fprintf(&b, "%s\t%s\n", ip, hostname)
		}
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n# Entries added by HostAliases.\n")
		for _, a := range c.Aliases {
			fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
		}
	}
	return b.Bytes()
}

// DNSConfig is a resolv.conf: name servers, search domains and options.
type DNSConfig struct {
	Servers, Searches, Options []string
}

// ResolvConf renders c as a resolv.conf file (resolv.conf(5)).
func (c DNSConfig) ResolvConf() []byte {
	var b bytes.Buffer
	for _, s := range c.Servers {
		fmt.Fprintf(&b, "nameserver %s\n", s)
	}
	if len(c.Searches) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(c.Searches, " "))
	}
	if len(c.Options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(c.Options, " "))
	}
	return b.Bytes()
}

// SandboxState is whether a sandbox can hold running containers.
type SandboxState string

// The sandbox states.
const (
	SandboxReady    SandboxState = "SANDBOX_READY"
	SandboxNotReady SandboxState = "SANDBOX_NOTREADY"
)

// PodSandboxStatus is the state of one sandbox.
type PodSandboxStatus struct {
	ID        string
	Config    PodSandboxConfig
	State     SandboxState
	CreatedAt time.Time
	// IP is the sandbox's address; the node's for host-network runtimes.
	IP string
	// NetNS is the path of the sandbox's own network namespace, empty
	// when it uses the host's.
	NetNS string `json:",omitempty"`
	// IPCNS is the path of the sandbox's own IPC namespace, empty when
	// it uses the host's.
	IPCNS string `json:",omitempty"`
}

// KeyValue is one environment variable.
type KeyValue struct{ Key, Value string }

// Mount puts a host directory or file at a path in the container.
type Mount struct {
	ContainerPath string
	HostPath      string
	ReadOnly      bool
	// Optional: a runtime that cannot mount (the process runtime without
	// root) runs the container without it rather than not at all (the
	// termination message file).
	Optional bool `json:",omitempty"`
}

// ContainerConfig describes a container to create.
type ContainerConfig struct {
	Name string
	// Attempt is the container's restart count.
	Attempt uint32
	Image   string
	// Command and Args, with $(VAR) references already expanded. The
	// process to run is Command followed by Args.
	Command    []string
	Args       []string
	Env        []KeyValue
	WorkingDir string
	Mounts     []Mount
	// LogPath is relative to the sandbox's LogDirectory.
	LogPath     string
	Labels      map[string]string
	Annotations map[string]string
	// Stdin keeps the container's standard input open for attach;
	// StdinOnce closes it when the first attached client ends its input.
	// TTY gives the container a terminal.
	Stdin, StdinOnce, TTY bool
	// User, when set, is who the container's processes (and execs) run
	// as: the security context's runAsUser and runAsGroup and the pod's
	// supplemental groups; nil: the runtime's own user.
	User *User
	// Security is the rest of the container's security context, as CRI's
	// LinuxContainerSecurityContext has it; nil is the zero value.
	Security *ContainerSecurity `json:",omitempty"`
}

// ContainerSecurity is what a container may do beyond its user.
type ContainerSecurity struct {
	// Privileged gives the container every capability.
	Privileged bool `json:",omitempty"`
	// CapAdd and CapDrop change the runtime's default capabilities:
	// names as the API gives them (NET_ADMIN; ALL for every one).
	CapAdd  []string `json:",omitempty"`
	CapDrop []string `json:",omitempty"`
	// NoNewPrivs sets no_new_privs: neither setuid programs nor file
	// capabilities give the container's processes more than they have
	// (allowPrivilegeEscalation: false).
	NoNewPrivs bool `json:",omitempty"`
	// ReadOnlyRootfs is readOnlyRootFilesystem.
	ReadOnlyRootfs bool `json:",omitempty"`
}

// User is the identity a container's processes run as.
type User struct {
	UID, GID           int64
	SupplementalGroups []int64
}

// ContainerState is the life-cycle state of a container.
type ContainerState string

// The container states.
const (
	ContainerCreated ContainerState = "CONTAINER_CREATED"
	ContainerRunning ContainerState = "CONTAINER_RUNNING"
	ContainerExited  ContainerState = "CONTAINER_EXITED"
	ContainerUnknown ContainerState = "CONTAINER_UNKNOWN"
)

// ContainerStatus is the state of one container.
type ContainerStatus struct {
	ID        string
	SandboxID string
	Name      string
	Attempt   uint32
	Image     string
	State     ContainerState
	CreatedAt time.Time
	// StartedAt and FinishedAt are zero until the container starts and
	// exits.
	StartedAt  time.Time
	FinishedAt time.Time
	ExitCode   int32
	// Signal is the signal that ended the process, if one did.
	Signal int32
	// Reason is Completed, Error or OOMKilled once exited; Message says
	// more.
	Reason  string
	Message string
	// LogPath is the absolute path of the container's log file.
	LogPath string
	// PID is the process (group) ID for the process runtime, else 0.
	PID int
}

// ExecResult is the outcome of ExecSync.
type ExecResult struct {
	Stdout, Stderr []byte
	ExitCode       int32
}

// ContainerError is a container the runtime refuses to create or start:
// Reason is the CamelCase waiting reason the kubelet reports.
type ContainerError struct {
	Reason  string
	Message string
}

func (e *ContainerError) Error() string { return fmt.Sprintf("%s: %s", e.Reason, e.Message) }

// Reasons of exited containers.
const (
	ReasonCompleted = "Completed"
	ReasonError     = "Error"
)

// ExitReason is the terminated reason of an exit code.
func ExitReason(code int32) string {
	if code == 0 {
		return ReasonCompleted
	}
	return ReasonError
}

// Sandboxes holds a runtime's sandboxes by ID; the runtime guards it with
// its own lock.
type Sandboxes map[string]*PodSandboxStatus

// Status returns a copy of sandbox id; ErrNotFound when unknown.
func (s Sandboxes) Status(id string) (*PodSandboxStatus, error) {
	sb, ok := s[id]
	if !ok {
		return nil, fmt.Errorf("sandbox %s: %w", id, ErrNotFound)
	}
	cp := *sb
	return &cp, nil
}

// List returns copies of every sandbox.
func (s Sandboxes) List() []PodSandboxStatus {
	out := make([]PodSandboxStatus, 0, len(s))
	for _, sb := range s {
		out = append(out, *sb)
	}
	return out
}

// DialHostNetwork is PortForward for a sandbox on the host's network,
// where a pod's localhost is the host's.
func DialHostNetwork(ctx context.Context, port int32) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(port)))
}

// StatsProvider is a Runtime that measures its containers, as CRI's
// ListContainerStats does. The kubelet's resource metrics
// (/metrics/resource, /stats/summary) come from it; a runtime without one
// reports no container figures.
type StatsProvider interface {
	// ListContainerStats measures every running container.
	ListContainerStats(ctx context.Context) ([]ContainerStats, error)
}

// ContainerStats is one measurement of a container.
type ContainerStats struct {
	// ID is the container's ID.
	ID string
	// Timestamp is when the figures were read.
	Timestamp time.Time
	// CPUUsageCoreNanoSeconds is the CPU time the container has used
	// since it started, in core-nanoseconds (cumulative).
	CPUUsageCoreNanoSeconds uint64
	// MemoryWorkingSetBytes is the memory the container cannot do
	// without (the figure the OOM killer and metrics-server watch).
	MemoryWorkingSetBytes uint64
	// MemoryUsageBytes and MemoryRSSBytes, 0 when the runtime does not
	// know them.
	MemoryUsageBytes uint64
	MemoryRSSBytes   uint64
}

// NodeStatsProvider is a Runtime that makes up the figures of its node
// (the fake runtime of hollow nodes); a kubelet whose runtime is not one
// measures the host.
type NodeStatsProvider interface {
	// NodeStats measures the node as a whole.
	NodeStats(ctx context.Context) (NodeStats, error)
}

// NodeStats is one measurement of the node.
type NodeStats struct {
	Timestamp               time.Time
	CPUUsageCoreNanoSeconds uint64
	MemoryWorkingSetBytes   uint64
	MemoryUsageBytes        uint64
	MemoryAvailableBytes    uint64
	MemoryRSSBytes          uint64
}
