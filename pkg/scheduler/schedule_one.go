package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/internal/queue"
)

// ErrNoNodesAvailable is the error of a cycle with no nodes at all.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// noNodesPlugin stands for "no nodes" among the rejecting plugins, so that
// such pods wait for any cluster event rather than back off.
const noNodesPlugin = "NoNodes"

const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// scheduleOne runs one scheduling cycle for p and starts its binding.
func (s *Scheduler) scheduleOne(ctx context.Context, p *queue.QueuedPodInfo) {
	pod := p.Pod
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod))
	if pod.DeletionTimestamp != nil || s.cache.IsAssumedPod(pod) {
		s.queue.Done(pod.UID)
		return
	}
	start := time.Now()
	s.cache.UpdateSnapshot(s.snapshot)
	state := framework.NewCycleState()
	host, err := s.schedulePod(ctx, state, pod)
	if err != nil {
		nominated := ""
		var fitErr *framework.FitError
		if errors.As(err, &fitErr) && s.fwk.HasPostFilterPlugins() {
			s.metrics.preemptions.Inc()
			r, st := s.fwk.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
			if st.Code() == framework.Error {
				logger.Error(st.AsError(), "Failed running PostFilter plugins")
			} else {
				fitErr.Diagnosis.PostFilterMsg = st.Message()
			}
			if r != nil {
				nominated = r.NominatedNodeName
			}
		}
		s.handleFailure(ctx, p, err, nominated, start)
		return
	}

	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	pi := *p.PodInfo
	pi.Pod = assumed
	if err := s.cache.AssumePod(&pi); err != nil {
		s.handleFailure(ctx, p, err, "", start)
		return
	}
	s.queue.DeleteNominatedPodIfExists(pod)
	if st := s.fwk.RunReservePluginsReserve(ctx, state, assumed, host); !st.IsSuccess() {
		s.fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
		s.forget(ctx, assumed)
		s.handleFailure(ctx, p, statusError(st, pod), "", start)
		return
	}
	if st := s.fwk.RunPermitPlugins(ctx, state, assumed, host); !st.IsSuccess() {
		s.fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
		s.forget(ctx, assumed)
		s.handleFailure(ctx, p, statusError(st, pod), "", start)
		return
	}
	s.queue.Done(pod.UID)
	go func() {
		s.bindSlots <- struct{}{}
		defer func() { <-s.bindSlots }()
		s.bind(ctx, state, p, assumed, host, start)
	}()
}

// statusError turns a rejection after filtering into a FitError of one
// node, and anything else into an error.
func statusError(st *framework.Status, pod *corev1.Pod) error {
	if st.IsRejected() {
		d := framework.Diagnosis{NodeToStatus: map[string]*framework.Status{pod.Name: st}}
		d.AddPluginStatus(st)
		return &framework.FitError{Pod: pod, NumAllNodes: 1, Diagnosis: d}
	}
	return st.AsError()
}

// bind runs PreBind and Bind; a failure forgets the assumed pod and
// requeues it.
func (s *Scheduler) bind(ctx context.Context, state *framework.CycleState, p *queue.QueuedPodInfo, assumed *corev1.Pod, host string, start time.Time) {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(assumed), "node", host)
	st := s.fwk.RunPreBindPlugins(ctx, state, assumed, host)
	if st.IsSuccess() {
		st = s.fwk.RunBindPlugins(ctx, state, assumed, host)
	}
	if !st.IsSuccess() {
		s.fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
		s.forget(ctx, assumed)
		// The room the pod held is free again.
		s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete, Label: "AssumedPodForget"}, nil)
		err := st.AsError()
		if apierrors.IsNotFound(err) || ctx.Err() != nil {
			// Deleted meanwhile, or shutting down: nothing to requeue.
			logger.V(2).Info("Binding abandoned", "err", err)
			return
		}
		// The pod was popped before; put it back in flight for the requeue.
		s.queue.Readd(p)
		s.handleFailure(ctx, p, err, "", start)
		return
	}
	s.metrics.attempts.WithLabelValues(resultScheduled).Inc()
	s.metrics.attemptDuration.WithLabelValues(resultScheduled).Observe(time.Since(start).Seconds())
	s.metrics.e2eLatency.Observe(time.Since(p.InitialAttemptTimestamp).Seconds())
	logger.V(2).Info("Successfully bound pod to node", "evaluatedNodes", s.snapshot.NumNodes())
	s.recorder.Eventf(p.Pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s/%s to %s", assumed.Namespace, assumed.Name, host)
}

