package controllermanager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/leaderelection"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"
)

// The Lease the controller-manager replicas campaign for.
const (
	LeaseNamespace = metav1.NamespaceSystem
	LeaseName      = "kube-controller-manager"
)

// LeaderElection configures the election among controller-manager replicas.
type LeaderElection struct {
	// Enabled makes the manager run its controllers only while it holds the
	// Lease; without it they run at once.
	Enabled bool
	// LeaseDuration, RenewDeadline and RetryPeriod are those of
	// leaderelection.Config.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Identity names this replica; empty means hostname_random.
	Identity string
}

// DefaultLeaderElection is Kubernetes' default election timing.
func DefaultLeaderElection() LeaderElection {
	return LeaderElection{Enabled: true, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}
}

// Config is a controller-manager ready to run.
type Config struct {
	// RESTConfig reaches the API server.
	RESTConfig *rest.Config
	// Controllers selects controllers as --controllers does: "*" for all,
	// "name" to add one, "-name" to remove one. Empty means "*".
	Controllers []string
	// Table is the controllers known; nil means Controllers().
	Table map[string]InitFunc
	// LeaderElection configures the election.
	LeaderElection LeaderElection
	// ConcurrentSyncs, NodeMonitorGracePeriod and NodeEvictionRate are
	// handed to the controllers in their ControllerContext.
	ConcurrentSyncs        map[string]int
	NodeMonitorGracePeriod time.Duration
	NodeEvictionRate       float64
	// LocalPathDir is handed to the local-path provisioner.
	LocalPathDir string
	// ClusterSigning is handed to the csrsigning controller.
	ClusterSigning ClusterSigning
	// NodeIPAM is handed to the nodeipam controller.
	NodeIPAM NodeIPAM
	// HorizontalPodAutoscaler is handed to the HPA controller.
	HorizontalPodAutoscaler HorizontalPodAutoscaler
	// Started, when set, is called with the names of the controllers once
	// they are built and their informers started.
	Started func(names []string)
}

// EnabledControllers resolves a --controllers list against the names
// known: "*" enables every controller, "name" one, "-name" disables one
// (winning over "*"). Unknown names are an error.
func EnabledControllers(selection []string, known []string) ([]string, error) {
	if len(selection) == 0 {
		selection = []string{"*"}
	}
	all, on, off := false, map[string]bool{}, map[string]bool{}
	var errs []error
	for _, s := range selection {
		s = strings.TrimSpace(s)
		name, disable := strings.CutPrefix(s, "-")
		switch {
		case s == "*":
			all = true
		case !slices.Contains(known, name):
			errs = append(errs, fmt.Errorf("--controllers: unknown controller %q (known: %s)", name, strings.Join(known, ", ")))
		case disable:
			off[name] = true
		default:
			on[name] = true
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var out []string
	for _, name := range known {
		if (all || on[name]) && !off[name] {
			out = append(out, name)
		}
	}
	return out, nil
}

func (c *Config) table() map[string]InitFunc {
	if c.Table != nil {
		return c.Table
	}
	return Controllers()
}

// KnownControllers returns the sorted names of a table.
func KnownControllers(table map[string]InitFunc) []string {
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Run runs the selected controllers until ctx ends; with leader election,
// only while this replica holds the Lease. It returns nil when ctx ends, and
// an error when a controller fails or leadership is lost (the process
// should then exit, as kube-controller-manager does, so that its informers
// start afresh under the next leader).
func (c Config) Run(ctx context.Context) error {
	if c.RESTConfig == nil {
		return errors.New("controller-manager: no REST config")
	}
	table := c.table()
	names, err := EnabledControllers(c.Controllers, KnownControllers(table))
	if err != nil {
		return err
	}
	client, err := typed.NewForConfig(c.RESTConfig)
	if err != nil {
		return fmt.Errorf("controller-manager: %w", err)
	}
	if !c.LeaderElection.Enabled {
		return c.runControllers(ctx, client, table, names)
	}
	return c.runElected(ctx, client, table, names)
}

// runElected runs the controllers while this replica holds the Lease
// (leaderelection.RunLeading: the Lease is released once they stopped),
// renewed through a Lease client of its own.
func (c Config) runElected(ctx context.Context, client *typed.Clientset, table map[string]InitFunc, names []string) error {
	le := c.LeaderElection
	if le.Identity == "" {
		id, err := leaderelection.DefaultIdentity()
		if err != nil {
			return err
		}
		le.Identity = id
	}
	// The Lease has a client of its own: the controllers' requests, queued
	// on their client's rate limiter under load, never delay a renewal.
	leases, err := leaderelection.NewLeaseClient(c.RESTConfig, LeaseNamespace)
	if err != nil {
		return fmt.Errorf("controller-manager: %w", err)
	}
	return leaderelection.RunLeading(ctx, leaderelection.RunConfig{
		Client:        leases,
		Namespace:     LeaseNamespace,
		LeaseName:     LeaseName,
		Identity:      le.Identity,
		LeaseDuration: le.LeaseDuration,
		RenewDeadline: le.RenewDeadline,
		RetryPeriod:   le.RetryPeriod,
	}, func(ctx context.Context) error {
		klog.FromContext(ctx).Info("Leading: starting controllers")
		return c.runControllers(ctx, client, table, names)
	})
}

// runControllers builds the named controllers, starts the shared
// informers and runs every controller until ctx ends or one fails.
func (c Config) runControllers(ctx context.Context, client *typed.Clientset, table map[string]InitFunc, names []string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger := klog.FromContext(ctx)
	broadcaster := record.NewBroadcaster(ctx, record.ClientSink(func(ns string) record.EventClient { return client.CoreV1().Events(ns) }), record.Options{})
	defer func() {
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer scancel()
		if err := broadcaster.Shutdown(sctx); err != nil {
			logger.Error(err, "Dropped events at shutdown")
		}
	}()
	factory := informers.NewSharedInformerFactory(client)
	cc := ControllerContext{
		Client:                 client,
		RESTConfig:             c.RESTConfig,
		InformerFactory:        factory,
		EventBroadcaster:       broadcaster,
		ConcurrentSyncs:        c.ConcurrentSyncs,
		NodeMonitorGracePeriod: c.NodeMonitorGracePeriod,
		NodeEvictionRate:       c.NodeEvictionRate,
		LocalPathDir:           c.LocalPathDir,
		ClusterSigning:         c.ClusterSigning,
		NodeIPAM:               c.NodeIPAM,

		HorizontalPodAutoscaler: c.HorizontalPodAutoscaler,
	}
	runs := make([]RunFunc, len(names))
	for i, name := range names {
		run, err := table[name](ctx, cc)
		if err != nil {
			return fmt.Errorf("start controller %q: %w", name, err)
		}
		runs[i] = run
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	logger.Info("Started controllers", "controllers", names)
	if c.Started != nil {
		c.Started(slices.Clone(names))
	}

	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, run := range runs {
		wg.Go(func() {
			if err := run(ctx); err != nil {
				errs[i] = fmt.Errorf("controller %q: %w", names[i], err)
				cancel()
			}
		})
	}
	wg.Wait()
	cancel()
	return errors.Join(errs...)
}
