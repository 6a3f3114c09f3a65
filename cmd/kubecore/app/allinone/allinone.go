// Package allinone implements `kubecore all-in-one`: etcd, the API server,
// the controller-manager, the scheduler and a kubelet in one process, each
// reaching the API server over loopback through the client a remote
// component uses, started in order and stopped together.
package allinone

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/cmd/kubecore/app/controllermanager"
	dnsapp "kubecore.io/kubecore/cmd/kubecore/app/dns"
	"kubecore.io/kubecore/cmd/kubecore/app/kubelet"
	proxyapp "kubecore.io/kubecore/cmd/kubecore/app/proxy"
	"kubecore.io/kubecore/cmd/kubecore/app/scheduler"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
	"kubecore.io/kubecore/pkg/dns"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/pkg/registry/core/componentstatus"
)

// Options are the flags of `kubecore all-in-one`.
type Options struct {
	APIServer *apiserver.Options
	// Kubelet is the node agent's options; its kubeconfig, root dir and
	// client are set by all-in-one.
	Kubelet *kubelet.Options
	// KeepPods leaves the pods running when all-in-one exits, for the
	// next start to re-adopt; otherwise they are stopped with their grace
	// periods.
	KeepPods bool
	// AllocateNodeCIDRs and NodeCIDRMaskSize are the node IPAM's, as the
	// controller-manager's flags (allocation is on); its cluster CIDR is
	// the kubelet's.
	AllocateNodeCIDRs bool
	NodeCIDRMaskSize  int
	// Out receives the ready lines (stdout).
	Out io.Writer
}

// NewOptions returns the defaults: the API server's, on its usual port.
func NewOptions() *Options {
	cm := controllermanager.NewOptions()
	return &Options{APIServer: apiserver.NewOptions(), Kubelet: kubelet.NewOptions(), Out: os.Stdout,
		AllocateNodeCIDRs: true, NodeCIDRMaskSize: cm.NodeCIDRMaskSize}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	errs := o.APIServer.Validate()
	// The other components' own checks, with what all-in-one fills in.
	errs = append(errs, o.kubeletOptions(o.APIServer.DataDir, "-").Validate()...)
	errs = append(errs, o.controllerManagerOptions("-", o.APIServer.DataDir).Validate()...)
	errs = append(errs, schedulerOptions("-").Validate()...)
	return errs
}

// kubeletOptions are o.Kubelet as all-in-one runs it: its root dir under
// the data dir and its credentials from kubeconfig.
func (o *Options) kubeletOptions(dataDir, kubeconfig string) *kubelet.Options {
	k := *o.Kubelet
	k.Kubeconfig = kubeconfig
	k.RootDir = filepath.Join(dataDir, "kubelet")
	k.StopPodsOnExit = !o.KeepPods
	// The proxy and the DNS run beside it with users of their own (see
	// networkComponents); pods get the DNS's address.
	if _, dnsOn, _ := o.network(); dnsOn && len(k.ClusterDNS) == 0 {
		k.ClusterDNS = []string{dns.DefaultServiceIP}
	}
	k.RunServiceProxy, k.RunClusterDNS = kubelet.SwitchOff, kubelet.SwitchOff
	return &k
}

// network resolves the service proxy and cluster DNS switches: the
// proxy's as a kubelet with an API server would (auto: on as root with a
// runtime that runs processes); the DNS's auto follows the proxy, as pods
// reach the DNS's cluster IP through it. reason says why the proxy is off.
func (o *Options) network() (proxyOn, dnsOn bool, reason string) {
	k := *o.Kubelet
	k.Kubeconfig = "-" // all-in-one gives its kubelet one
	proxyOn, reason = k.ServiceProxyOn()
	switch k.RunClusterDNS {
	case kubelet.SwitchOn:
		dnsOn = true
	case kubelet.SwitchAuto:
		dnsOn = proxyOn
	}
	return proxyOn, dnsOn, reason
}