func (s *Scheduler) forget(ctx context.Context, assumed *corev1.Pod) {
	if err := s.cache.ForgetPod(assumed); err != nil {
		klog.FromContext(ctx).Error(err, "Failed to forget the assumed pod", "pod", klog.KObj(assumed))
	}
}

// handleFailure returns the pod to the queue, records a FailedScheduling
// event, and sets its PodScheduled condition (and nominated node).
func (s *Scheduler) handleFailure(ctx context.Context, p *queue.QueuedPodInfo, err error, nominated string, start time.Time) {
	pod := p.Pod
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod))
	reason := corev1.PodReasonSchedulerError
	var plugins map[string]struct{}
	var fitErr *framework.FitError
	switch {
	case errors.As(err, &fitErr):
		reason = corev1.PodReasonUnschedulable
		plugins = fitErr.Diagnosis.UnschedulablePlugins
		if len(plugins) == 0 {
			plugins = map[string]struct{}{noNodesPlugin: {}}
		}
		logger.V(2).Info("Unable to schedule pod; no fit; waiting", "err", err)
	case errors.Is(err, ErrNoNodesAvailable):
		reason = corev1.PodReasonUnschedulable
		plugins = map[string]struct{}{noNodesPlugin: {}}
		logger.V(2).Info("Unable to schedule pod; no nodes; waiting")
	default:
		logger.Error(err, "Error scheduling pod; retrying")
	}
	result := resultError
	if reason == corev1.PodReasonUnschedulable {
		result = resultUnschedulable
	}
	s.metrics.attempts.WithLabelValues(result).Inc()
	s.metrics.attemptDuration.WithLabelValues(result).Observe(time.Since(start).Seconds())

	// A pod deleted or bound meanwhile is not requeued.
	current, getErr := s.podInformer.Lister().Namespaced(pod.Namespace).Get(pod.Name)
	if getErr != nil || current.UID != pod.UID || current.Spec.NodeName != "" {
		s.queue.Done(pod.UID)
		return
	}
	s.queue.AddUnschedulableIfNotPresent(p, plugins)
	if nominated != "" {
		s.queue.AddNominatedPod(p.PodInfo, nominated)
	}
	msg := truncateMessage(err.Error())
	s.recorder.Event(pod, corev1.EventTypeWarning, "FailedScheduling", msg)
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg}
	go s.updatePodStatus(ctx, current, cond, nominated)
}

// truncateMessage keeps messages within the 1 KiB Kubernetes allows in
// a condition message.
func truncateMessage(m string) string {
	const limit = 1024
	if len(m) <= limit {
		return m
	}
	return m[:limit-3] + "..."
}

// updatePodStatus patches the PodScheduled condition and the nominated
// node when they differ from the pod's.
func (s *Scheduler) updatePodStatus(ctx context.Context, pod *corev1.Pod, cond corev1.PodCondition, nominated string) {
	var old *corev1.PodCondition
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == cond.Type {
			old = &pod.Status.Conditions[i]
		}
	}
	if old != nil && old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message &&
		(nominated == "" || nominated == pod.Status.NominatedNodeName) {
		return
	}
	now := metav1.NewTime(time.Now())
	cond.LastTransitionTime = now
	if old != nil && old.Status == cond.Status {
		cond.LastTransitionTime = old.LastTransitionTime
	}
	status := map[string]any{"conditions": []corev1.PodCondition{cond}}
	if nominated != "" {
		status["nominatedNodeName"] = nominated
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err == nil {
		err = s.client.PatchPodStatus(ctx, pod, patch)
	}
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "Failed to update the pod's PodScheduled condition", "pod", klog.KObj(pod))
	}
}

// schedulePod finds the best node for pod, or says why there is none.
func (s *Scheduler) schedulePod(ctx context.Context, state *framework.CycleState, pod *corev1.Pod) (string, error) {
	if s.snapshot.NumNodes() == 0 {
		return "", ErrNoNodesAvailable
	}
	feasible, diagnosis, err := s.findNodesThatFitPod(ctx, state, pod)
	if err != nil {
		return "", err
	}
	if len(feasible) == 0 {
		return "", &framework.FitError{Pod: pod, NumAllNodes: s.snapshot.NumNodes(), Diagnosis: diagnosis}
	}
	if len(feasible) == 1 {
		return feasible[0].Name(), nil
	}
	if st := s.fwk.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
		return "", st.AsError()
	}
	scores, st := s.fwk.RunScorePlugins(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		return "", st.AsError()
	}
	return selectHost(scores), nil
}

