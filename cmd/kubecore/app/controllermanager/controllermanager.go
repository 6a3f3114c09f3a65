// Package controllermanager implements `kubecore controller-manager`: flags
// into Options, validated and completed into a Config whose Run(ctx) runs the controllers.
package controllermanager

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/cmd/kubecore/app/options"
	"kubecore.io/kubecore/pkg/controller/certificates"
	"kubecore.io/kubecore/pkg/controller/localpath"
	"kubecore.io/kubecore/pkg/controller/nodeipam"
	"kubecore.io/kubecore/pkg/controller/podautoscaler"
	"kubecore.io/kubecore/pkg/controllermanager"
)

// Options are the flags of `kubecore controller-manager`.
type Options struct {
	Kubeconfig string
	// Controllers is --controllers: "*", "name" or "-name" entries.
	Controllers []string
	// LeaderElection runs the controllers only while holding the Lease
	// kube-system/kube-controller-manager (on by default).
	options.LeaderElection
	// KubeAPIQPS and KubeAPIBurst limit the requests to the API server.
	KubeAPIQPS   float32
	KubeAPIBurst int
	// KubeAPIContentType is the encoding of those requests.
	KubeAPIContentType string
	// ConcurrentSyncs is the workers of each controller by name.
	ConcurrentSyncs map[string]int
	// NodeMonitorGracePeriod and NodeEvictionRate tune node lifecycle.
	NodeMonitorGracePeriod time.Duration
	NodeEvictionRate       float64
	// LocalPathDir is where the local-path provisioner puts volumes on the
	// nodes.
	LocalPathDir string
	// ClusterSigningCertFile and ClusterSigningKeyFile are the CA the
	// csrsigning controller issues kubelet client certificates with;
	// without them it does not run. ClusterSigningDuration is the longest
	// validity it gives.
	ClusterSigningCertFile string
	ClusterSigningKeyFile  string
	ClusterSigningDuration time.Duration
	// AllocateNodeCIDRs runs the nodeipam controller, which gives each
	// Node a NodeCIDRMaskSize range of ClusterCIDR as its spec.podCIDR.
	// It is on by default (Kubernetes' is off, kubeadm and k3s turn it
	// on): kubelets running as root wait for a pod CIDR to network pods.
	AllocateNodeCIDRs bool
	ClusterCIDR       string
	NodeCIDRMaskSize  int
	// HPASyncPeriod, HPATolerance and HPADownscaleStabilization tune the
	// horizontal pod autoscaler (--horizontal-pod-autoscaler-*).
	HPASyncPeriod             time.Duration
	HPATolerance              float64
	HPADownscaleStabilization time.Duration

	// Table is the controllers known; nil means controllermanager.Controllers().
	Table map[string]controllermanager.InitFunc
	// RESTConfig, when set, is used instead of Kubeconfig (all-in-one, tests).
	RESTConfig *rest.Config
}

// NewOptions returns the defaults: every controller, leader election with
// Kubernetes' timing, and client limits high enough that a Deployment of
// thousands of replicas is not throttled by the client.
func NewOptions() *Options {
	return &Options{
		Controllers:        []string{"*"},
		LeaderElection:     options.NewLeaderElection(true, controllermanager.LeaseName),
		KubeAPIQPS:         1000,
		KubeAPIBurst:       2000,
		KubeAPIContentType: options.DefaultContentType,
		ConcurrentSyncs: map[string]int{
			"replicaset": 5, "replicationcontroller": 5, "deployment": 5, "statefulset": 5,
			"garbagecollector": 20, "namespace": 10,
		},
		NodeMonitorGracePeriod: 40 * time.Second,
		NodeEvictionRate:       0.1,
		LocalPathDir:           localpath.DefaultDir,
		ClusterSigningDuration: certificates.DefaultSigningDuration,
		AllocateNodeCIDRs:      true,
		ClusterCIDR:            nodeipam.DefaultClusterCIDR,
		NodeCIDRMaskSize:       nodeipam.DefaultNodeCIDRMaskSize,

		HPASyncPeriod:             podautoscaler.DefaultSyncPeriod,
		HPATolerance:              podautoscaler.DefaultTolerance,
		HPADownscaleStabilization: podautoscaler.DefaultScaleDownStabilization,
	}
}

