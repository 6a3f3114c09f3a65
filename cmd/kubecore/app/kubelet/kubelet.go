// Package kubelet implements `kubecore kubelet`: flags into Options,
// validated and completed into a Config whose Run(ctx) runs a node agent.
package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/kubelet"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
)

// The container runtimes of --runtime.
const (
	RuntimeProcess = "process"
	RuntimeFake    = "fake"
)

// Options are the flags of `kubecore kubelet`.
type Options struct {
	Kubeconfig string
	// NodeName is the Node to register; the host name when empty.
	NodeName string
	// RootDir holds pod directories and container logs.
	RootDir string
	// Runtime is process or fake.
	Runtime string
	// NodeIP is the node's InternalIP (and the pods' with host
	// networking); the address of the default route when empty.
	NodeIP string
	// NodeLabels are "key=value" entries added to the Node's labels.
	NodeLabels []string
	// RegisterWithTaints are "key=value:Effect" or "key:Effect" entries.
	RegisterWithTaints []string
	MaxPods            int32
	// Port is the kubelet's port, reported in the Node's daemonEndpoints.
	Port int32
	// QPS and Burst limit the client.
	QPS   float32
	Burst int

	// RESTConfig, when set, is used instead of Kubeconfig (all-in-one).
	RESTConfig *rest.Config
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{Runtime: RuntimeProcess, MaxPods: 110, Port: 10250, QPS: 50, Burst: 100}
}

// Validate returns every problem with the options, on one line.
func (o *Options) Validate() error {
	var errs []string
	if o.Kubeconfig == "" && o.RESTConfig == nil {
		errs = append(errs, "--kubeconfig is required (standalone mode with static pods only is not implemented yet)")
	}
	if o.RootDir == "" {
		errs = append(errs, "--root-dir is required")
	}
	if o.NodeName != "" {
		if msgs := validation.IsDNS1123Subdomain(o.NodeName); len(msgs) > 0 {
			errs = append(errs, fmt.Sprintf("--node-name %q: %s", o.NodeName, strings.Join(msgs, ", ")))
		}
	}
	switch o.Runtime {
	case RuntimeProcess, RuntimeFake:
	case "cri":
		errs = append(errs, "--runtime cri is not implemented yet; use process or fake")
	default:
		errs = append(errs, fmt.Sprintf("--runtime %q is not one of process, fake", o.Runtime))
	}
	if o.NodeIP != "" && net.ParseIP(o.NodeIP) == nil {
		errs = append(errs, fmt.Sprintf("--node-ip %q is not an IP address", o.NodeIP))
	}
	if _, err := parseLabels(o.NodeLabels); err != nil {
		errs = append(errs, err.Error())
	}
	if _, err := parseTaints(o.RegisterWithTaints); err != nil {
		errs = append(errs, err.Error())
	}
	if o.MaxPods <= 0 {
		errs = append(errs, fmt.Sprintf("--max-pods %d must be positive", o.MaxPods))
	}
	if o.Port <= 0 || o.Port > 65535 {
		errs = append(errs, fmt.Sprintf("--port %d is not in [1, 65535]", o.Port))
	}
	if o.QPS < 0 || o.Burst < 0 {
		errs = append(errs, "--kube-api-qps and --kube-api-burst must not be negative")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
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
}

// Complete validates o, loads the kubeconfig, picks the node name and IP
// and makes the client and the runtime.
func (o *Options) Complete() (Config, error) {
	if err := o.Validate(); err != nil {
		return Config{}, err
	}
	var rc *rest.Config
	if o.RESTConfig != nil {
		rc = rest.CopyConfig(o.RESTConfig)
	} else {
		c, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
		if err != nil {
			return Config{}, fmt.Errorf("load kubeconfig %s: %w", o.Kubeconfig, err)
		}
		rc = c
	}
	rc.QPS, rc.Burst = o.QPS, o.Burst
	if rc.UserAgent == "" {
		rc.UserAgent = rest.DefaultUserAgent() + "/kubelet"
	}
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		return Config{}, fmt.Errorf("kubelet client: %w", err)
	}
	name, err := NodeName(o.NodeName)
	if err != nil {
		return Config{}, err
	}
	ip := o.NodeIP
	if ip == "" {
		ip = defaultNodeIP()
	}
	root, err := filepath.Abs(o.RootDir)
	if err != nil {
		return Config{}, fmt.Errorf("--root-dir: %w", err)
	}
	labels, _ := parseLabels(o.NodeLabels)
	taints, _ := parseTaints(o.RegisterWithTaints)
	var rt kruntime.Runtime
	stopOnExit := false
	switch o.Runtime {
	case RuntimeProcess:
		// Processes are not re-adopted after a restart yet: stop them
		// with the kubelet rather than leave them unowned.
		rt, stopOnExit = process.New(process.Options{HostIP: ip}), true
	case RuntimeFake:
		rt = fake.New(ip, nil)
	}
	return Config{completed: &kubelet.Config{
		NodeName: name, Client: cs, Runtime: rt, RootDir: root, NodeIP: ip,
		NodeLabels: labels, RegisterWithTaints: taints, MaxPods: o.MaxPods,
		KubeletPort: o.Port, StopPodsOnExit: stopOnExit,
	}}, nil
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

// defaultNodeIP is the source address of the default route, else the
// first global unicast address of an interface, else the loopback.
func defaultNodeIP() string {
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

// Run runs the node agent until ctx ends.
func (c Config) Run(ctx context.Context) error {
	kl, err := c.Kubelet()
	if err != nil {
		return err
	}
	return kl.Run(ctx)
}

// NewCommand returns the kubelet subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "kubelet",
		Short: "Run a node agent",
		Long: "Run a node agent: register the Node named --node-name, renew its Lease, and run\n" +
			"the pods bound to it with the process (host processes) or fake runtime.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.Complete()
			if err != nil {
				return err
			}
			return c.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file with the API server and credentials")
	fs.StringVar(&o.NodeName, "node-name", o.NodeName, "Name of the Node to register (default: the host name)")
	fs.StringVar(&o.RootDir, "root-dir", o.RootDir, "Directory of pod volumes and container logs")
	fs.StringVar(&o.Runtime, "runtime", o.Runtime, "Container runtime: process (host processes) or fake (no processes, for simulations)")
	fs.StringVar(&o.NodeIP, "node-ip", o.NodeIP, "The node's InternalIP, also the pods' IP (default: the address of the default route)")
	fs.StringSliceVar(&o.NodeLabels, "node-labels", o.NodeLabels, "Labels to add to the Node, key=value,...")
	fs.StringSliceVar(&o.RegisterWithTaints, "register-with-taints", o.RegisterWithTaints, "Taints of the Node when registered, key=value:Effect,...")
	fs.Int32Var(&o.MaxPods, "max-pods", o.MaxPods, "Pods the node accepts (its pods capacity)")
	fs.Int32Var(&o.Port, "port", o.Port, "The kubelet's port, reported in the Node's daemonEndpoints")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second to the API server (0: no limit)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of requests to the API server")
	return cmd
}
