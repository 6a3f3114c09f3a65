// Package scheduler is the kubecore scheduler: it watches pending pods and
// nodes through kubecore.io/client, and binds each pod to the best node.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	internalcache "kubecore.io/kubecore/pkg/scheduler/internal/cache"
	"kubecore.io/kubecore/pkg/scheduler/internal/queue"
	"kubecore.io/kubecore/pkg/scheduler/plugins"
)

// Config is what a Scheduler is made of.
type Config struct {
	// Client writes bindings, statuses and events.
	Client *typed.Clientset
	// Informers provides the pod, node and namespace informers; the caller
	// starts it.
	Informers *informers.SharedInformerFactory
	// SchedulerName selects the pods this scheduler schedules.
	SchedulerName string
	// Plugins of the profile; plugins.Default when nil.
	Plugins []framework.PluginSpec
	// PercentageOfNodesToScore bounds the feasible nodes looked for in big
	// clusters; 0 means adaptive (50% minus 1% per 125 nodes, at least 5%,
	// and at least 100 nodes).
	PercentageOfNodesToScore int32
	// InitialBackoff and MaxBackoff bound the per-pod back-off (1s, 10s).
	InitialBackoff, MaxBackoff time.Duration
	// Parallelism of filtering and scoring; 0 means GOMAXPROCS.
	Parallelism int
	// Recorder reports events; nil makes one writing through Client.
	Recorder record.EventRecorder
	// Metrics registers the scheduler's metrics; nil means a private
	// registry.
	Metrics prometheus.Registerer
	// Clock drives the back-off; nil is the wall clock.
	Clock workqueue.Clock
}

// Scheduler schedules the pods that name it.
type Scheduler struct {
	name      string
	client    framework.Client
	fwk       *framework.Framework
	queue     *queue.PriorityQueue
	cache     *internalcache.Cache
	snapshot  *internalcache.Snapshot
	percent   int32
	recorder  record.EventRecorder
	ownEvents *record.Broadcaster
	metrics   *metrics
	bindSlots chan struct{}

	podInformer       *cache.Informer[*corev1.Pod]
	nodeInformer      *cache.Informer[*corev1.Node]
	namespaceInformer *cache.Informer[*corev1.Namespace]
	synced            []cache.InformerSynced
	pdbSynced         cache.InformerSynced
	volumesSynced     []cache.InformerSynced

	nextStartNodeIndex int
}

// maxBindsInFlight bounds the concurrent binding calls: well under the API
// server's default limit of 200 mutating requests in flight, beyond which
// it answers 429 and the client waits the 1 s of its Retry-After, and
// leaving room for the controllers and kubelets. A bind takes a few
// milliseconds, so 64 in flight keep up with thousands of pods a second.
const maxBindsInFlight = 64

