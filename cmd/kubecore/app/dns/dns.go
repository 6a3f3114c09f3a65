// Package dns implements `kubecore dns`: the cluster DNS server of a node,
// published as an endpoint of Service kube-system/kube-dns, as Options ->
// Validate -> Complete -> Run.
package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/cmd/kubecore/app/options"
	"kubecore.io/kubecore/pkg/dns"
)

// Options are the flags of `kubecore dns`.
type Options struct {
	Kubeconfig string
	// NodeName names this server's endpoint slice (kube-dns-<node>).
	NodeName string
	// NodeIP is the address served and published.
	NodeIP string
	// Port is the UDP and TCP port served.
	Port int32
	// ClusterDomain is the zone answered.
	ClusterDomain string
	// ClusterDNS is the kube-dns Service's cluster IP when it is created.
	ClusterDNS string
	// ResolvConf names the upstream servers for other names.
	ResolvConf string
	// Publish writes the Service and the endpoint slice.
	Publish     bool
	QPS         float32
	Burst       int
	ContentType string

	// RESTConfig, when set, is used instead of Kubeconfig.
	RESTConfig *rest.Config
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{Port: 53, ClusterDomain: dns.DefaultDomain, ClusterDNS: dns.DefaultServiceIP, ResolvConf: "/etc/resolv.conf",
		Publish: true, QPS: 20, Burst: 40, ContentType: options.DefaultContentType}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.Kubeconfig == "" && o.RESTConfig == nil {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if o.NodeIP == "" || net.ParseIP(o.NodeIP) == nil {
		errs = append(errs, fmt.Errorf("--node-ip %q must be an IP address", o.NodeIP))
	}
	if o.Port <= 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d is not in [1, 65535]", o.Port))
	}
	if msgs := validation.IsDNS1123Subdomain(o.ClusterDomain); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--cluster-domain %q: %v", o.ClusterDomain, msgs))
	}
	if o.ClusterDNS != "" && net.ParseIP(o.ClusterDNS) == nil {
		errs = append(errs, fmt.Errorf("--cluster-dns %q is not an IP address", o.ClusterDNS))
	}
	if o.QPS < 0 || o.Burst < 0 {
		errs = append(errs, errors.New("--kube-api-qps and --kube-api-burst must not be negative"))
	}
	if err := options.ValidateContentType(o.ContentType); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	Options
	upstreams []string
	client    *typed.Clientset
}

// Complete validates o, reads the upstreams and makes the client.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	c := &completedConfig{Options: *o}
	if c.NodeName == "" {
		h, err := os.Hostname()
		if err != nil {
			return Config{}, fmt.Errorf("node name: %w", err)
		}
		c.NodeName = h
	}
	if o.ResolvConf != "" {
		ups, err := dns.UpstreamsFromResolvConf(o.ResolvConf, o.ClusterDNS, o.NodeIP)
		if err != nil {
			return Config{}, fmt.Errorf("--resolv-conf: %w", err)
		}
		c.upstreams = ups
	}
	cs, err := options.Client{RESTConfig: o.RESTConfig, Kubeconfig: o.Kubeconfig, QPS: o.QPS, Burst: o.Burst, ContentType: o.ContentType}.NewClientset("dns")
	if err != nil {
		return Config{}, err
	}
	c.client = cs
	return Config{completed: c}, nil
}

// Run serves until ctx ends. Once the caches have synced it publishes
// this server's endpoint, and it withdraws it on the way out.
func (c Config) Run(ctx context.Context) error {
	o := c.completed
	if o == nil {
		return errors.New("dns config was not completed")
	}
	logger := klog.FromContext(ctx).WithValues("node", o.NodeName)
	ctx = klog.NewContext(ctx, logger)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	factory := informers.NewSharedInformerFactory(o.client,
		informers.WithReflectorOptions(cache.ReflectorOptions{OnError: func(err error) {
			logger.Error(err, "Failed to list or watch; retrying with back-off")
		}}))
	store, err := dns.NewInformerStore(factory)
	if err != nil {
		return err
	}
	srv, err := dns.Listen(dns.Config{Domain: o.ClusterDomain, Store: store,
		Addr: net.JoinHostPort(o.NodeIP, strconv.Itoa(int(o.Port))), Upstreams: o.upstreams})
	if err != nil {
		return err
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	defer cancel()
	if !cache.WaitForCacheSync(ctx, store.HasSynced) {
		srv.Close()
		return nil
	}
	pub := dns.Publisher{Client: o.client, ServiceIP: o.ClusterDNS, NodeName: o.NodeName, NodeIP: o.NodeIP, Port: o.Port}
	if o.Publish {
		if err := pub.Publish(ctx); err != nil {
			srv.Close()
			return err
		}
		defer func() {
			// ctx is done: withdraw with a short context of its own.
			uctx, ucancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer ucancel()
			if err := pub.Unpublish(uctx); err != nil {
				logger.Error(err, "Failed to withdraw the DNS endpoint")
			}
		}()
	}
	return srv.Serve(ctx)
}

// NewCommand returns the dns subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "dns",
		Short: "Serve cluster DNS on this node, as an endpoint of Service kube-system/kube-dns",
		Long: "Answer <svc>.<ns>.svc.<domain>, headless endpoints, SRV ports and <ip>.<ns>.pod.<domain> from the\n" +
			"API server, forward other names to the servers of --resolv-conf, and publish this server as an\n" +
			"endpoint of kube-system/kube-dns (created with --cluster-dns as its cluster IP when missing).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.Complete()
			if err != nil {
				return err
			}
			return c.Run(cmd.Context())
		},
	}
	AddFlags(cmd, o)
	fs := cmd.Flags()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file with the API server and credentials")
	fs.StringVar(&o.NodeName, "node-name", o.NodeName, "Name of this node, naming its endpoint slice kube-dns-<node> (default: the host name)")
	fs.StringVar(&o.NodeIP, "node-ip", o.NodeIP, "Address served and published as the endpoint")
	fs.Int32Var(&o.Port, "port", o.Port, "UDP and TCP port served")
	fs.StringVar(&o.ResolvConf, "resolv-conf", o.ResolvConf, "resolv.conf whose name servers answer names outside the cluster domain (empty: none)")
	fs.BoolVar(&o.Publish, "publish", o.Publish, "Create the kube-dns Service when missing and publish this server as its endpoint")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second to the API server (0: no limit)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of requests to the API server")
	options.AddContentTypeFlag(fs, &o.ContentType)
	return cmd
}

// AddFlags adds --cluster-domain and --cluster-dns, named as the
// kubelet's.
func AddFlags(cmd *cobra.Command, o *Options) {
	fs := cmd.Flags()
	fs.StringVar(&o.ClusterDomain, "cluster-domain", o.ClusterDomain, "The cluster's DNS domain")
	fs.StringVar(&o.ClusterDNS, "cluster-dns", o.ClusterDNS, "Cluster IP of the kube-dns Service, when this server creates it")
}
