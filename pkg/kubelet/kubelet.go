// Package kubelet is the node agent: it registers its Node and renews its
// Lease, runs the pods bound to it through a container runtime, and reports.
package kubelet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Config is what a Kubelet needs; zero durations take the defaults.
type Config struct {
	NodeName string
	// Hostname is the Node's Hostname address and kubernetes.io/hostname
	// label; the node name when empty.
	Hostname string
	// Client talks to the API; without one the kubelet runs standalone:
	// static pods only, no Node, Lease, mirror pods or status writes.
	Client  *typed.Clientset
	Runtime kruntime.Runtime
	// RootDir holds pod directories (volumes) and container logs.
	RootDir string
	// NodeIP is the node's InternalIP and, with host networking, the pods'.
	NodeIP string
	// PodNetwork, when set, is the Node's AnnotationPodNetwork:
	// PodNetworkBridge or PodNetworkHost (then each pod that is not
	// hostNetwork gets an Event saying it shares the node's network).
	PodNetwork string
	// NodeLabels are added to the well-known labels of the Node.
	NodeLabels map[string]string
	// RegisterWithTaints are the Node's taints when it is registered.
	RegisterWithTaints []corev1.Taint
	// MaxPods is the pods capacity; 110 when zero.
	MaxPods int32
	// KubeletPort is reported as daemonEndpoints.kubeletEndpoint.Port.
	KubeletPort int32
	// NodeStatusUpdateFrequency is how often the node status is computed
	// (10 s); it is written when it changed or NodeStatusReportFrequency
	// (5 min, as Kubernetes) has passed: the Lease is the heartbeat.
	NodeStatusUpdateFrequency time.Duration
	NodeStatusReportFrequency time.Duration
	// LeaseDurationSeconds of the node's Lease (40); it is renewed every
	// LeaseRenewInterval (a quarter of the duration: 10 s).
	LeaseDurationSeconds int32
	LeaseRenewInterval   time.Duration
	// SyncFrequency is how often each pod is synced without changes
	// (10 s): probes, back-off and volume contents are looked at then.
	SyncFrequency time.Duration
	// RelistPeriod is how often the runtime's containers are listed to
	// find those that changed state on their own, such as an exited
	// process (1 s); their pods are synced at once.
	RelistPeriod time.Duration
	// StopPodsOnExit stops every sandbox when Run returns; a runtime that
	// cannot re-adopt its containers after a restart needs it.
	StopPodsOnExit bool
	// DNS makes each pod's resolv.conf (--cluster-dns, --cluster-domain,
	// --resolv-conf).
	DNS DNSConfigurer
	// AllowedUnsafeSysctls are the sysctls beyond the safe set that pods
	// may set (--allowed-unsafe-sysctls: names, or prefixes ending in
	// "*"); a pod asking for another is rejected (SysctlForbidden).
	AllowedUnsafeSysctls []string
	// StaticPodPath is a directory of pod manifests, read every
	// FileCheckFrequency (5 s); StaticPodURL serves a pod or a PodList,
	// read every HTTPCheckFrequency (20 s).
	StaticPodPath      string
	FileCheckFrequency time.Duration
	StaticPodURL       string
	HTTPCheckFrequency time.Duration
	// ExternalPodSource: the caller feeds the API's pods of this node
	// through HandlePod (one informer shared by many hollow nodes)
	// instead of the kubelet watching its own.
	ExternalPodSource bool
	// Objects, when set, serves the config maps and secrets of the pods
	// and must be running (ObjectWatcher.Run): hollow nodes share one.
	// By default the kubelet runs its own with Client.
	Objects *ObjectWatcher
	// Machine, when set, replaces the capacity and system info read from
	// the host (hollow nodes).
	Machine *MachineInfo
	// Recorder reports the kubelet's Events about pods and its Node; by
	// default Run makes one writing through Client on the first Event.
	Recorder record.EventRecorder
	// DisableEvents keeps Events in the log (V(2) warnings, V(4) the
	// rest) instead of writing them: hundreds of hollow nodes would add
	// several writes per pod to the load they measure.
	DisableEvents bool
	Clock         Clock
}

