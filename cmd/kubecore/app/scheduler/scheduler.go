// Package scheduler implements `kubecore scheduler`: flags into Options,
// validated and completed into a Config whose Run(ctx) schedules pods.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/cmd/kubecore/app/options"
	"kubecore.io/kubecore/pkg/scheduler"
)

// Options are the flags of `kubecore scheduler`.
type Options struct {
	Kubeconfig    string
	SchedulerName string
	// LeaderElection runs scheduling only while holding the Lease
	// LeaseNamespace/LeaseName (off by default).
	options.LeaderElection
	// QPS and Burst limit the client; the scheduler writes a binding and
	// an event per pod.
	QPS                      float32
	Burst                    int
	ContentType              string // of the requests, --kube-api-content-type
	PercentageOfNodesToScore int32
	// MetricsBindAddress serves /metrics and /healthz over HTTP; empty
	// disables it.
	MetricsBindAddress string

	// RESTConfig, when set, is used instead of Kubeconfig (all-in-one).
	RESTConfig *rest.Config
	// InitialBackoff and MaxBackoff of pods (1s and 10s when zero).
	InitialBackoff, MaxBackoff time.Duration
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		SchedulerName:  corev1.DefaultSchedulerName,
		LeaderElection: options.NewLeaderElection(false, "kube-scheduler"),
		QPS:            5000,
		Burst:          10000,
		ContentType:    options.DefaultContentType,
	}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.Kubeconfig == "" && o.RESTConfig == nil {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if o.SchedulerName == "" {
		errs = append(errs, errors.New("--scheduler-name must not be empty"))
	}
	errs = append(errs, o.LeaderElection.Validate()...)
	if o.QPS < 0 || o.Burst < 0 {
		errs = append(errs, errors.New("--kube-api-qps and --kube-api-burst must not be negative"))
	}
	if err := options.ValidateContentType(o.ContentType); err != nil {
		errs = append(errs, err)
	}
	if o.PercentageOfNodesToScore < 0 || o.PercentageOfNodesToScore > 100 {
		errs = append(errs, fmt.Errorf("--percentage-of-nodes-to-score %d is not in [0, 100]", o.PercentageOfNodesToScore))
	}
	if o.MetricsBindAddress != "" {
		if _, _, err := net.SplitHostPort(o.MetricsBindAddress); err != nil {
			errs = append(errs, fmt.Errorf("--metrics-bind-address: %w", err))
		}
	}
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	Options
	rest   *rest.Config
	client *typed.Clientset
}

// Complete validates o, loads the kubeconfig and makes the client.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	c := &completedConfig{Options: *o}
	if o.RESTConfig != nil {
		c.rest = rest.CopyConfig(o.RESTConfig)
	} else {
		rc, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
		if err != nil {
			return Config{}, fmt.Errorf("load kubeconfig %s: %w", o.Kubeconfig, err)
		}
		c.rest = rc
	}
	c.rest.QPS, c.rest.Burst, c.rest.ContentType = o.QPS, o.Burst, o.ContentType
	if err := c.LeaderElection.Complete(); err != nil {
		return Config{}, err
	}
	cs, err := typed.NewForConfig(c.rest)
	if err != nil {
		return Config{}, fmt.Errorf("scheduler client: %w", err)
	}
	c.client = cs
	return Config{completed: c}, nil
}

// Run watches the cluster and, while leading (or always without leader
// election), schedules pods until ctx ends. Losing the lease is an error.
func (c Config) Run(ctx context.Context) error {
	o := c.completed
	if o == nil {
		return errors.New("scheduler config was not completed")
	}
	logger := klog.FromContext(ctx).WithValues("scheduler", o.SchedulerName)
	ctx, cancel := context.WithCancel(klog.NewContext(ctx, logger))
	defer cancel()

	factory := informers.NewSharedInformerFactory(o.client,
		informers.WithReflectorOptions(cache.ReflectorOptions{OnError: func(err error) {
			logger.Error(err, "Failed to list or watch; retrying with back-off")
		}}))
	reg := prometheus.NewRegistry()
	sched, err := scheduler.New(ctx, scheduler.Config{
		Client:                   o.client,
		Informers:                factory,
		SchedulerName:            o.SchedulerName,
		PercentageOfNodesToScore: o.PercentageOfNodesToScore,
		InitialBackoff:           o.InitialBackoff,
		MaxBackoff:               o.MaxBackoff,
		Metrics:                  reg,
	})
	if err != nil {
		return err
	}
	// The metrics server and the scheduling run under one errgroup: the
	// first to fail stops the other.
	g, gctx := errgroup.WithContext(ctx)
	if o.MetricsBindAddress != "" {
		ln, err := net.Listen("tcp", o.MetricsBindAddress)
		if err != nil {
			return fmt.Errorf("metrics listener: %w", err)
		}
		g.Go(func() error { return serveMetrics(gctx, ln, reg) })
	}
	factory.Start(gctx)
	defer factory.Shutdown()
	g.Go(func() error {
		defer cancel() // the metrics server stops with the scheduling
		return o.LeaderElection.Run(gctx, o.rest, sched.Run)
	})
	return g.Wait()
}

// serveMetrics serves /metrics and /healthz on ln until ctx ends.
func serveMetrics(ctx context.Context, ln net.Listener, reg *prometheus.Registry) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics server: %w", err)
	}
	return nil
}

// NewCommand returns the scheduler subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "scheduler",
		Short: "Run the scheduler",
		Args:  cobra.NoArgs,
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
	fs.StringVar(&o.SchedulerName, "scheduler-name", o.SchedulerName, "Schedule the pods whose spec.schedulerName is this")
	o.LeaderElection.AddFlags(fs, "Schedule only while holding the leader lease, so that several schedulers can run", true)
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second to the API server (0: no limit)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of requests to the API server")
	options.AddContentTypeFlag(fs, &o.ContentType)
	fs.Int32Var(&o.PercentageOfNodesToScore, "percentage-of-nodes-to-score", o.PercentageOfNodesToScore, "Share of nodes to find feasible before scoring in big clusters (0: adaptive)")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "host:port serving /metrics and /healthz over HTTP (empty: off)")
	return cmd
}
