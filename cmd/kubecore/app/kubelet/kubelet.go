// Package kubelet implements `kubecore kubelet`: flags into Options,
// validated and completed into a Config whose Run(ctx) runs a node agent.
package kubelet

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	dnsapp "kubecore.io/kubecore/cmd/kubecore/app/dns"
	"kubecore.io/kubecore/cmd/kubecore/app/options"
	proxyapp "kubecore.io/kubecore/cmd/kubecore/app/proxy"
	"kubecore.io/kubecore/pkg/dns"
	"kubecore.io/kubecore/pkg/kubelet"
	"kubecore.io/kubecore/pkg/kubelet/network"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/cri"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
	"kubecore.io/kubecore/pkg/kubelet/runtime/oci"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
	"kubecore.io/kubecore/pkg/kubelet/server"
	"kubecore.io/kubecore/pkg/kubelet/stats"
)

// The container runtimes of --runtime.
const (
	RuntimeProcess = "process"
	RuntimeCRI     = "cri"
	RuntimeFake    = "fake"
)

// DefaultContainerRuntimeEndpoint is containerd's CRI socket.
const DefaultContainerRuntimeEndpoint = "unix:///run/containerd/containerd.sock"

// Options are the flags of `kubecore kubelet`.
type Options struct {
	Kubeconfig string
	// Server, Token and CACertHash join a cluster with a bootstrap token:
	// the kubelet gets its client certificate issued and writes its
	// kubeconfig (see Bootstrap).
	Server, Token, CACertHash string
	// NodeName is the Node to register; the host name when empty.
	NodeName string
	// HostnameOverride is the Node's Hostname address (which the
	// apiserver reaches the kubelet by, unless told to prefer another
	// address type) and kubernetes.io/hostname label; the node name when
	// empty.
	HostnameOverride string
	// RootDir holds pod directories and container logs.
	RootDir string
	// Runtime is process, cri or fake.
	Runtime string
	// ContainerRuntimeEndpoint is the CRI runtime's socket (--runtime cri).
	ContainerRuntimeEndpoint string
	// CgroupRoot is the cgroup the CRI runtime puts pods under;
	// /kubepods when empty.
	CgroupRoot string
	// NodeIP is the node's InternalIP (and the pods' with host
	// networking); the address of the default route when empty.
	NodeIP string
	// NodeLabels are "key=value" entries added to the Node's labels.
	NodeLabels []string
	// RegisterWithTaints are "key=value:Effect" or "key:Effect" entries.
	RegisterWithTaints []string
	// AllowedUnsafeSysctls are the sysctls beyond the safe set pods may
	// set: names, or prefixes ending in "*".
	AllowedUnsafeSysctls []string
	MaxPods              int32
	// Address and Port of the kubelet's HTTPS server (logs, exec, pods);
	// the port is reported in the Node's daemonEndpoints.
	Address string
	Port    int32
	// ReadOnlyPort, when not 0, serves /healthz and /pods over HTTP on
	// loopback without authentication.
	ReadOnlyPort int32
	// TLSCertFile and TLSPrivateKeyFile are the serving certificate; a
	// self-signed one under the root dir when empty.
	TLSCertFile       string
	TLSPrivateKeyFile string
	// ClientCAFile verifies the certificates of the server's clients; the
	// CA of the kubeconfig's cluster when empty.
	ClientCAFile string
	// QPS and Burst limit the client; ContentType is its encoding.
	QPS         float32
	Burst       int
	ContentType string
	// ContainerLogMaxSize (a quantity such as 10Mi) is the size at which
	// the process runtime rotates a container's log file, keeping
	// ContainerLogMaxFiles files per container.
	ContainerLogMaxSize  string
	ContainerLogMaxFiles int32
	// ImageEntrypoints is a YAML file of the entrypoints of images, for
	// the process runtime's containers without a command (see
	// process.LoadEntrypoints); the well-known images need none.
	ImageEntrypoints string
	// ImageLayouts are OCI image layouts (directories or OCI archives,
	// NAME=PATH for a layout of one repository) whose images' configs
	// the process runtime uses (see oci.Open).
	ImageLayouts []string
	// ImageServiceEndpoint, when set, is a CRI image service (containerd's
	// socket) whose image store gives the process runtime images'
	// configs, after ImageLayouts.
	ImageServiceEndpoint string

	// ClusterDNS are the cluster DNS servers written into pods'
	// resolv.conf; ClusterDomain is the cluster's DNS domain; ResolvConf
	// is the node's resolv.conf, the base of dnsPolicy Default and the
	// upstreams of the in-process DNS ("" for none).
	ClusterDNS    []string
	ClusterDomain string
	ResolvConf    string
	// RunServiceProxy runs the service proxy (nftables, root) in the
	// kubelet process; SwitchAuto runs it when the kubelet runs as root
	// with a container runtime that runs processes and an API server (see
	// ServiceProxyOn). RunClusterDNS runs the cluster DNS on the node IP
	// and publishes it as an endpoint of kube-system/kube-dns, whose IP
	// becomes the default --cluster-dns; SwitchAuto is off for a kubelet
	// alone (all-in-one resolves it as its proxy).
	RunServiceProxy Switch
	RunClusterDNS   Switch

	// RESTConfig, when set, is used instead of Kubeconfig (all-in-one).
	RESTConfig *rest.Config
	// StopPodsOnExit stops every pod, each with its grace period, when the
	// kubelet exits (all-in-one, unless --keep-pods); a kubelet alone
	// leaves them running for the next one to re-adopt.
	StopPodsOnExit bool
	// StaticPodPath is a directory of static pod manifests, StaticPodURL
	// a URL serving a pod or a PodList; FileCheckFrequency and
	// HTTPCheckFrequency are how often they are read.
	StaticPodPath      string
	StaticPodURL       string
	FileCheckFrequency time.Duration
	HTTPCheckFrequency time.Duration
	// NodeStatusUpdateFrequency, NodeStatusReportFrequency and
	// NodeLeaseDurationSeconds: see kubelet.Config.
	NodeStatusUpdateFrequency time.Duration
	NodeStatusReportFrequency time.Duration
	NodeLeaseDurationSeconds  int32
	// ConfigFile is a KubeletConfiguration file; flags set on the command
	// line win over it (see LoadConfigFile).
	ConfigFile string

	// PodNetwork is the process runtime's pod networking: PodNetworkAuto
	// (a network namespace and address per pod when the kubelet runs as
	// root, else the host's network), PodNetworkBridge (required) or
	// PodNetworkHost (pods share the host's network and address).
	PodNetwork string
	// ClusterCIDR is the pods' range of the whole cluster; traffic from
	// it to outside it is masqueraded (bridge pod network).
	ClusterCIDR string
	// PodBridge is the bridge of the bridge pod network (network.DefaultBridge
	// when empty): kubelets sharing one host's network namespace each need
	// their own.
	PodBridge string
	// CNIConfDir, with the CRI runtime, is where the CNI configuration
	// of the pod network (bridge, host-local from the Node's podCIDR,
	// portmap, loopback) is written for containerd; empty writes none.
	CNIConfDir string
	// AuthorizationMode is Webhook (every request of the secure port is
	// checked with a SubjectAccessReview, the default with a kubeconfig)
	// or AlwaysAllow (any client certificate of the client CA suffices).
	AuthorizationMode string
	// FakeContainerCPU and FakeContainerMemory are quantities: the usage
	// each running container of the fake runtime reports.
	FakeContainerCPU    string
	FakeContainerMemory string

	// ShimCommand runs the process runtime's shim (process.RunShim with
	// its spec appended); `<this binary> kubelet process-shim` when empty.
	// A test binary running a kubelet sets it to itself.
	ShimCommand []string
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{Runtime: RuntimeProcess, ContainerRuntimeEndpoint: DefaultContainerRuntimeEndpoint, MaxPods: 110, Address: "0.0.0.0", Port: 10250, QPS: 50, Burst: 100, ContentType: options.DefaultContentType,
		FileCheckFrequency: 5 * time.Second, HTTPCheckFrequency: 20 * time.Second,
		NodeStatusUpdateFrequency: 10 * time.Second, NodeStatusReportFrequency: 5 * time.Minute, NodeLeaseDurationSeconds: 40,
		ContainerLogMaxSize: "10Mi", ContainerLogMaxFiles: 5,
		PodNetwork: PodNetworkAuto, ClusterCIDR: DefaultClusterCIDR, RunServiceProxy: SwitchAuto, RunClusterDNS: SwitchAuto,
		ClusterDomain: dns.DefaultDomain, ResolvConf: "/etc/resolv.conf",
		AuthorizationMode: AuthorizationWebhook, FakeContainerCPU: "1m", FakeContainerMemory: "4Mi"}
}

