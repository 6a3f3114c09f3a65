// Package controllermanager runs kubecore's controllers over one set of shared
// informers, under Lease leader election (kube-system/kube-controller-manager).
package controllermanager

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/discovery"
	"kubecore.io/client/informers"
	"kubecore.io/client/metadata"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
)

// RunFunc runs a built controller until ctx ends; an error stops the
// manager.
type RunFunc func(ctx context.Context) error

// InitFunc builds one controller: it asks cc.InformerFactory for the
// informers it needs and adds its event handlers, and returns the loop to
// run. The manager starts the informers after every InitFunc has returned.
type InitFunc func(ctx context.Context, cc ControllerContext) (RunFunc, error)

// DefaultConcurrentSyncs is the number of workers of a controller without
// its own setting.
const DefaultConcurrentSyncs = 5

// ControllerContext is what every controller is built from.
type ControllerContext struct {
	// Client talks to the API server; every controller shares its
	// connections and client-side rate limit.
	Client *typed.Clientset
	// RESTConfig is the configuration Client was made from, for controllers
	// that need other clients.
	RESTConfig *rest.Config
	// InformerFactory shares one informer per resource among controllers.
	InformerFactory *informers.SharedInformerFactory
	// EventBroadcaster writes the Events of every controller.
	EventBroadcaster *record.Broadcaster
	// ConcurrentSyncs is the number of workers by controller name; see
	// Workers.
	ConcurrentSyncs map[string]int
	// NodeMonitorGracePeriod is how long a node may go without renewing its
	// Lease before it is considered unreachable.
	NodeMonitorGracePeriod time.Duration
	// NodeEvictionRate is how many nodes a second may have their pods
	// evicted.
	NodeEvictionRate float64
	// LocalPathDir is the directory on each node under which the
	// local-path provisioner makes volumes.
	LocalPathDir string
	// ClusterSigning is the CA the csrsigning controller issues kubelet
	// client certificates with.
	ClusterSigning ClusterSigning
	// NodeIPAM is the range the nodeipam controller cuts the nodes' pod
	// CIDRs from.
	NodeIPAM NodeIPAM
	// HorizontalPodAutoscaler tunes the HPA controller.
	HorizontalPodAutoscaler HorizontalPodAutoscaler
}

// NodeIPAM is --cluster-cidr and --node-cidr-mask-size.
type NodeIPAM struct {
	ClusterCIDR      netip.Prefix
	NodeCIDRMaskSize int
}

// HorizontalPodAutoscaler are the HPA controller's settings
// (--horizontal-pod-autoscaler-*); zero values take the controller's
// defaults.
type HorizontalPodAutoscaler struct {
	SyncPeriod             time.Duration
	Tolerance              float64
	DownscaleStabilization time.Duration
}

// ClusterSigning names the CA files of the csrsigning controller and the
// longest validity it gives (certificates.DefaultSigningDuration when 0).
type ClusterSigning struct {
	CertFile, KeyFile string
	Duration          time.Duration
}

// Workers returns the number of workers of the named controller.
func (cc ControllerContext) Workers(name string) int {
	if n, ok := cc.ConcurrentSyncs[name]; ok && n > 0 {
		return n
	}
	return DefaultConcurrentSyncs
}

// Recorder returns an EventRecorder whose Events name component (for
// example "replicaset-controller") as their source.
func (cc ControllerContext) Recorder(component string) record.EventRecorder {
	scheme, err := typed.NewScheme()
	if err != nil {
		// The scheme of built-in types cannot fail to build; without it
		// Events of objects lacking TypeMeta are dropped, nothing worse.
		return cc.EventBroadcaster.NewRecorder(nil, corev1.EventSource{Component: component})
	}
	return cc.EventBroadcaster.NewRecorder(scheme, corev1.EventSource{Component: component})
}

// Clients is the client of every controller: the typed client set, and
// the metadata and discovery clients of the controllers that work on every
// resource. It satisfies each controller's narrow Client interface.
type Clients struct {
	*typed.Clientset
	MetadataClient  *metadata.Client
	DiscoveryClient *discovery.Client
}

// Metadata returns the client of objects' metadata, of every resource.
func (c Clients) Metadata() *metadata.Client { return c.MetadataClient }

// Discovery returns the discovery client.
func (c Clients) Discovery() *discovery.Client { return c.DiscoveryClient }

// Clients returns the clients a controller is built with.
func (cc ControllerContext) Clients() (Clients, error) {
	md, err := metadata.NewForConfig(cc.RESTConfig)
	if err != nil {
		return Clients{}, fmt.Errorf("metadata client: %w", err)
	}
	disco, err := discovery.NewForConfig(cc.RESTConfig)
	if err != nil {
		return Clients{}, fmt.Errorf("discovery client: %w", err)
	}
	return Clients{Clientset: cc.Client, MetadataClient: md, DiscoveryClient: disco}, nil
}

// runner is a built controller: Run takes the number of workers.
type runner interface {
	Run(ctx context.Context, workers int) error
}

// start returns the InitFunc of the controller build makes from the
// clients and the context (its informer factory and settings), run with
// the workers configured for name. Every controller is built the same
// way: New(client, factory[, options]).
func start[C runner](name string, build func(Clients, ControllerContext) (C, error)) InitFunc {
	return func(_ context.Context, cc ControllerContext) (RunFunc, error) {
		clients, err := cc.Clients()
		if err != nil {
			return nil, err
		}
		c, err := build(clients, cc)
		if err != nil {
			return nil, err
		}
		workers := cc.Workers(name)
		return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
	}
}