func (o *Options) table() map[string]controllermanager.InitFunc {
	if o.Table != nil {
		return o.Table
	}
	return controllermanager.Controllers()
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.Kubeconfig == "" && o.RESTConfig == nil {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if _, err := controllermanager.EnabledControllers(o.Controllers, controllermanager.KnownControllers(o.table())); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, o.LeaderElection.Validate()...)
	if o.KubeAPIQPS < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps %v must not be negative", o.KubeAPIQPS))
	}
	if o.KubeAPIBurst < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-burst %d must not be negative", o.KubeAPIBurst))
	}
	if err := options.ValidateContentType(o.KubeAPIContentType); err != nil {
		errs = append(errs, err)
	}
	for name, n := range o.ConcurrentSyncs {
		if n < 1 {
			errs = append(errs, fmt.Errorf("--concurrent-%s-syncs %d must be at least 1", name, n))
		}
	}
	if o.NodeMonitorGracePeriod <= 0 {
		errs = append(errs, fmt.Errorf("--node-monitor-grace-period %s must be positive", o.NodeMonitorGracePeriod))
	}
	if (o.ClusterSigningCertFile == "") != (o.ClusterSigningKeyFile == "") {
		errs = append(errs, errors.New("--cluster-signing-cert-file and --cluster-signing-key-file go together"))
	}
	if o.ClusterSigningDuration <= 0 {
		errs = append(errs, fmt.Errorf("--cluster-signing-duration %s must be positive", o.ClusterSigningDuration))
	}
	if o.AllocateNodeCIDRs {
		if _, err := o.nodeIPAM(); err != nil {
			errs = append(errs, err)
		}
	}
	if o.HPASyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--horizontal-pod-autoscaler-sync-period %s must be positive", o.HPASyncPeriod))
	}
	if o.HPATolerance <= 0 {
		errs = append(errs, fmt.Errorf("--horizontal-pod-autoscaler-tolerance %v must be positive", o.HPATolerance))
	}
	if o.HPADownscaleStabilization < 0 {
		errs = append(errs, fmt.Errorf("--horizontal-pod-autoscaler-downscale-stabilization %s must not be negative", o.HPADownscaleStabilization))
	}
	if o.NodeEvictionRate <= 0 {
		errs = append(errs, fmt.Errorf("--node-eviction-rate %v must be positive", o.NodeEvictionRate))
	}
	return errs
}

// nodeIPAM parses --cluster-cidr and checks --node-cidr-mask-size.
func (o *Options) nodeIPAM() (controllermanager.NodeIPAM, error) {
	p, err := netip.ParsePrefix(o.ClusterCIDR)
	if err != nil {
		return controllermanager.NodeIPAM{}, fmt.Errorf("--cluster-cidr %q: %w", o.ClusterCIDR, err)
	}
	ipam := controllermanager.NodeIPAM{ClusterCIDR: p, NodeCIDRMaskSize: o.NodeCIDRMaskSize}
	if err := (nodeipam.Options{ClusterCIDR: p, NodeCIDRMaskSize: o.NodeCIDRMaskSize}).Validate(); err != nil {
		return controllermanager.NodeIPAM{}, fmt.Errorf("--cluster-cidr %s, --node-cidr-mask-size %d: %w", o.ClusterCIDR, o.NodeCIDRMaskSize, err)
	}
	return ipam, nil
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *controllermanager.Config
}

// Complete validates o, loads the kubeconfig (unless RESTConfig is set)
// and the cluster signing CA, and returns the config Run needs.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	rc := o.RESTConfig
	if rc == nil {
		var err error
		if rc, err = clientcmd.BuildConfigFromFlags("", o.Kubeconfig); err != nil {
			return Config{}, fmt.Errorf("load kubeconfig %s: %w", o.Kubeconfig, err)
		}
	}
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst, rc.ContentType = o.KubeAPIQPS, o.KubeAPIBurst, o.KubeAPIContentType
	if rc.UserAgent == "" {
		rc.UserAgent = rest.DefaultUserAgent() + "/controller-manager"
	}
	controllers := append([]string(nil), o.Controllers...)
	if o.ClusterSigningCertFile == "" {
		// Nothing to sign with: the signer is off, as in Kubernetes.
		klog.InfoS("The csrsigning controller is off: no --cluster-signing-cert-file")
		controllers = append(controllers, "-"+certificates.SignerName)
	} else if _, _, err := cert.LoadCertAndKey(o.ClusterSigningCertFile, o.ClusterSigningKeyFile); err != nil {
		// The signer loads them again when it starts (it may run much
		// later, once this replica leads); a bad pair fails here first.
		return Config{}, fmt.Errorf("--cluster-signing-cert-file: %w", err)
	}
	var ipam controllermanager.NodeIPAM
	if !o.AllocateNodeCIDRs {
		controllers = append(controllers, "-"+nodeipam.Name)
	} else {
		var err error
		if ipam, err = o.nodeIPAM(); err != nil {
			return Config{}, err
		}
	}
	le := o.LeaderElection
	if err := le.Complete(); err != nil {
		return Config{}, err
	}
	syncs := make(map[string]int, len(o.ConcurrentSyncs))
	for k, v := range o.ConcurrentSyncs {
		syncs[k] = v
	}
	return Config{completed: &controllermanager.Config{
		RESTConfig:  rc,
		Controllers: controllers,
		Table:       o.Table,
		LeaderElection: controllermanager.LeaderElection{
			Enabled:       le.LeaderElect,
			LeaseDuration: le.LeaseDuration,
			RenewDeadline: le.RenewDeadline,
			RetryPeriod:   le.RetryPeriod,
			Identity:      le.Identity,
		},
		ConcurrentSyncs:        syncs,
		NodeMonitorGracePeriod: o.NodeMonitorGracePeriod,
		NodeEvictionRate:       o.NodeEvictionRate,
		LocalPathDir:           o.LocalPathDir,
		ClusterSigning: controllermanager.ClusterSigning{
			CertFile: o.ClusterSigningCertFile, KeyFile: o.ClusterSigningKeyFile, Duration: o.ClusterSigningDuration,
		},
		NodeIPAM: ipam,
		HorizontalPodAutoscaler: controllermanager.HorizontalPodAutoscaler{
			SyncPeriod: o.HPASyncPeriod, Tolerance: o.HPATolerance, DownscaleStabilization: o.HPADownscaleStabilization,
		},
	}}, nil
}