// The kubelet's --authorization-mode values.
const (
	AuthorizationWebhook     = "Webhook"
	AuthorizationAlwaysAllow = "AlwaysAllow"
)

// fakeUsage is the fake runtime's usage of --fake-container-cpu and
// --fake-container-memory.
func (o *Options) fakeUsage() (fake.Usage, error) {
	u := fake.DefaultUsage()
	cpu, err := resource.ParseQuantity(o.FakeContainerCPU)
	if err != nil || cpu.Sign() < 0 {
		return u, fmt.Errorf("--fake-container-cpu %q must be a non-negative quantity such as 250m", o.FakeContainerCPU)
	}
	mem, err := resource.ParseQuantity(o.FakeContainerMemory)
	if err != nil || mem.Sign() < 0 {
		return u, fmt.Errorf("--fake-container-memory %q must be a non-negative quantity such as 64Mi", o.FakeContainerMemory)
	}
	u.CPUMillicores, u.MemoryBytes = cpu.MilliValue(), mem.Value()
	return u, nil
}

// Switch is a component's on/off flag that may also be left to the
// host: auto, or a boolean (true, false, 1, 0, ...). A bare flag is true.
type Switch string

// The values of a Switch.
const (
	SwitchAuto Switch = "auto"
	SwitchOn   Switch = "true"
	SwitchOff  Switch = "false"
)

var _ pflag.Value = (*Switch)(nil)

func (s *Switch) String() string { return string(*s) }

// Set accepts auto or a boolean.
func (s *Switch) Set(v string) error {
	if v == string(SwitchAuto) {
		*s = SwitchAuto
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q is not auto, true or false", v)
	}
	*s = SwitchOff
	if b {
		*s = SwitchOn
	}
	return nil
}

// Type is the flag's value type in the help.
func (s *Switch) Type() string { return "auto|bool" }

// switchVar adds a Switch flag that a bare --name turns on.
func switchVar(fs *pflag.FlagSet, s *Switch, name, usage string) {
	fs.Var(s, name, usage)
	fs.Lookup(name).NoOptDefVal = string(SwitchOn)
}

// hasAPIServer reports whether the kubelet has an API server to watch.
func (o *Options) hasAPIServer() bool {
	return o.Kubeconfig != "" || o.RESTConfig != nil || o.joining()
}

