// Package fakenode is a fake node agent for integration tests: it registers
// Nodes and keeps their Leases, runs bound pods (Running and Ready at once or
// after a delay) and finishes the deletion of pods marked for deletion.
package fakenode

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/workqueue"
)

// Options configure an Agent.
type Options struct {
	// Nodes names the nodes to register; default one node "fake-node-0".
	Nodes []string
	// Bind assigns unscheduled pods to the nodes, round robin, for tests
	// that run no scheduler.
	Bind bool
	// ReadyAfter is how long a pod runs before it is Ready; 0 means at once.
	ReadyAfter time.Duration
	// LeaseRenewInterval is how often node Leases are renewed; default 10s,
	// negative for no Leases.
	LeaseRenewInterval time.Duration
	// Workers is the number of pods handled at once; default 16.
	Workers int
	// Finish, when set, is asked about each Running and Ready pod: a
	// returned PodSucceeded or PodFailed ends the pod with that phase (its
	// containers exit 0 or 1); any other answer keeps it running.
	Finish func(pod *corev1.Pod) corev1.PodPhase
	// NodesOnly registers the nodes and renews their Leases but leaves the
	// pods alone: hollow Node objects, for a scheduler to fill.
	NodesOnly bool
}

// Agent is a running fake node agent.
type Agent struct {
	client *typed.Clientset
	opts   Options
	pods   cache.Lister[*corev1.Pod]
	queue  workqueue.TypedRateLimitingInterface[string]
	nodes  map[string]int // name -> index, for IPs
	next   atomic.Uint64  // round robin of Bind

	mu        sync.Mutex
	runningAt map[types.UID]time.Time
	silenced  map[string]bool

	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// Start registers the nodes and runs the agent until ctx ends or Stop.
func Start(ctx context.Context, client *typed.Clientset, opts Options) (*Agent, error) {
	if len(opts.Nodes) == 0 {
		opts.Nodes = []string{"fake-node-0"}
	}
	if opts.LeaseRenewInterval == 0 {
		opts.LeaseRenewInterval = 10 * time.Second
	}
	if opts.Workers <= 0 {
		opts.Workers = 16
	}
	a := &Agent{
		client:    client,
		opts:      opts,
		queue:     workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second)),
		nodes:     map[string]int{},
		runningAt: map[types.UID]time.Time{},
		silenced:  map[string]bool{},
		done:      make(chan struct{}),
	}
	for i, n := range opts.Nodes {
		a.nodes[n] = i
		if err := a.registerNode(ctx, n, i); err != nil {
			return nil, err
		}
	}
	ctx, a.cancel = context.WithCancel(ctx)
	var wg sync.WaitGroup
	if opts.LeaseRenewInterval > 0 {
		wg.Go(func() { a.heartbeat(ctx) })
	}
	if opts.NodesOnly {
		go func() {
			defer close(a.done)
			wg.Wait()
		}()
		return a, nil
	}
	factory := informers.NewSharedInformerFactory(client)
	inf, err := informers.Pods(factory)
	if err != nil {
		a.cancel()
		return nil, fmt.Errorf("fake node agent: %w", err)
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { a.enqueue(p) },
		UpdateFunc: func(_, p *corev1.Pod) { a.enqueue(p) },
		DeleteFunc: func(p *corev1.Pod) { a.forget(p.UID) },
	})
	if err != nil {
		a.cancel()
		return nil, fmt.Errorf("fake node agent: %w", err)
	}
	a.pods = inf.Lister()
	factory.Start(ctx)
	go func() {
		defer close(a.done)
		a.err = controller.Run(ctx, "fake-node-agent", opts.Workers, a.queue, a.sync, reg.HasSynced)
		wg.Wait()
		factory.Shutdown()
	}()
	return a, nil
}

// Stop stops the agent and waits for it; the Nodes stay.
func (a *Agent) Stop() error {
	a.cancel()
	<-a.done
	return a.err
}

// Nodes returns the names of the agent's nodes.
func (a *Agent) Nodes() []string { return slices.Clone(a.opts.Nodes) }

// StopHeartbeat stops renewing the named node's Lease, as if the node had
// died; its pods are left as they are.
func (a *Agent) StopHeartbeat(node string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.silenced[node] = true
}

func (a *Agent) enqueue(p *corev1.Pod) { a.queue.Add(cache.ObjectKey(p.Namespace, p.Name)) }

func (a *Agent) forget(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.runningAt, uid)
}