// Run runs the controllers until ctx ends; with leader election, only
// while this replica holds the Lease.
func (c Config) Run(ctx context.Context) error {
	if c.completed == nil {
		return errors.New("controller-manager config was not completed")
	}
	return c.completed.Run(ctx)
}

// NewCommand returns the controller-manager subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "controller-manager",
		Short: "Run the controllers",
		Long: "Run the controllers (" + strings.Join(controllermanager.KnownControllers(o.table()), ", ") + ")\n" +
			"against the API server named by --kubeconfig, under leader election.",
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
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to the kubeconfig of the API server")
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, "Controllers to run: '*' for all, 'foo' to enable foo, '-foo' to disable foo")
	o.LeaderElection.AddFlags(fs, "Run the controllers only while holding the kube-system/kube-controller-manager Lease", false)
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "Requests per second to the API server (0: no limit)")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst of requests to the API server")
	options.AddContentTypeFlag(fs, &o.KubeAPIContentType)
	for _, name := range controllermanager.KnownControllers(o.table()) {
		if _, ok := o.ConcurrentSyncs[name]; !ok {
			continue
		}
		fs.Var(&syncsValue{m: o.ConcurrentSyncs, name: name}, "concurrent-"+name+"-syncs", "Workers of the "+name+" controller")
	}
	fs.DurationVar(&o.NodeMonitorGracePeriod, "node-monitor-grace-period", o.NodeMonitorGracePeriod, "How long a node may go without renewing its Lease before it is marked unreachable")
	fs.Float64Var(&o.NodeEvictionRate, "node-eviction-rate", o.NodeEvictionRate, "Nodes per second whose pods may be evicted")
	fs.StringVar(&o.LocalPathDir, "local-path-dir", o.LocalPathDir, "Directory on each node under which local-path volumes are provisioned")
	fs.StringVar(&o.ClusterSigningCertFile, "cluster-signing-cert-file", o.ClusterSigningCertFile, "PEM CA certificate the csrsigning controller issues kubelet client certificates with (without it, csrsigning is off)")
	fs.StringVar(&o.ClusterSigningKeyFile, "cluster-signing-key-file", o.ClusterSigningKeyFile, "PEM key of --cluster-signing-cert-file")
	fs.DurationVar(&o.ClusterSigningDuration, "cluster-signing-duration", o.ClusterSigningDuration, "Longest validity of the certificates csrsigning issues")
	fs.BoolVar(&o.AllocateNodeCIDRs, "allocate-node-cidrs", o.AllocateNodeCIDRs, "Give every Node a pod CIDR (spec.podCIDR) cut from --cluster-cidr")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "The pods' address range, from which --allocate-node-cidrs gives each Node a range")
	fs.IntVar(&o.NodeCIDRMaskSize, "node-cidr-mask-size", o.NodeCIDRMaskSize, "Prefix length of each Node's pod CIDR")
	fs.DurationVar(&o.HPASyncPeriod, "horizontal-pod-autoscaler-sync-period", o.HPASyncPeriod, "How often each HorizontalPodAutoscaler's metrics are read and its target scaled")
	fs.Float64Var(&o.HPATolerance, "horizontal-pod-autoscaler-tolerance", o.HPATolerance, "Ratio of usage to target within which the autoscaler does not scale")
	fs.DurationVar(&o.HPADownscaleStabilization, "horizontal-pod-autoscaler-downscale-stabilization", o.HPADownscaleStabilization, "Scale-down stabilization window of HorizontalPodAutoscalers that set none")
	return cmd
}

// syncsValue is the flag of one controller's workers in the map.
type syncsValue struct {
	m    map[string]int
	name string
}

func (v *syncsValue) String() string { return fmt.Sprint(v.m[v.name]) }
func (v *syncsValue) Type() string   { return "int" }
func (v *syncsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("parse %q: %w", s, err)
	}
	v.m[v.name] = n
	return nil
}