// ServiceProxyOn resolves --run-service-proxy. Auto is on when the
// kubelet runs as root (nftables), with a runtime that runs processes
// (not fake) and an API server; the reason says why it is off.
func (o *Options) ServiceProxyOn() (on bool, reason string) {
	switch {
	case o.RunServiceProxy == SwitchOn:
		return true, ""
	case o.RunServiceProxy == SwitchOff:
		return false, "--run-service-proxy=false"
	case os.Geteuid() != 0:
		return false, fmt.Sprintf("the proxy programs nftables and needs root; the kubelet runs as uid %d", os.Geteuid())
	case o.Runtime == RuntimeFake:
		return false, "the fake runtime runs no processes to connect"
	case !o.hasAPIServer():
		return false, "no API server (standalone kubelet)"
	}
	return true, ""
}

// The values of --pod-network.
const (
	PodNetworkAuto   = "auto"
	PodNetworkBridge = kubelet.PodNetworkBridge
	PodNetworkHost   = kubelet.PodNetworkHost
)

// DefaultClusterCIDR is the controller-manager's default --cluster-cidr.
const DefaultClusterCIDR = "10.244.0.0/16"

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.Kubeconfig == "" && o.RESTConfig == nil && o.StaticPodPath == "" && o.StaticPodURL == "" && !o.joining() {
		errs = append(errs, errors.New("--kubeconfig is required (or --server, --token and --ca-cert-hash to join), unless the kubelet runs standalone with --pod-manifest-path or --manifest-url"))
	}
	errs = append(errs, o.validateJoin()...)
	if o.RootDir == "" {
		errs = append(errs, errors.New("--root-dir is required"))
	}
	if o.NodeName != "" {
		if msgs := validation.IsDNS1123Subdomain(o.NodeName); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--node-name %q: %s", o.NodeName, strings.Join(msgs, ", ")))
		}
	}
	switch o.Runtime {
	case RuntimeProcess, RuntimeFake:
	case RuntimeCRI:
		if !strings.HasPrefix(o.ContainerRuntimeEndpoint, "unix://") {
			errs = append(errs, fmt.Errorf("--container-runtime-endpoint %q: want unix:///path/to/socket", o.ContainerRuntimeEndpoint))
		}
	default:
		errs = append(errs, fmt.Errorf("--runtime %q is not one of process, cri, fake", o.Runtime))
	}
	if o.HostnameOverride != "" {
		if msgs := validation.IsDNS1123Subdomain(o.HostnameOverride); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--hostname-override %q: %s", o.HostnameOverride, strings.Join(msgs, ", ")))
		}
	}
	if o.NodeIP != "" && net.ParseIP(o.NodeIP) == nil {
		errs = append(errs, fmt.Errorf("--node-ip %q is not an IP address", o.NodeIP))
	}
	if _, err := parseLabels(o.NodeLabels); err != nil {
		errs = append(errs, err)
	}
	if _, err := parseTaints(o.RegisterWithTaints); err != nil {
		errs = append(errs, err)
	}
	if o.MaxPods <= 0 {
		errs = append(errs, fmt.Errorf("--max-pods %d must be positive", o.MaxPods))
	}
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d is not in [0, 65535]", o.Port))
	}
	if o.ReadOnlyPort < 0 || o.ReadOnlyPort > 65535 {
		errs = append(errs, fmt.Errorf("--read-only-port %d is not in [0, 65535]", o.ReadOnlyPort))
	}
	if net.ParseIP(o.Address) == nil {
		errs = append(errs, fmt.Errorf("--address %q is not an IP address", o.Address))
	}
	if (o.TLSCertFile == "") != (o.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file go together"))
	}
	if o.QPS < 0 || o.Burst < 0 {
		errs = append(errs, errors.New("--kube-api-qps and --kube-api-burst must not be negative"))
	}
	if err := options.ValidateContentType(o.ContentType); err != nil {
		errs = append(errs, err)
	}
	if _, err := o.containerLogMaxSize(); err != nil {
		errs = append(errs, err)
	}
	switch o.PodNetwork {
	case PodNetworkAuto, PodNetworkBridge, PodNetworkHost:
	default:
		errs = append(errs, fmt.Errorf("--pod-network %q is not one of auto, bridge, host", o.PodNetwork))
	}
	if o.PodBridge != "" && !validLinkName(o.PodBridge) {
		errs = append(errs, fmt.Errorf("--pod-bridge %q is not a network interface name (1-15 characters, no '/', ':' or white space)", o.PodBridge))
	}
	if p, err := netip.ParsePrefix(o.ClusterCIDR); err != nil || !p.Addr().Is4() {
		errs = append(errs, fmt.Errorf("--cluster-cidr %q is not an IPv4 CIDR", o.ClusterCIDR))
	}
	for _, ip := range o.ClusterDNS {
		if net.ParseIP(ip) == nil {
			errs = append(errs, fmt.Errorf("--cluster-dns %q is not an IP address", ip))
		}
	}
	if msgs := validation.IsDNS1123Subdomain(o.ClusterDomain); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--cluster-domain %q: %s", o.ClusterDomain, strings.Join(msgs, ", ")))
	}
	if (o.RunServiceProxy == SwitchOn || o.RunClusterDNS == SwitchOn) && !o.hasAPIServer() {
		errs = append(errs, errors.New("--run-service-proxy and --run-cluster-dns need an API server (--kubeconfig)"))
	}
	if o.RunServiceProxy == SwitchOn && os.Geteuid() != 0 {
		errs = append(errs, errors.New("--run-service-proxy programs nftables and needs root"))
	}
	if _, err := o.fakeUsage(); err != nil {
		errs = append(errs, err)
	}
	switch o.AuthorizationMode {
	case AuthorizationWebhook, AuthorizationAlwaysAllow:
	default:
		errs = append(errs, fmt.Errorf("--authorization-mode %q is not one of Webhook, AlwaysAllow", o.AuthorizationMode))
	}
	if o.ContainerLogMaxFiles < 2 {
		errs = append(errs, fmt.Errorf("--container-log-max-files %d must be at least 2", o.ContainerLogMaxFiles))
	}
	return errs
}