// selectHost picks the highest score, breaking ties uniformly at random.
func selectHost(scores []framework.NodeScore) string {
	best, ties := 0, 1
	for i := 1; i < len(scores); i++ {
		switch {
		case scores[i].Score > scores[best].Score:
			best, ties = i, 1
		case scores[i].Score == scores[best].Score:
			ties++
			if rand.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return scores[best].Name
}

// findNodesThatFitPod runs PreFilter and the filters.
func (s *Scheduler) findNodesThatFitPod(ctx context.Context, state *framework.CycleState, pod *corev1.Pod) ([]*framework.NodeInfo, framework.Diagnosis, error) {
	diagnosis := framework.Diagnosis{NodeToStatus: map[string]*framework.Status{}}
	all := s.snapshot.List()
	if _, err := framework.NewPodInfo(pod); err != nil {
		return nil, diagnosis, err
	}
	pfr, st := s.fwk.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, diagnosis, st.AsError()
		}
		for _, n := range all {
			diagnosis.NodeToStatus[n.Name()] = st
		}
		diagnosis.PreFilterMsg = st.Message()
		diagnosis.AddPluginStatus(st)
		return nil, diagnosis, nil
	}
	// A pod nominated by preemption tries its node first.
	if nn := pod.Status.NominatedNodeName; nn != "" {
		if ni, err := s.snapshot.Get(nn); err == nil {
			if st := s.fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); st.IsSuccess() {
				return []*framework.NodeInfo{ni}, diagnosis, nil
			}
		}
	}
	nodes := all
	if pfr != nil && pfr.NodeNames != nil {
		nodes = make([]*framework.NodeInfo, 0, len(pfr.NodeNames))
		for _, n := range all {
			if _, ok := pfr.NodeNames[n.Name()]; ok {
				nodes = append(nodes, n)
			} else {
				diagnosis.NodeToStatus[n.Name()] = framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [PreFilter]")
			}
		}
	}
	feasible, err := s.findNodesThatPassFilters(ctx, state, pod, &diagnosis, nodes)
	return feasible, diagnosis, err
}

// numFeasibleNodesToFind is how many feasible nodes are enough to score.
func (s *Scheduler) numFeasibleNodesToFind(numAll int) int {
	if numAll < minFeasibleNodesToFind || s.percent >= 100 {
		return numAll
	}
	pct := int(s.percent)
	if pct == 0 {
		pct = max(50-numAll/125, minFeasibleNodesPercentageToFind)
	}
	return max(numAll*pct/100, minFeasibleNodesToFind)
}

// findNodesThatPassFilters filters nodes in parallel, starting where the
// previous cycle stopped so that every node gets its turn, until enough
// feasible nodes are found.
func (s *Scheduler) findNodesThatPassFilters(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, diagnosis *framework.Diagnosis, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, error) {
	numAll := len(nodes)
	if numAll == 0 {
		return nil, nil
	}
	want := s.numFeasibleNodesToFind(numAll)
	feasible := make([]*framework.NodeInfo, want)
	statuses := make([]*framework.Status, numAll)
	var found, processed atomic.Int64
	var firstErr atomic.Pointer[framework.Status]
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := s.nextStartNodeIndex % numAll
	s.fwk.Parallelizer().Until(ctx, numAll, func(i int) {
		if ctx.Err() != nil {
			return
		}
		idx := (start + i) % numAll
		st := s.fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, nodes[idx])
		switch {
		case st.IsSuccess():
			n := found.Add(1)
			if n > int64(want) {
				cancel()
				return
			}
			feasible[n-1] = nodes[idx]
			if n == int64(want) {
				cancel()
			}
		case st.Code() == framework.Error:
			firstErr.CompareAndSwap(nil, st)
			cancel()
			return
		default:
			statuses[idx] = st
		}
		processed.Add(1)
	})
	if st := firstErr.Load(); st != nil {
		return nil, st.AsError()
	}
	s.nextStartNodeIndex = (start + int(processed.Load())) % numAll
	n := min(int(found.Load()), want)
	for i, st := range statuses {
		if st != nil {
			diagnosis.NodeToStatus[nodes[i].Name()] = st
			diagnosis.AddPluginStatus(st)
		}
	}
	return feasible[:n], nil
}