// networkComponents are the service proxy and the cluster DNS when the
// kubelet flags ask for them: in the one process, each under its own
// user (system:kube-proxy, system:kube-dns), since a node may not write
// the kube-dns Service.
func (o *Options) networkComponents(node string) []component {
	k := o.Kubelet
	proxyOn, dnsOn, why := o.network()
	if !proxyOn {
		klog.InfoS("The service proxy is off: cluster IPs are not routed on this node", "reason", why)
	}
	if !dnsOn {
		reason := "--run-cluster-dns=false"
		if k.RunClusterDNS == kubelet.SwitchAuto {
			reason = "pods reach it through the service proxy, which is off: " + why
		}
		klog.InfoS("The cluster DNS is off: pods get the node's resolv.conf", "reason", reason)
	}
	var out []component
	if proxyOn {
		out = append(out, component{name: "proxy", user: bootstrappolicy.ProxyUser, complete: func(kubeconfig string) (runner, error) {
			po := proxyapp.NewOptions()
			po.Kubeconfig, po.HostnameOverride = kubeconfig, node
			return po.Complete()
		}})
	}
	if dnsOn {
		out = append(out, component{name: "dns", user: bootstrappolicy.DNSUser, complete: func(kubeconfig string) (runner, error) {
			do := dnsapp.NewOptions()
			do.Kubeconfig, do.NodeName, do.NodeIP = kubeconfig, node, k.NodeIP
			if do.NodeIP == "" {
				do.NodeIP = kubelet.DefaultNodeIP()
			}
			do.ClusterDomain, do.ResolvConf = k.ClusterDomain, k.ResolvConf
			if len(k.ClusterDNS) > 0 {
				do.ClusterDNS = k.ClusterDNS[0]
			}
			return do.Complete()
		}})
	}
	return out
}

// controllerManagerOptions are the controller-manager's as all-in-one runs
// it: alone, so without leader election, and signing kubelet certificates
// with the cluster CA of the data dir.
func (a *Options) controllerManagerOptions(kubeconfig, dataDir string) *controllermanager.Options {
	o := controllermanager.NewOptions()
	o.Kubeconfig = kubeconfig
	o.LeaderElect = false // the only one: nobody to elect against
	pkiDir := filepath.Join(dataDir, "pki")
	o.ClusterSigningCertFile, o.ClusterSigningKeyFile = pki.CACertPath(pkiDir), pki.CAKeyPath(pkiDir)
	o.AllocateNodeCIDRs, o.ClusterCIDR, o.NodeCIDRMaskSize = a.AllocateNodeCIDRs, a.Kubelet.ClusterCIDR, a.NodeCIDRMaskSize
	return o
}

func schedulerOptions(kubeconfig string) *scheduler.Options {
	o := scheduler.NewOptions()
	o.Kubeconfig = kubeconfig
	return o
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	apiserver apiserver.Config
	dataDir   string
	bind      string
	// components are the API server's clients, completed once it serves
	// (their kubeconfigs name its address and their certificates).
	components []component
	out        io.Writer
}

// runner is a completed component: every component's Config is one.
type runner interface {
	Run(ctx context.Context) error
}

var (
	_ runner = apiserver.Config{}
	_ runner = controllermanager.Config{}
	_ runner = scheduler.Config{}
	_ runner = kubelet.Config{}
	_ runner = proxyapp.Config{}
	_ runner = dnsapp.Config{}
)

// component is one client of the API server that all-in-one runs: its
// client certificate identity and how its config is completed from its
// kubeconfig.
type component struct {
	name     string // file name of its certificate and kubeconfig
	user     string
	group    []string
	complete func(kubeconfig string) (runner, error)
	// health, when set, is reported as a componentstatus.
	health *health
}

// health is whether an in-process component runs, for componentstatuses:
// the scheduler and controller-manager of all-in-one serve no health port
// for the API server to probe.
type health struct {
	mu      sync.Mutex
	running bool
	err     error // why it stopped
}