// containerLogMaxSize is --container-log-max-size in bytes.
func (o *Options) containerLogMaxSize() (int64, error) {
	q, err := resource.ParseQuantity(o.ContainerLogMaxSize)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("--container-log-max-size %q must be a positive quantity such as 10Mi", o.ContainerLogMaxSize)
	}
	return q.Value(), nil
}

// parseLabels reads "key=value" entries.
func parseLabels(entries []string) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range entries {
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			return nil, fmt.Errorf("--node-labels %q: want key=value", e)
		}
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return nil, fmt.Errorf("--node-labels %q: key: %s", e, strings.Join(msgs, ", "))
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			return nil, fmt.Errorf("--node-labels %q: value: %s", e, strings.Join(msgs, ", "))
		}
		out[k] = v
	}
	return out, nil
}

// parseTaints reads "key=value:Effect" and "key:Effect" entries.
func parseTaints(entries []string) ([]corev1.Taint, error) {
	var out []corev1.Taint
	for _, e := range entries {
		kv, effect, ok := strings.Cut(e, ":")
		if !ok {
			return nil, fmt.Errorf("--register-with-taints %q: want key=value:Effect", e)
		}
		k, v, _ := strings.Cut(kv, "=")
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return nil, fmt.Errorf("--register-with-taints %q: key: %s", e, strings.Join(msgs, ", "))
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			return nil, fmt.Errorf("--register-with-taints %q: value: %s", e, strings.Join(msgs, ", "))
		}
		switch eff := corev1.TaintEffect(effect); eff {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			out = append(out, corev1.Taint{Key: k, Value: v, Effect: eff})
		default:
			return nil, fmt.Errorf("--register-with-taints %q: effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", e, effect)
		}
	}
	return out, nil
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *kubelet.Config
	server    *server.Config
	// network is the bridge pod network, nil with the host's.
	network *network.Network
	// cniConfDir is Options.CNIConfDir with the CRI runtime.
	cniConfDir string
	// proxy and dns, when set, run beside the kubelet.
	proxy *proxyapp.Config
	dns   *dnsapp.Config
}