func (c *Config) defaults() error {
	var errs []error
	if c.NodeName == "" {
		errs = append(errs, errors.New("node name is required"))
	}
	if c.Client == nil && c.StaticPodPath == "" && c.StaticPodURL == "" {
		errs = append(errs, errors.New("a client is required, or a static pod path or URL (standalone)"))
	}
	if c.Runtime == nil {
		errs = append(errs, errors.New("a container runtime is required"))
	}
	if c.RootDir == "" {
		errs = append(errs, errors.New("root dir is required"))
	}
	if c.NodeIP == "" {
		errs = append(errs, errors.New("node IP is required"))
	}
	if c.Hostname == "" {
		c.Hostname = c.NodeName
	}
	if c.MaxPods == 0 {
		c.MaxPods = 110
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.NodeStatusUpdateFrequency, 10*time.Second)
	def(&c.NodeStatusReportFrequency, 5*time.Minute)
	def(&c.SyncFrequency, 10*time.Second)
	def(&c.RelistPeriod, time.Second)
	def(&c.FileCheckFrequency, 5*time.Second)
	def(&c.HTTPCheckFrequency, 20*time.Second)
	if c.LeaseDurationSeconds <= 0 {
		c.LeaseDurationSeconds = 40
	}
	// A quarter of the lease, as Kubernetes' kubelet: 10 s by default.
	def(&c.LeaseRenewInterval, time.Duration(c.LeaseDurationSeconds)*time.Second/4)
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	return errors.Join(errs...)
}

// Kubelet is one node agent.
type Kubelet struct {
	cfg     Config
	clock   Clock
	runtime kruntime.Runtime
	objects ObjectGetter
	// watcher keeps the objects of the pods (nil standalone); the kubelet
	// runs it when ownWatcher.
	watcher    *ObjectWatcher
	ownWatcher bool
	tokens     *tokenManager
	status     *statusManager
	probes     *probeManager
	hooks      *hookRunner
	events     *kubeletEvents
	workers    *podWorkers
	machine    MachineInfo
	// admitted holds the host ports of the pods admitted on the node.
	admitted *admitted
	// allocs holds the resources allocated to the pods' containers.
	allocs *allocations

	static *staticPods
	// handlePod feeds a pod from the API; set once Run has registered
	// the node (started is closed then).
	handlePod func(p *corev1.Pod, removed bool)
	started   chan struct{}

	mu         sync.Mutex
	nodeStatus nodeStatusState
	// synced says whether every pod source has delivered its pods, so
	// that a sandbox of no known pod is an orphan.
	synced []func() bool
}

func (kl *Kubelet) setPodsSynced(f func() bool) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	kl.synced = append(kl.synced, f)
}

// podsSynced says whether the pod sources have all delivered their pods.
func (kl *Kubelet) podsSynced() bool {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	if len(kl.synced) == 0 {
		return false
	}
	for _, f := range kl.synced {
		if !f() {
			return false
		}
	}
	return true
}

// New checks cfg and makes a Kubelet; Run starts it.
func New(cfg Config) (*Kubelet, error) {
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("kubelet config: %w", err)
	}
	if err := os.MkdirAll(cfg.RootDir, 0o755); err != nil {
		return nil, fmt.Errorf("kubelet root dir: %w", err)
	}
	kl := &Kubelet{cfg: cfg, clock: cfg.Clock, runtime: cfg.Runtime, objects: clientObjects{}, static: newStaticPods(), admitted: newAdmitted(), allocs: newAllocations(), started: make(chan struct{})}
	if cfg.Client != nil {
		kl.watcher, kl.ownWatcher = cfg.Objects, cfg.Objects == nil
		if kl.ownWatcher {
			kl.watcher = NewObjectWatcher(cfg.Client)
		}
		kl.objects = kl.watcher
	}
	if cfg.Machine != nil {
		kl.machine = *cfg.Machine
		for _, l := range []*corev1.ResourceList{&kl.machine.Capacity, &kl.machine.Allocatable} {
			*l = maps.Clone(*l)
			if *l == nil {
				*l = corev1.ResourceList{}
			}
			if _, ok := (*l)[corev1.ResourcePods]; !ok {
				(*l)[corev1.ResourcePods] = *resource.NewQuantity(int64(cfg.MaxPods), resource.DecimalSI)
			}
		}
	} else {
		m, err := ReadMachineInfo(cfg.RootDir, cfg.MaxPods)
		if err != nil {
			return nil, fmt.Errorf("kubelet machine info: %w", err)
		}
		kl.machine = m
	}
	kl.tokens = newTokenManager(cfg.Client, cfg.Clock)
	kl.status = newStatusManager(cfg.Client)
	kl.hooks = newHookRunner(kl.runtime)
	kl.events = newKubeletEvents(cfg.Client, cfg.Recorder, cfg.NodeName, cfg.DisableEvents)
	kl.workers = newPodWorkers(kl.syncPod, cfg.SyncFrequency, cfg.Clock)
	if w := kl.watcher; w != nil {
		kl.workers.track = w.RegisterPod
		kl.workers.untrack = func(uid string) { w.UnregisterPod(types.UID(uid)) }
	}
	kl.probes = newProbeManager(newRuntimeProber(kl.runtime), cfg.Clock, func(uid string) { kl.workers.wake(uid) })
	kl.probes.unhealthy = func(ctx context.Context, ref corev1.ObjectReference, msg string) {
		kl.events.record(ctx, ref, corev1.EventTypeWarning, eventUnhealthy, msg)
	}
	return kl, nil
}