func (h *health) set(running bool, err error) {
	h.mu.Lock()
	h.running, h.err = running, err
	h.mu.Unlock()
}

// probe reports h under name: healthy while the component runs.
func (h *health) probe(name string) componentstatus.Probe {
	return componentstatus.Probe{Name: name, Check: func(context.Context) (string, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		switch {
		case h.running:
			return "ok", nil
		case h.err != nil:
			return "", fmt.Errorf("stopped: %w", h.err)
		}
		return "", errors.New("not running in this all-in-one yet")
	}}
}

// Complete validates o and returns the config Run needs.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	cmHealth, schedHealth := &health{}, &health{}
	as := *o.APIServer
	as.Components = append(slices.Clone(as.Components), cmHealth.probe("controller-manager"), schedHealth.probe("scheduler"))
	ac, err := as.Complete()
	if err != nil {
		return Config{}, err
	}
	dir, err := filepath.Abs(o.APIServer.DataDir)
	if err != nil {
		return Config{}, fmt.Errorf("data dir %q: %w", o.APIServer.DataDir, err)
	}
	node, err := kubelet.NodeName(o.Kubelet.NodeName)
	if err != nil {
		return Config{}, err
	}
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	components := []component{
		{name: "controller-manager", user: "system:kube-controller-manager", health: cmHealth, complete: func(kubeconfig string) (runner, error) {
			return o.controllerManagerOptions(kubeconfig, dir).Complete()
		}},
		{name: "scheduler", user: "system:kube-scheduler", health: schedHealth, complete: func(kubeconfig string) (runner, error) {
			return schedulerOptions(kubeconfig).Complete()
		}},
		{name: "kubelet-" + node, user: "system:node:" + node, group: []string{"system:nodes"}, complete: func(kubeconfig string) (runner, error) {
			k := o.kubeletOptions(dir, kubeconfig)
			k.NodeName = node
			return k.Complete()
		}},
	}
	components = append(components, o.networkComponents(node)...)
	return Config{completed: &completedConfig{
		apiserver: ac, dataDir: dir, bind: o.APIServer.BindAddress, components: components, out: out,
	}}, nil
}

// Run starts the API server (and with it etcd), then, once it serves, the
// other components, each with its own client certificate and kubeconfig
// under the data dir. Every component runs under one errgroup: the first
// to fail stops the others, and Run returns its error; otherwise Run
// returns when ctx ends and every component has stopped.
func (c Config) Run(ctx context.Context) error {
	cc := c.completed
	if cc == nil {
		return errors.New("all-in-one config was not completed")
	}
	start := time.Now()
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := cc.apiserver.Run(ctx); err != nil {
			return fmt.Errorf("apiserver: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		select {
		case <-cc.apiserver.Ready():
		case <-ctx.Done():
			return nil
		}
		serverURL := "https://" + cc.apiserver.Addr().String()
		kubeconfigs, err := cc.writeKubeconfigs(serverURL, cc.components)
		if err != nil {
			return err
		}
		for i, comp := range cc.components {
			// Completed side by side: a kubelet's runtime and serving
			// certificate need not wait for the controller-manager.
			g.Go(func() error {
				r, err := comp.complete(kubeconfigs[i])
				if err == nil {
					if comp.health != nil {
						comp.health.set(true, nil)
					}
					err = r.Run(ctx)
				}
				if comp.health != nil {
					comp.health.set(false, cmp.Or(err, errors.New("ended")))
				}
				if err != nil {
					return fmt.Errorf("%s: %w", comp.name, err)
				}
				return nil
			})
		}
		admin := filepath.Join(cc.dataDir, "admin.kubeconfig")
		klog.InfoS("kubecore all-in-one is ready", "url", serverURL, "kubeconfig", admin, "startup", time.Since(start))
		fmt.Fprintf(cc.out, "kubecore is ready in %s at %s\nexport KUBECONFIG=%s\n",
			time.Since(start).Round(time.Millisecond), serverURL, admin)
		return nil
	})
	return g.Wait()
}