// Complete validates o, loads the kubeconfig, picks the node name and IP
// and makes the client and the runtime.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	var rc *rest.Config
	var cs *typed.Clientset
	if o.RESTConfig != nil {
		rc = rest.CopyConfig(o.RESTConfig)
	} else if o.Kubeconfig != "" {
		c, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
		if err != nil {
			return Config{}, fmt.Errorf("load kubeconfig %s: %w", o.Kubeconfig, err)
		}
		rc = c
	}
	if rc != nil {
		rc.QPS, rc.Burst, rc.ContentType = o.QPS, o.Burst, o.ContentType
		if rc.UserAgent == "" {
			rc.UserAgent = rest.DefaultUserAgent() + "/kubelet"
		}
		c, err := typed.NewForConfig(rc)
		if err != nil {
			return Config{}, fmt.Errorf("kubelet client: %w", err)
		}
		cs = c
	}
	name, err := NodeName(o.NodeName)
	if err != nil {
		return Config{}, err
	}
	ip := o.NodeIP
	if ip == "" {
		ip = DefaultNodeIP()
	}
	root, err := filepath.Abs(o.RootDir)
	if err != nil {
		return Config{}, fmt.Errorf("--root-dir: %w", err)
	}
	labels, _ := parseLabels(o.NodeLabels)
	taints, _ := parseTaints(o.RegisterWithTaints)
	var rt kruntime.Runtime
	var podNet *network.Network
	podNetwork, cniConfDir := "", ""
	switch o.Runtime {
	case RuntimeProcess:
		shim := o.ShimCommand
		if len(shim) == 0 {
			exe, err := os.Executable()
			if err != nil {
				return Config{}, fmt.Errorf("process runtime shim: %w", err)
			}
			shim = []string{exe, "kubelet", process.ShimSubcommand}
		}
		var sources []process.ImageConfigSource
		for _, spec := range o.ImageLayouts {
			l, err := oci.Open(spec)
			if err != nil {
				return Config{}, fmt.Errorf("--image-layout: %w", err)
			}
			sources = append(sources, l)
		}
		if o.ImageServiceEndpoint != "" {
			ic, err := cri.NewImageConfigs(context.Background(), o.ImageServiceEndpoint, 10*time.Second)
			if err != nil {
				return Config{}, fmt.Errorf("--image-service-endpoint: %w", err)
			}
			sources = append(sources, ic)
		}
		entrypoints, err := process.LoadEntrypoints(o.ImageEntrypoints, sources...)
		if err != nil {
			return Config{}, fmt.Errorf("--image-entrypoints: %w", err)
		}
		// The pause image's program: the shim's binary, as `kubelet pause`.
		pause := append(slices.Clone(shim[:len(shim)-1]), pauseSubcommand)
		// Containers outlive the kubelet: a restarted one re-adopts them
		// from the runtime's state files.
		logMax, _ := o.containerLogMaxSize()
		mode, err := o.podNetworkMode()
		if err != nil {
			return Config{}, err
		}
		podNetwork = mode
		var pn process.PodNetwork
		if mode == PodNetworkBridge {
			cidr, _ := netip.ParsePrefix(o.ClusterCIDR)
			if podNet, err = network.New(network.Options{Dir: filepath.Join(root, "network"), Bridge: o.PodBridge, ClusterCIDR: cidr}); err != nil {
				return Config{}, err
			}
			pn = podNet
		}
		prt, err := process.New(process.Options{HostIP: ip, StateDir: filepath.Join(root, "runtime", "process"), ShimCommand: shim,
			ContainerLogMaxSize: logMax, ContainerLogMaxFiles: int(o.ContainerLogMaxFiles),
			Entrypoints: entrypoints, Builtins: map[string][]string{"pause": pause}, Network: pn})
		if err != nil {
			return Config{}, err
		}
		rt = prt
	case RuntimeCRI:
		// Containers outlive the kubelet too: a restarted one finds them
		// through the runtime's sandbox and container lists.
		crt, err := cri.New(context.Background(), cri.Options{Endpoint: o.ContainerRuntimeEndpoint, HostIP: ip, CgroupRoot: o.CgroupRoot})
		if err != nil {
			return Config{}, err
		}
		rt = crt
		cniConfDir = o.CNIConfDir
	case RuntimeFake:
		frt := fake.New(ip, nil)
		u, _ := o.fakeUsage()
		frt.SetUsage(u)
		rt = frt
	}
	srv, err := o.serverConfig(rc, root, name, ip)
	if err != nil {
		return Config{}, err
	}
	if srv != nil {
		srv.NodeName = name
		if cs != nil && o.AuthorizationMode == AuthorizationWebhook {
			srv.Authorizer = server.SubjectAccessReviewAuthorizer{Reviews: cs.AuthorizationV1().SubjectAccessReviews()}
		}
	}
	clusterDNS := o.ClusterDNS
	var proxyCfg *proxyapp.Config
	var dnsCfg *dnsapp.Config
	runProxy, why := o.ServiceProxyOn()
	if !runProxy && o.RunServiceProxy == SwitchAuto {
		klog.InfoS("The service proxy is off: cluster IPs are not routed from this node", "reason", why)
	}
	if runProxy {
		po := proxyapp.NewOptions()
		po.RESTConfig, po.HostnameOverride = rc, name
		pc, err := po.Complete()
		if err != nil {
			return Config{}, fmt.Errorf("service proxy: %w", err)
		}
		proxyCfg = &pc
	}
	if runProxy && o.RunClusterDNS != SwitchOn && len(clusterDNS) == 0 && cs != nil {
		clusterDNS = clusterDNSService(cs)
	}
	if o.RunClusterDNS == SwitchOn {
		if len(clusterDNS) == 0 {
			clusterDNS = []string{dns.DefaultServiceIP}
		}
		do := dnsapp.NewOptions()
		do.RESTConfig, do.NodeName, do.NodeIP = rc, name, ip
		do.ClusterDomain, do.ClusterDNS, do.ResolvConf = o.ClusterDomain, clusterDNS[0], o.ResolvConf
		dc, err := do.Complete()
		if err != nil {
			return Config{}, fmt.Errorf("cluster DNS: %w", err)
		}
		dnsCfg = &dc
	}
	return Config{proxy: proxyCfg, dns: dnsCfg, completed: &kubelet.Config{
		DNS:      kubelet.DNSConfigurer{ClusterDNS: clusterDNS, ClusterDomain: o.ClusterDomain, HostResolvConf: o.ResolvConf},
		NodeName: name, Hostname: o.HostnameOverride, Client: cs, Runtime: rt, RootDir: root, NodeIP: ip,
		NodeLabels: labels, RegisterWithTaints: taints, MaxPods: o.MaxPods,
		AllowedUnsafeSysctls: o.AllowedUnsafeSysctls,
		KubeletPort:          o.Port,
		StopPodsOnExit:       o.StopPodsOnExit,
		StaticPodPath:        o.StaticPodPath, StaticPodURL: o.StaticPodURL,
		FileCheckFrequency: o.FileCheckFrequency, HTTPCheckFrequency: o.HTTPCheckFrequency,
		NodeStatusUpdateFrequency: o.NodeStatusUpdateFrequency, NodeStatusReportFrequency: o.NodeStatusReportFrequency,
		LeaseDurationSeconds: o.NodeLeaseDurationSeconds,
		PodNetwork:           podNetwork,
	}, server: srv, network: podNet, cniConfDir: cniConfDir}, nil
}

// clusterDNSService is the cluster IP of kube-system/kube-dns when the
// Service is there (the cluster runs a DNS: all-in-one or kubecore dns),
// the default --cluster-dns of a kubelet with its service proxy, which
// routes the address; none when it is not.
func clusterDNSService(cs *typed.Clientset) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	svc, err := cs.CoreV1().Services(dns.ServiceNamespace).Get(ctx, dns.ServiceName, metav1.GetOptions{})
	if err != nil {
		klog.InfoS("No cluster DNS for pods: pods with dnsPolicy ClusterFirst get the node's resolv.conf (set --cluster-dns to choose)",
			"service", dns.ServiceNamespace+"/"+dns.ServiceName, "err", err)
		return nil
	}
	if ip := svc.Spec.ClusterIP; net.ParseIP(ip) != nil {
		klog.InfoS("Pods use the cluster DNS of the kube-dns Service", "clusterDNS", ip)
		return []string{ip}
	}
	return nil
}