// clientObjects is the ObjectGetter of a standalone kubelet: it has no API
// to read config maps or secrets from.
type clientObjects struct{}

var _ ObjectGetter = clientObjects{}

func (clientObjects) ConfigMap(context.Context, string, string) (*corev1.ConfigMap, error) {
	return nil, errStandalone
}

func (clientObjects) Secret(context.Context, string, string) (*corev1.Secret, error) {
	return nil, errStandalone
}

// Services gives a standalone kubelet's pods no Service variables.
func (clientObjects) Services(context.Context) ([]*corev1.Service, error) { return nil, nil }

var errStandalone = errors.New("a standalone kubelet (no --kubeconfig) cannot read config maps or secrets")

// Run registers the node, then runs the pods bound to it, renews its Lease
// and reports its status until ctx ends. Running containers are left
// running unless Config.StopPodsOnExit.
func (kl *Kubelet) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("node", kl.cfg.NodeName)
	ctx = klog.NewContext(ctx, logger)
	if err := kl.runtime.Status(ctx); err != nil {
		return fmt.Errorf("container runtime %s is not ready: %w", kl.runtime.Type(), err)
	}
	kl.events.start(ctx)
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		kl.workers.wait()
		kl.probes.stopAll()
		if kl.cfg.StopPodsOnExit {
			kl.stopAllSandboxes(context.WithoutCancel(ctx))
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		kl.events.shutdown(sctx)
		cancel()
		logger.Info("Kubelet stopped")
	}()
	if kl.cfg.StaticPodPath != "" {
		synced := &syncedFlag{}
		kl.setPodsSynced(synced.get)
		wg.Go(func() { kl.runFileSource(ctx, synced) })
	}
	if kl.cfg.StaticPodURL != "" {
		synced := &syncedFlag{}
		kl.setPodsSynced(synced.get)
		wg.Go(func() { kl.runURLSource(ctx, synced) })
	}
	wg.Go(func() { kl.relistLoop(ctx) })
	if kl.cfg.Client == nil {
		logger.Info("Kubelet running standalone: static pods only", "runtime", kl.runtime.Type())
		<-ctx.Done()
		return nil
	}
	if kl.ownWatcher {
		wg.Go(func() { kl.watcher.Run(ctx) })
	}
	kl.events.node(ctx, corev1.EventTypeNormal, eventStarting, "Starting kubelet.")
	if _, err := kl.registerNode(ctx); err != nil {
		return err
	}
	logger.Info("Node registered", "runtime", kl.runtime.Type(), "nodeIP", kl.cfg.NodeIP)

	// Mirror pods stand for static pods: they are not run.
	apiPod := func(p *corev1.Pod, removed bool) {
		if isMirror(p) {
			kl.static.setMirror(p, removed)
			return
		}
		kl.dispatch(ctx, p, removed)
	}
	wg.Go(func() { kl.leaseLoop(ctx) })
	wg.Go(func() { kl.nodeStatusLoop(ctx) })
	wg.Go(func() { kl.mirrorLoop(ctx) })
	if kl.cfg.ExternalPodSource {
		kl.handlePod = apiPod
		close(kl.started)
		<-ctx.Done()
		return nil
	}
	factory := informers.NewSharedInformerFactory(kl.cfg.Client,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName=" + kl.cfg.NodeName }),
		informers.WithReflectorOptions(cache.ReflectorOptions{OnError: func(err error) {
			logger.Error(err, "Failed to list or watch pods; retrying with back-off")
		}}))
	inf, err := informers.Pods(factory)
	if err != nil {
		return fmt.Errorf("pod informer: %w", err)
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { apiPod(p, false) },
		UpdateFunc: func(_, p *corev1.Pod) { apiPod(p, false) },
		DeleteFunc: func(p *corev1.Pod) { apiPod(p, true) },
	})
	if err != nil {
		return fmt.Errorf("pod informer: %w", err)
	}
	kl.setPodsSynced(reg.HasSynced)
	factory.Start(ctx)
	<-ctx.Done()
	factory.Shutdown()
	return nil
}