// New makes a scheduler and registers its event handlers; Run schedules.
func New(ctx context.Context, cfg Config) (*Scheduler, error) {
	if cfg.Client == nil || cfg.Informers == nil {
		return nil, errors.New("scheduler: a client and an informer factory are required")
	}
	if cfg.SchedulerName == "" {
		cfg.SchedulerName = corev1.DefaultSchedulerName
	}
	if cfg.PercentageOfNodesToScore < 0 || cfg.PercentageOfNodesToScore > 100 {
		return nil, fmt.Errorf("percentageOfNodesToScore: Invalid value: %d: not in valid range [0-100]", cfg.PercentageOfNodesToScore)
	}
	s := &Scheduler{
		name:      cfg.SchedulerName,
		client:    clientAdapter{cs: cfg.Client},
		cache:     internalcache.New(),
		snapshot:  internalcache.NewEmptySnapshot(),
		percent:   cfg.PercentageOfNodesToScore,
		recorder:  cfg.Recorder,
		bindSlots: make(chan struct{}, maxBindsInFlight),
	}
	var err error
	s.queue = queue.New(queue.Options{
		InitialBackoff: cfg.InitialBackoff,
		MaxBackoff:     cfg.MaxBackoff,
		Clock:          cfg.Clock,
		EventMatters: func(ev framework.ClusterEvent, plugins map[string]struct{}) bool {
			return s.fwk.EventMatters(ev, plugins)
		},
	})
	if s.podInformer, err = informers.Pods(cfg.Informers); err != nil {
		return nil, err
	}
	if s.nodeInformer, err = informers.Nodes(cfg.Informers); err != nil {
		return nil, err
	}
	if s.namespaceInformer, err = informers.Namespaces(cfg.Informers); err != nil {
		return nil, err
	}
	// Preemption respects disruption budgets when the informers can watch
	// them; a source without them leaves preemption ignoring budgets.
	var budgets func() []*policyv1.PodDisruptionBudget
	if pdbs, err := informers.For[*policyv1.PodDisruptionBudget](cfg.Informers, policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets")); err != nil {
		klog.FromContext(ctx).Info("Preemption will ignore PodDisruptionBudgets: they cannot be watched", "err", err)
	} else {
		s.pdbSynced = pdbs.HasSynced
		budgets = pdbs.GetIndexer().List
	}
	volumes, err := s.volumeInformers(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Plugins == nil {
		cfg.Plugins = plugins.Default(plugins.Options{PodDisruptionBudgets: budgets, Volumes: volumes})
	}
	if s.recorder == nil {
		s.ownEvents = record.NewBroadcaster(ctx, record.ClientSink(func(ns string) record.EventClient {
			return cfg.Client.CoreV1().Events(ns)
		}), record.Options{})
		scheme := runtime.NewScheme()
		if err := corev1.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("event scheme: %w", err)
		}
		s.recorder = s.ownEvents.NewRecorder(scheme, corev1.EventSource{Component: cfg.SchedulerName})
	}
	fwk, err := framework.NewFramework(framework.Config{
		ProfileName:     cfg.SchedulerName,
		Plugins:         cfg.Plugins,
		Snapshot:        s.snapshot,
		Client:          s.client,
		NamespaceLabels: s.namespaceLabels,
		Nominator:       s.queue,
		Parallelism:     cfg.Parallelism,
		Recorder:        s.recorder,
	})
	if err != nil {
		return nil, err
	}
	s.fwk = fwk
	reg := cfg.Metrics
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	if s.metrics, err = newMetrics(reg, cfg.SchedulerName, s.queue.Lengths); err != nil {
		return nil, fmt.Errorf("register scheduler metrics: %w", err)
	}
	if err := s.addEventHandlers(); err != nil {
		return nil, err
	}
	return s, nil
}

// Queue returns the scheduling queue (for tests and metrics).
func (s *Scheduler) Queue() *queue.PriorityQueue { return s.queue }

// namespaceLabels returns the labels of a namespace from the informer.
func (s *Scheduler) namespaceLabels(ns string) labels.Set {
	n, err := s.namespaceInformer.Lister().Get(ns)
	if err != nil {
		return nil
	}
	return n.Labels
}

// Run waits for the caches, then schedules pods one at a time until ctx
// ends; bindings run concurrently. It returns nil once ctx has ended and
// every binding started has finished.
func (s *Scheduler) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	defer func() {
		if s.ownEvents != nil {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.ownEvents.Shutdown(shutdownCtx)
		}
	}()
	synced := s.synced
	if s.pdbSynced != nil {
		synced = append(slices.Clip(synced), s.pdbSynced)
	}
	synced = append(slices.Clip(synced), s.volumesSynced...)
	if !cache.WaitForCacheSync(ctx, synced...) {
		// Stopped before the caches synced (an unreachable API server,
		// say): a shutdown like any other.
		logger.V(2).Info("Scheduler stopped before its caches synced", "scheduler", s.name)
		return nil
	}
	logger.V(2).Info("Scheduler caches synced", "scheduler", s.name)
	stop := context.AfterFunc(ctx, s.queue.Close)
	defer stop()
	for {
		p, err := s.queue.Pop()
		if err != nil {
			break
		}
		s.scheduleOne(ctx, p)
	}
	// Wait for the bindings in flight.
	for range cap(s.bindSlots) {
		s.bindSlots <- struct{}{}
	}
	for range cap(s.bindSlots) {
		<-s.bindSlots
	}
	return nil
}