// podNetworkMode resolves --pod-network for the process runtime: auto is
// bridge when this kubelet can make network namespaces (root), else host.
func (o *Options) podNetworkMode() (string, error) {
	switch o.PodNetwork {
	case PodNetworkHost:
		return PodNetworkHost, nil
	case PodNetworkBridge:
		if err := network.Supported(); err != nil {
			return "", fmt.Errorf("--pod-network=bridge: %w", err)
		}
		return PodNetworkBridge, nil
	}
	if err := network.Supported(); err != nil {
		klog.InfoS("Pods share the host's network: the pod network needs root, ip and nsenter", "reason", err.Error())
		return PodNetworkHost, nil
	}
	return PodNetworkBridge, nil
}

// serverConfig loads the certificates of the kubelet server; its Host is
// set when the kubelet is made.
func (o *Options) serverConfig(rc *rest.Config, root, nodeName, nodeIP string) (*server.Config, error) {
	var cas *x509.CertPool
	switch {
	case o.ClientCAFile != "":
		p, err := server.LoadClientCAs(o.ClientCAFile)
		if err != nil {
			return nil, err
		}
		cas = p
	case rc == nil:
		// Standalone without a client CA: no secure server.
		return nil, nil
	case len(rc.TLSClientConfig.CAData) > 0 || rc.TLSClientConfig.CAFile != "":
		// The cluster CA of the kubeconfig signs the apiserver's client
		// certificate too, as all-in-one makes them.
		b := rc.TLSClientConfig.CAData
		if len(b) == 0 {
			var err error
			if b, err = os.ReadFile(rc.TLSClientConfig.CAFile); err != nil {
				return nil, fmt.Errorf("cluster CA: %w", err)
			}
		}
		cas = x509.NewCertPool()
		if !cas.AppendCertsFromPEM(b) {
			return nil, errors.New("the kubeconfig's certificate authority holds no certificate: set --client-ca-file")
		}
	default:
		return nil, errors.New("the kubelet server needs a client CA: set --client-ca-file, or use a kubeconfig with a certificate authority")
	}
	cert, err := server.LoadOrCreateCertificate(o.TLSCertFile, o.TLSPrivateKeyFile, filepath.Join(root, "pki"), nodeName, []net.IP{net.ParseIP(nodeIP)})
	if err != nil {
		return nil, err
	}
	return &server.Config{Address: o.Address, Port: int(o.Port), ReadOnlyPort: int(o.ReadOnlyPort), Certificate: cert, ClientCAs: cas}, nil
}

// NodeName is the node name a kubelet registers: flag when set, else the
// host name in lower case, which must then be a valid node name.
func NodeName(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("node name from host name: %w", err)
	}
	name := strings.ToLower(host)
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", fmt.Errorf("host name %q is not a valid node name (%s): set --node-name", name, strings.Join(msgs, ", "))
	}
	return name, nil
}

// DefaultNodeIP is the source address of the default route, else the
// first global unicast address of an interface, else the loopback.
func DefaultNodeIP() string {
	// Connecting a UDP socket sends nothing; it only picks the route.
	if c, err := net.Dial("udp", "192.0.2.1:9"); err == nil {
		defer func() { _ = c.Close() }()
		if a, ok := c.LocalAddr().(*net.UDPAddr); ok && !a.IP.IsLoopback() {
			return a.IP.String()
		}
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return "127.0.0.1"
}

// Kubelet makes the node agent of the completed config.
func (c Config) Kubelet() (*kubelet.Kubelet, error) {
	if c.completed == nil {
		return nil, errors.New("kubelet config was not completed")
	}
	return kubelet.New(*c.completed)
}

// Run runs the node agent and its server until ctx ends or either fails.
func (c Config) Run(ctx context.Context) error {
	if c.completed == nil {
		return errors.New("kubelet config was not completed")
	}
	g, ctx := errgroup.WithContext(ctx)
	if c.proxy != nil {
		g.Go(func() error { return c.proxy.Run(ctx) })
	}
	if c.dns != nil {
		g.Go(func() error { return c.dns.Run(ctx) })
	}
	g.Go(func() error { return c.runKubelet(ctx) })
	return g.Wait()
}

// runKubelet runs the node agent and its server.
func (c Config) runKubelet(ctx context.Context) error {
	if c.server == nil {
		kl, err := c.Kubelet()
		if err != nil {
			return err
		}
		g, ctx := errgroup.WithContext(ctx)
		g.Go(func() error { return kl.Run(ctx) })
		c.runNetwork(ctx, g)
		return g.Wait()
	}
	// The server listens first, so that the Node reports its real port
	// (--port 0 picks a free one); it serves once the kubelet exists.
	host := &lateHost{}
	sc := *c.server
	sc.Host = host
	sp, err := stats.NewProvider(stats.Config{NodeName: c.completed.NodeName, Source: host})
	if err != nil {
		return err
	}
	sc.Stats = sp
	srv, err := server.New(sc)
	if err != nil {
		return fmt.Errorf("%w (set --port; 0 picks a free one)", err)
	}
	kc := *c.completed
	kc.KubeletPort = int32(srv.Addr().(*net.TCPAddr).Port)
	kl, err := kubelet.New(kc)
	if err != nil {
		return err
	}
	host.Host = kl
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Serve(ctx) })
	g.Go(func() error { return kl.Run(ctx) })
	c.runNetwork(ctx, g)
	return g.Wait()
}

// runNetwork runs the pod network's Node watch beside the kubelet.
func (c Config) runNetwork(ctx context.Context, g *errgroup.Group) {
	if c.completed.Client == nil {
		return
	}
	if c.network != nil {
		g.Go(func() error { return c.network.Run(ctx, c.completed.Client, c.completed.NodeName) })
	}
	if c.cniConfDir != "" {
		g.Go(func() error {
			if err := network.RunCNI(ctx, c.completed.Client, c.completed.NodeName, c.cniConfDir); err != nil && ctx.Err() == nil {
				return err
			}
			return nil
		})
	}
}