// stopAllSandboxes kills every container the runtime runs.
func (kl *Kubelet) stopAllSandboxes(ctx context.Context) {
	sandboxes, err := kl.runtime.ListPodSandbox(ctx)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Failed to list sandboxes to stop")
		return
	}
	grace := map[string]time.Duration{}
	for _, p := range kl.workers.pods() {
		grace[string(p.UID)] = gracePeriod(p)
	}
	// Every pod at once: the shutdown lasts the longest grace period, not
	// their sum.
	var wg sync.WaitGroup
	for _, s := range sandboxes {
		wg.Go(func() {
			kl.stopSandbox(ctx, s.ID, grace[s.Config.UID])
		})
	}
	wg.Wait()
}

// stopSandbox stops the sandbox's running containers in parallel, each
// with SIGTERM then SIGKILL after grace, and then the sandbox.
func (kl *Kubelet) stopSandbox(ctx context.Context, id string, grace time.Duration) {
	logger := klog.FromContext(ctx).WithValues("sandbox", id)
	containers, err := kl.runtime.ListContainers(ctx, id)
	if err != nil && !errors.Is(err, kruntime.ErrNotFound) {
		logger.Error(err, "Failed to list the containers to stop")
	}
	var wg sync.WaitGroup
	for _, c := range containers {
		if c.State != kruntime.ContainerRunning {
			continue
		}
		wg.Go(func() {
			if err := kl.runtime.StopContainer(ctx, c.ID, grace); err != nil {
				logger.Error(err, "Failed to stop container", "container", c.ID)
			}
		})
	}
	wg.Wait()
	if err := kl.runtime.StopPodSandbox(ctx, id); err != nil {
		logger.Error(err, "Failed to stop sandbox")
	}
}

// ObjectWatches is the number of config maps and secrets the kubelet's
// object watcher watches (shared with other kubelets when Config.Objects).
func (kl *Kubelet) ObjectWatches() int {
	if kl.watcher == nil {
		return 0
	}
	return kl.watcher.Watches()
}

// Started is closed once Run has registered the node and takes pods.
func (kl *Kubelet) Started() <-chan struct{} { return kl.started }

// dispatch hands a pod to its worker. A pod whose termination is asked
// for (removed, or deleted with a grace period) stops holding its host
// ports at once, as Kubernetes' kubelet admits against the pods not
// being terminated: a pod created after another was deleted is not
// refused for the ports of one that only its worker still winds down.
func (kl *Kubelet) dispatch(ctx context.Context, p *corev1.Pod, removed bool) {
	if removed || p.DeletionTimestamp != nil {
		kl.admitted.release(string(p.UID))
	}
	kl.workers.update(ctx, p, removed)
}

// HandlePod feeds a pod of this node from the API, with
// Config.ExternalPodSource; it waits for Started. synced says whether the
// feeder has delivered every pod it listed (for orphan clean-up).
func (kl *Kubelet) HandlePod(p *corev1.Pod, removed bool) {
	<-kl.started
	kl.handlePod(p, removed)
}

// SetExternalPodsSynced tells how to know that the external pod source
// has delivered its initial pods.
func (kl *Kubelet) SetExternalPodsSynced(synced func() bool) { kl.setPodsSynced(synced) }