func (a *Agent) registerNode(ctx context.Context, name string, i int) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("5000"),
	}
	now := metav1.Now()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "fake node agent is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeIP(i)}, {Type: corev1.NodeHostName, Address: name}},
		},
	}
	created, err := a.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		if created, err = a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("register node %s: %w", name, err)
		}
	} else if err != nil {
		return fmt.Errorf("register node %s: %w", name, err)
	}
	// The status given on create is dropped by the status rule; write it.
	created.Status = node.Status
	if _, err := a.client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("register node %s: status: %w", name, err)
	}
	if a.opts.LeaseRenewInterval > 0 {
		if err := a.renewLease(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func nodeIP(i int) string { return fmt.Sprintf("10.0.%d.%d", i/250, i%250+1) }

// podIP spreads pods over 10.64.0.0/10 by a hash of their uid.
func podIP(h uint64) string {
	return fmt.Sprintf("10.%d.%d.%d", 64+h%64, h/64%256, h/16384%254+1)
}

func (a *Agent) heartbeat(ctx context.Context) {
	t := time.NewTicker(a.opts.LeaseRenewInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, n := range a.opts.Nodes {
			a.mu.Lock()
			silent := a.silenced[n]
			a.mu.Unlock()
			if !silent {
				_ = a.renewLease(ctx, n) // the next tick tries again
			}
		}
	}
}

func (a *Agent) renewLease(ctx context.Context, node string) error {
	leases := a.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NowMicro()
	seconds := int32(40)
	lease, err := leases.Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: corev1.NamespaceNodeLease, Name: node},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &node, LeaseDurationSeconds: &seconds, RenewTime: &now},
		}, metav1.CreateOptions{})
	} else if err == nil {
		lease.Spec.RenewTime = &now
		_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("renew lease of node %s: %w", node, err)
	}
	return nil
}

// sync moves one pod along: bind it (with Bind), finish its deletion, or
// run it and make it Ready.
func (a *Agent) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := a.pods.Namespaced(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		if !a.opts.Bind || pod.DeletionTimestamp != nil {
			return nil
		}
		node := a.opts.Nodes[int(a.next.Add(1)-1)%len(a.opts.Nodes)]
		err := a.client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: pod.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: node},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("bind pod %s to %s: %w", key, node, err)
		}
		return nil
	}
	idx, ours := a.nodes[pod.Spec.NodeName]
	if !ours {
		return nil
	}
	if pod.DeletionTimestamp != nil {
		uid := string(pod.UID)
		err := a.client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: &metav1.Preconditions{UID: (*types.UID)(&uid)}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("delete pod %s: %w", key, err)
		}
		return nil
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return nil
	}
	now := time.Now()
	a.mu.Lock()
	started, seen := a.runningAt[pod.UID]
	if !seen {
		started = now
		a.runningAt[pod.UID] = now
	}
	a.mu.Unlock()
	ready := now.Sub(started) >= a.opts.ReadyAfter
	if !ready {
		a.queue.AddAfter(key, a.opts.ReadyAfter-now.Sub(started))
	}
	var cp *corev1.Pod
	if pod.Status.Phase == corev1.PodRunning && isReady(pod) == ready {
		phase := a.finish(pod, ready)
		if phase == "" {
			return nil
		}
		cp = pod.DeepCopy()
		setFinished(cp, phase)
	} else {
		cp = pod.DeepCopy()
		setRunning(cp, ready, nodeIP(idx), podIP(hash(pod.UID)), started)
	}
	if _, err := a.client.CoreV1().Pods(ns).UpdateStatus(ctx, cp, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update status of pod %s: %w", key, err)
	}
	return nil
}

func hash(uid types.UID) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(uid); i++ {
		h = (h ^ uint64(uid[i])) * 1099511628211
	}
	return h
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// setRunning writes the status of a pod whose containers all run.
func setRunning(p *corev1.Pod, ready bool, hostIP, ip string, started time.Time) {
	now := metav1.NewTime(time.Now())
	start := metav1.NewTime(started)
	readyStatus := corev1.ConditionFalse
	if ready {
		readyStatus = corev1.ConditionTrue
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.HostIP, p.Status.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	p.Status.StartTime = &start
	set := func(t corev1.PodConditionType, s corev1.ConditionStatus) {
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == t {
				if p.Status.Conditions[i].Status != s {
					p.Status.Conditions[i].Status, p.Status.Conditions[i].LastTransitionTime = s, now
				}
				return
			}
		}
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: s, LastTransitionTime: now})
	}
	set(corev1.PodScheduled, corev1.ConditionTrue)
	set(corev1.PodInitialized, corev1.ConditionTrue)
	set(corev1.ContainersReady, readyStatus)
	set(corev1.PodReady, readyStatus)
	p.Status.ContainerStatuses = p.Status.ContainerStatuses[:0]
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "fake://" + c.Image, Ready: ready, Started: &ready,
			ContainerID: "fake://" + string(p.UID) + "/" + c.Name,
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}},
		})
	}
}

// finish returns the phase a running, ready pod ends with now (see
// Options.Finish), "" to keep it running.
func (a *Agent) finish(pod *corev1.Pod, ready bool) corev1.PodPhase {
	if !ready || a.opts.Finish == nil {
		return ""
	}
	if phase := a.opts.Finish(pod); phase == corev1.PodSucceeded || phase == corev1.PodFailed {
		return phase
	}
	return ""
}

// setFinished writes the status of a pod whose containers all exited, with
// code 0 for phase Succeeded and 1 for Failed.
func setFinished(p *corev1.Pod, phase corev1.PodPhase) {
	now := metav1.NewTime(time.Now())
	code, reason := int32(0), "Completed"
	if phase == corev1.PodFailed {
		code, reason = 1, "Error"
	}
	p.Status.Phase = phase
	for i := range p.Status.Conditions {
		if t := p.Status.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
			p.Status.Conditions[i].Status, p.Status.Conditions[i].LastTransitionTime = corev1.ConditionFalse, now
		}
	}
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		started := now
		if cs.State.Running != nil {
			started = cs.State.Running.StartedAt
		}
		cs.Ready, cs.Started = false, new(bool)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: now, ContainerID: cs.ContainerID,
		}}
	}
}