// lateHost is the kubelet as the server's host, set before serving.
type lateHost struct{ server.Host }

// NewCommand returns the kubelet subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "kubelet",
		Short: "Run a node agent",
		Long: "Run a node agent: register the Node named --node-name, renew its Lease, and run\n" +
			"the pods bound to it with the process (host processes), cri (containerd) or fake runtime.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.ConfigFile != "" {
				if err := o.LoadConfigFile(o.ConfigFile, cmd.Flags().Changed); err != nil {
					return err
				}
			}
			if err := o.Bootstrap(cmd.Context()); err != nil {
				return err
			}
			c, err := o.Complete()
			if err != nil {
				return err
			}
			return c.Run(cmd.Context())
		},
	}
	cmd.AddCommand(newShimCommand(), newPauseCommand())
	fs := cmd.Flags()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file with the API server and credentials (with --token: where the kubeconfig is written, default ROOT_DIR/kubelet.kubeconfig)")
	fs.StringVar(&o.Server, "server", o.Server, "URL of the API server to join, with --token and --ca-cert-hash")
	fs.StringVar(&o.Token, "token", o.Token, "Bootstrap token (`kubecore token create`) with which the kubelet gets its client certificate")
	fs.StringVar(&o.CACertHash, "ca-cert-hash", o.CACertHash, "sha256:<hex> of the cluster CA's public key, which the CA the server offers must match")
	fs.StringVar(&o.NodeName, "node-name", o.NodeName, "Name of the Node to register (default: the host name)")
	fs.StringVar(&o.HostnameOverride, "hostname-override", o.HostnameOverride, "The Node's Hostname address, by which the API server reaches the kubelet by default, and kubernetes.io/hostname label (default: the node name)")
	fs.StringVar(&o.RootDir, "root-dir", o.RootDir, "Directory of pod volumes and container logs")
	fs.StringVar(&o.Runtime, "runtime", o.Runtime, "Container runtime: process (host processes), cri (a CRI runtime such as containerd) or fake (no processes, for simulations)")
	fs.StringVar(&o.ContainerRuntimeEndpoint, "container-runtime-endpoint", o.ContainerRuntimeEndpoint, "Socket of the CRI runtime, with --runtime cri")
	fs.StringVar(&o.CgroupRoot, "cgroup-root", o.CgroupRoot, "Cgroup the pods' cgroups are made under, with --runtime cri (default: /kubepods)")
	fs.StringVar(&o.NodeIP, "node-ip", o.NodeIP, "The node's InternalIP, also the pods' IP (default: the address of the default route)")
	AddPodNetworkFlags(fs, o)
	fs.StringVar(&o.CNIConfDir, "cni-conf-dir", o.CNIConfDir, "With --runtime cri: directory (containerd's, such as /etc/cni/net.d) to write the pod network's CNI configuration into once the Node has a podCIDR; empty writes none")
	fs.StringSliceVar(&o.NodeLabels, "node-labels", o.NodeLabels, "Labels to add to the Node, key=value,...")
	fs.StringSliceVar(&o.RegisterWithTaints, "register-with-taints", o.RegisterWithTaints, "Taints of the Node when registered, key=value:Effect,...")
	fs.Int32Var(&o.MaxPods, "max-pods", o.MaxPods, "Pods the node accepts (its pods capacity)")
	fs.StringVar(&o.Address, "address", o.Address, "IP address of the kubelet's HTTPS server")
	fs.Int32Var(&o.Port, "port", o.Port, "Port of the kubelet's HTTPS server (logs, exec, pods), reported in the Node's daemonEndpoints")
	fs.Int32Var(&o.ReadOnlyPort, "read-only-port", o.ReadOnlyPort, "Port serving /healthz and /pods without authentication on 127.0.0.1 (0: off)")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "Serving certificate of the kubelet server (default: self-signed, under --root-dir/pki)")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "Key of --tls-cert-file")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "CA bundle that client certificates of the kubelet server must chain to (default: the kubeconfig's CA)")
	fs.StringVar(&o.StaticPodPath, "pod-manifest-path", o.StaticPodPath, "Directory of static pod manifests (*.yaml, *.yml, *.json), read every --file-check-frequency")
	fs.StringVar(&o.StaticPodURL, "manifest-url", o.StaticPodURL, "URL serving a static pod or a PodList, read every --http-check-frequency")
	fs.DurationVar(&o.FileCheckFrequency, "file-check-frequency", o.FileCheckFrequency, "How often --pod-manifest-path is read")
	fs.DurationVar(&o.HTTPCheckFrequency, "http-check-frequency", o.HTTPCheckFrequency, "How often --manifest-url is read")
	fs.DurationVar(&o.NodeStatusUpdateFrequency, "node-status-update-frequency", o.NodeStatusUpdateFrequency, "How often the node status is computed")
	fs.StringVar(&o.ConfigFile, "config", o.ConfigFile, "A kubelet.config.k8s.io/v1beta1 KubeletConfiguration file; flags given on the command line take precedence")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second to the API server (0: no limit)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of requests to the API server")
	options.AddContentTypeFlag(fs, &o.ContentType)
	fs.StringVar(&o.ContainerLogMaxSize, "container-log-max-size", o.ContainerLogMaxSize, "Size at which a container's log file is rotated (process runtime)")
	fs.Int32Var(&o.ContainerLogMaxFiles, "container-log-max-files", o.ContainerLogMaxFiles, "Log files kept per container, the live one included (at least 2)")
	fs.StringVar(&o.AuthorizationMode, "authorization-mode", o.AuthorizationMode, "Authorization of the kubelet server's requests: Webhook (a SubjectAccessReview on nodes/stats, nodes/metrics, nodes/log or nodes/proxy; needs a kubeconfig) or AlwaysAllow")
	fs.StringVar(&o.FakeContainerCPU, "fake-container-cpu", o.FakeContainerCPU, "CPU each running container reports with --runtime fake (a quantity such as 250m)")
	fs.StringVar(&o.FakeContainerMemory, "fake-container-memory", o.FakeContainerMemory, "Memory working set each running container reports with --runtime fake (a quantity such as 64Mi)")
	AddImageEntrypointsFlag(fs, o)
	AddNetworkFlags(fs, o)
	return cmd
}