// writeKubeconfigs issues (or reuses) each component's client certificate
// and writes DIR/<name>.kubeconfig for it, returning the paths in order.
func (cc *completedConfig) writeKubeconfigs(serverURL string, comps []component) ([]string, error) {
	hosts, err := pki.DefaultHosts(cc.bind)
	if err != nil {
		return nil, fmt.Errorf("serving certificate hosts: %w", err)
	}
	bundle, err := pki.EnsureServing(filepath.Join(cc.dataDir, "pki"), pki.Options{Hosts: hosts})
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	paths := make([]string, len(comps))
	for i, comp := range comps {
		kp, err := bundle.EnsureClientCert(comp.name, comp.user, comp.group)
		if err != nil {
			return nil, fmt.Errorf("%s client certificate: %w", comp.name, err)
		}
		paths[i] = filepath.Join(cc.dataDir, comp.name+".kubeconfig")
		if err := pki.WriteKubeconfig(paths[i], serverURL, bundle, kp); err != nil {
			return nil, fmt.Errorf("%s kubeconfig: %w", comp.name, err)
		}
	}
	return paths, nil
}

// NewCommand returns the all-in-one subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "all-in-one",
		Short: "Run etcd, apiserver, scheduler, controller-manager and a kubelet in one process",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			c, err := o.Complete()
			if err != nil {
				return err
			}
			return c.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	a := o.APIServer
	fs.StringVar(&a.DataDir, "data-dir", a.DataDir, "Directory holding etcd data, pki/, the kubeconfigs and the kubelet's pods")
	fs.StringSliceVar(&a.EtcdServers, "etcd-servers", a.EtcdServers, "External etcd client URLs; empty runs an embedded member in DATA_DIR/etcd")
	fs.StringVar(&a.BindAddress, "bind-address", a.BindAddress, "IP address the API server serves on")
	fs.IntVar(&a.SecurePort, "secure-port", a.SecurePort, "HTTPS port of the API server (0 picks a free one)")
	fs.StringVar(&a.ServiceClusterIPRange, "service-cluster-ip-range", a.ServiceClusterIPRange, "CIDR service cluster IPs are allocated from")
	a.AddProfilingFlag(fs)
	a.Limits.AddFlags(fs)
	a.Storage.AddFlags(fs)
	k := o.Kubelet
	fs.StringVar(&k.NodeName, "node-name", k.NodeName, "Name of the kubelet's Node (default: the host name)")
	fs.StringVar(&k.Runtime, "runtime", k.Runtime, "The kubelet's container runtime: process (host processes) or fake (no processes)")
	fs.StringVar(&k.NodeIP, "node-ip", k.NodeIP, "The node's InternalIP, also the pods' IP (default: the address of the default route)")
	kubelet.AddImageEntrypointsFlag(fs, k)
	kubelet.AddNetworkFlags(fs, k)
	fs.BoolVar(&o.KeepPods, "keep-pods", o.KeepPods, "Leave the pods running on exit, for the next start to re-adopt (default: stop them with their grace periods)")
	fs.BoolVar(&o.AllocateNodeCIDRs, "allocate-node-cidrs", o.AllocateNodeCIDRs, "Give every Node a pod CIDR (spec.podCIDR) cut from --cluster-cidr")
	kubelet.AddPodNetworkFlags(fs, k)
	fs.IntVar(&o.NodeCIDRMaskSize, "node-cidr-mask-size", o.NodeCIDRMaskSize, "Prefix length of each Node's pod CIDR")
	fs.Int32Var(&k.Port, "kubelet-port", k.Port, "HTTPS port of the kubelet's logs and exec server, on every interface as in Kubernetes; callers need a certificate of the cluster CA (0 picks a free one)")
	return cmd
}
