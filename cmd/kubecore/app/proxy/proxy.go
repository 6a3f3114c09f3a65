// Package proxy implements `kubecore proxy`: the service proxy of a node
// that runs it alone (kubelets run one inside when asked), as Options ->
// Validate -> Complete -> Run.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/cmd/kubecore/app/options"
	"kubecore.io/kubecore/pkg/proxy"
)

// Options are the flags of `kubecore proxy`.
type Options struct {
	Kubeconfig string
	// HostnameOverride is the node name; endpoints on it are local.
	HostnameOverride string
	// MinSyncPeriod batches changes into one transaction.
	MinSyncPeriod time.Duration
	// Cleanup deletes the proxy's tables and exits.
	Cleanup     bool
	QPS         float32
	Burst       int
	ContentType string

	// RESTConfig, when set, is used instead of Kubeconfig (a kubelet
	// running the proxy inside).
	RESTConfig *rest.Config
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{MinSyncPeriod: proxy.DefaultMinSyncPeriod, QPS: 50, Burst: 100, ContentType: options.DefaultContentType}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.Kubeconfig == "" && o.RESTConfig == nil && !o.Cleanup {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if o.MinSyncPeriod < 0 || o.MinSyncPeriod > time.Second {
		errs = append(errs, fmt.Errorf("--min-sync-period %s is not in [0, 1s]", o.MinSyncPeriod))
	}
	if o.QPS < 0 || o.Burst < 0 {
		errs = append(errs, errors.New("--kube-api-qps and --kube-api-burst must not be negative"))
	}
	if err := options.ValidateContentType(o.ContentType); err != nil {
		errs = append(errs, err)
	}
	if os.Geteuid() != 0 {
		errs = append(errs, errors.New("the proxy programs nftables and needs root"))
	}
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	nodeName      string
	minSyncPeriod time.Duration
	cleanup       bool
	client        *typed.Clientset
}

// Complete validates o and makes the client.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	c := &completedConfig{nodeName: o.HostnameOverride, minSyncPeriod: o.MinSyncPeriod, cleanup: o.Cleanup}
	if c.nodeName == "" {
		h, err := os.Hostname()
		if err != nil {
			return Config{}, fmt.Errorf("node name: %w", err)
		}
		c.nodeName = h
	}
	if o.Cleanup {
		return Config{completed: c}, nil
	}
	cs, err := options.Client{RESTConfig: o.RESTConfig, Kubeconfig: o.Kubeconfig, QPS: o.QPS, Burst: o.Burst, ContentType: o.ContentType}.NewClientset("proxy")
	if err != nil {
		return Config{}, err
	}
	c.client = cs
	return Config{completed: c}, nil
}

// Run programs the node's service rules until ctx ends, then deletes
// them; with --cleanup it only deletes them.
func (c Config) Run(ctx context.Context) error {
	o := c.completed
	if o == nil {
		return errors.New("proxy config was not completed")
	}
	if o.cleanup {
		return proxy.Cleanup(0)
	}
	logger := klog.FromContext(ctx).WithValues("node", o.nodeName)
	ctx = klog.NewContext(ctx, logger)
	factory := informers.NewSharedInformerFactory(o.client,
		informers.WithReflectorOptions(cache.ReflectorOptions{OnError: func(err error) {
			logger.Error(err, "Failed to list or watch; retrying with back-off")
		}}))
	p, err := proxy.New(proxy.Config{NodeName: o.nodeName, MinSyncPeriod: o.minSyncPeriod}, factory)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	factory.Start(ctx)
	defer factory.Shutdown()
	defer cancel()
	return p.Run(ctx)
}

// NewCommand returns the proxy subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run the service proxy of a node (nftables)",
		Long: "Program the nftables table kubecore-proxy (ip and ip6) from Services and EndpointSlices:\n" +
			"cluster IPs, external IPs and node ports DNATed to ready endpoints; deleted on exit.",
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
	fs.StringVar(&o.HostnameOverride, "hostname-override", o.HostnameOverride, "Name of this node, whose endpoints are local for externalTrafficPolicy Local (default: the host name)")
	fs.DurationVar(&o.MinSyncPeriod, "min-sync-period", o.MinSyncPeriod, "Delay that batches changes into one transaction (at most 1s)")
	fs.BoolVar(&o.Cleanup, "cleanup", o.Cleanup, "Delete the kubecore-proxy tables and exit")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second to the API server (0: no limit)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of requests to the API server")
	options.AddContentTypeFlag(fs, &o.ContentType)
	return cmd
}