// AddPodNetworkFlags adds --pod-network and --cluster-cidr (the kubelet's
// and all-in-one's).
func AddPodNetworkFlags(fs *pflag.FlagSet, o *Options) {
	fs.StringVar(&o.PodNetwork, "pod-network", o.PodNetwork,
		"Pod networking of the process runtime: auto (a network namespace and IP per pod from the Node's podCIDR when root, else the host's network), bridge, or host (pods share the node's network and IP)")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "The pods' address range of the whole cluster: pod traffic leaving it is masqueraded")
	fs.StringVar(&o.PodBridge, "pod-bridge", o.PodBridge,
		"The bridge of the bridge pod network (default "+network.DefaultBridge+"); each kubelet sharing a host's network namespace needs its own")
}

// validLinkName reports whether name can name a Linux network interface.
func validLinkName(name string) bool {
	return len(name) <= 15 && name != "." && name != ".." && !strings.ContainsAny(name, "/: \t\n") && name != ""
}

// AddNetworkFlags adds the DNS and service proxy flags (also
// all-in-one's).
func AddNetworkFlags(fs *pflag.FlagSet, o *Options) {
	fs.StringSliceVar(&o.ClusterDNS, "cluster-dns", o.ClusterDNS, "Cluster DNS server addresses written into pods' resolv.conf for dnsPolicy ClusterFirst (default with --run-cluster-dns: "+dns.DefaultServiceIP+")")
	fs.StringVar(&o.ClusterDomain, "cluster-domain", o.ClusterDomain, "The cluster's DNS domain, searched by pods")
	fs.StringSliceVar(&o.AllowedUnsafeSysctls, "allowed-unsafe-sysctls", o.AllowedUnsafeSysctls, "Sysctls beyond the safe set that pods may set (names, or prefixes ending in '*', e.g. 'kernel.msg*,net.core.somaxconn'); a pod asking for another is rejected with SysctlForbidden")
	fs.StringVar(&o.ResolvConf, "resolv-conf", o.ResolvConf, "The node's resolv.conf: pods with dnsPolicy Default get it, and the cluster DNS forwards other names to its servers")
	switchVar(fs, &o.RunServiceProxy, "run-service-proxy", "Run the nftables service proxy in this process, as kubecore proxy does: true, false, or auto (on when root with the process or cri runtime and an API server)")
	switchVar(fs, &o.RunClusterDNS, "run-cluster-dns", "Serve cluster DNS on the node IP in this process and publish it as an endpoint of kube-system/kube-dns, as kubecore dns does: true, false, or auto (a kubelet alone: off; all-in-one: on when its service proxy runs)")
}

// AddImageEntrypointsFlag adds --image-entrypoints and --image-layout
// (also all-in-one's).
func AddImageEntrypointsFlag(fs *pflag.FlagSet, o *Options) {
	fs.StringVar(&o.ImageEntrypoints, "image-entrypoints", o.ImageEntrypoints,
		"YAML file of image entrypoints for the process runtime (images: {NAME[:TAG]: {entrypoint: [...], cmd: [...]}}), for containers that give no command; well-known images need none")
	fs.StringArrayVar(&o.ImageLayouts, "image-layout", o.ImageLayouts,
		"OCI image layout (a directory, or an OCI archive .tar) whose images' Entrypoint, Cmd, Env and WorkingDir the process runtime uses, after --image-entrypoints and before the well-known images; "+
			"images are found by their full-reference ref.name or containerd name annotations, or with NAME=PATH by NAME and a tag ref.name (repeatable)")
	fs.StringVar(&o.ImageServiceEndpoint, "image-service-endpoint", o.ImageServiceEndpoint,
		"CRI image service (unix:///run/containerd/containerd.sock) whose image store gives the process runtime images' Entrypoint, Cmd, Env and WorkingDir, after --image-layout (default: none)")
}

// pauseSubcommand is `kubecore kubelet pause`, the process runtime's
// program for the pause image.
const pauseSubcommand = "pause"

// newPauseCommand sleeps until SIGTERM or SIGINT, as the pause image's
// program does, and exits 0.
func newPauseCommand() *cobra.Command {
	return &cobra.Command{
		Use:    pauseSubcommand,
		Short:  "Sleep until terminated: the pause image's program under the process runtime",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
}

// newShimCommand is `kubecore kubelet process-shim SPEC`, the parent of one
// container's process under the process runtime (see process.RunShim); the
// kubelet starts it, people do not.
func newShimCommand() *cobra.Command {
	return &cobra.Command{
		Use:                process.ShimSubcommand + " SPEC",
		Short:              "Run one container of the process runtime and record its exit status",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			if code := process.RunShim(args); code != 0 {
				return fmt.Errorf("%s exited with %d", process.ShimSubcommand, code)
			}
			return nil
		},
	}
}
