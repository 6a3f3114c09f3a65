// Package defaultpreemption is the DefaultPreemption PostFilter plugin: when
// a pod fits nowhere, it evicts the fewest, least important pods of lower
// priority from the node where that makes the pod fit, and nominates it.
package defaultpreemption

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "DefaultPreemption"

// Messages of the statuses the plugin returns, as Kubernetes words them.
const (
	msgPolicyNever        = "not eligible due to preemptionPolicy=Never."
	msgTerminatingVictim  = "not eligible due to a terminating pod on the nominated node."
	reasonNotHelpful      = "Preemption is not helpful for scheduling"
	reasonNoVictims       = "No preemption victims found for incoming pod"
	minCandidatesPercent  = 10
	minCandidatesAbsolute = 100
)

// Args configure the plugin.
type Args struct {
	// PodDisruptionBudgets returns the budgets that preemption tries not to
	// violate; nil means none are known.
	PodDisruptionBudgets func() []*policyv1.PodDisruptionBudget
}

// DefaultPreemption is the plugin.
type DefaultPreemption struct {
	h    framework.Handle
	args Args
}

var _ framework.PostFilterPlugin = (*DefaultPreemption)(nil)

// New returns a constructor of the plugin with args.
func New(args Args) func(framework.Handle) (framework.Plugin, error) {
	return func(h framework.Handle) (framework.Plugin, error) {
		return &DefaultPreemption{h: h, args: args}, nil
	}
}

// Name implements framework.Plugin.
func (*DefaultPreemption) Name() string { return Name }

// candidate is a node where evicting victims makes the pod fit.
type candidate struct {
	node       string
	victims    []*framework.PodInfo
	violations int
}

// PostFilter implements framework.PostFilterPlugin.
func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, statuses map[string]*framework.Status) (*framework.PostFilterResult, *framework.Status) {
	if msg, ok := pl.eligible(pod, statuses); !ok {
		return nil, framework.NewStatus(framework.Unschedulable, "preemption: "+msg)
	}
	nodes := pl.h.SnapshotSharedLister().List()
	cands, nodeStatuses, st := pl.findCandidates(ctx, state, pod, nodes, statuses)
	if !st.IsSuccess() {
		return nil, st
	}
	if len(cands) == 0 {
		fe := &framework.FitError{Pod: pod, NumAllNodes: len(nodes), Diagnosis: framework.Diagnosis{NodeToStatus: nodeStatuses}}
		return nil, framework.NewStatus(framework.Unschedulable, "preemption: "+fe.Error())
	}
	best := pickCandidate(cands)
	if st := pl.evict(ctx, pod, best); !st.IsSuccess() {
		return nil, st
	}
	return &framework.PostFilterResult{NominatedNodeName: best.node}, nil
}

// eligible reports whether pod may preempt: its policy allows it, and the
// victims of its last preemption are not still terminating.
func (pl *DefaultPreemption) eligible(pod *corev1.Pod, statuses map[string]*framework.Status) (string, bool) {
	if p := pod.Spec.PreemptionPolicy; p != nil && *p == corev1.PreemptNever {
		return msgPolicyNever, false
	}
	nn := pod.Status.NominatedNodeName
	if nn == "" || statuses[nn].Code() == framework.UnschedulableAndUnresolvable {
		return "", true
	}
	ni, err := pl.h.SnapshotSharedLister().Get(nn)
	if err != nil {
		return "", true
	}
	prio := framework.PodPriority(pod)
	for _, p := range ni.Pods {
		if p.Pod.DeletionTimestamp != nil && framework.PodPriority(p.Pod) < prio {
			return msgTerminatingVictim, false
		}
	}
	return "", true
}

// findCandidates dry-runs preemption on the nodes a preemption may help,
// in parallel from a random offset, until enough candidates are found:
// 10% of the nodes, at least 100. It also returns why the other nodes
// cannot be helped.
func (pl *DefaultPreemption) findCandidates(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo, statuses map[string]*framework.Status) ([]candidate, map[string]*framework.Status, *framework.Status) {
	out := map[string]*framework.Status{}
	var potential []*framework.NodeInfo
	for _, n := range nodes {
		if st, ok := statuses[n.Name()]; ok && st.Code() == framework.UnschedulableAndUnresolvable {
			out[n.Name()] = framework.NewStatus(framework.UnschedulableAndUnresolvable, reasonNotHelpful)
			continue
		}
		potential = append(potential, n)
	}
	if len(potential) == 0 {
		return nil, out, nil
	}
	want := min(len(potential), max(len(nodes)*minCandidatesPercent/100, minCandidatesAbsolute))
	budgets := pl.budgets()
	offset := rand.IntN(len(potential))

	var (
		mu       sync.Mutex
		cands    []candidate
		found    atomic.Int64
		firstErr *framework.Status
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pl.h.Parallelizer().Until(ctx, len(potential), func(i int) {
		ni := potential[(offset+i)%len(potential)]
		victims, violations, st := pl.selectVictims(ctx, state, pod, ni, budgets)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case st.Code() == framework.Error:
			if firstErr == nil {
				firstErr = st
			}
			cancel()
		case !st.IsSuccess():
			out[ni.Name()] = st
		default:
			cands = append(cands, candidate{node: ni.Name(), victims: victims, violations: violations})
			if found.Add(1) >= int64(want) {
				cancel()
			}
		}
	})
	if firstErr != nil {
		return nil, nil, firstErr
	}
	return cands, out, nil
}

// budget is a disruption budget: the pods it covers and the disruptions
// it still allows.
type budget struct {
	namespace string
	selector  labels.Selector
	allowed   int32
	disrupted map[string]metav1.Time
}

// budgets returns the known budgets with a usable selector.
func (pl *DefaultPreemption) budgets() []budget {
	if pl.args.PodDisruptionBudgets == nil {
		return nil
	}
	var out []budget
	for _, pdb := range pl.args.PodDisruptionBudgets() {
		if pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		out = append(out, budget{namespace: pdb.Namespace, selector: sel, allowed: pdb.Status.DisruptionsAllowed, disrupted: pdb.Status.DisruptedPods})
	}
	return out
}

// isGone reports an error saying the victim is already deleted or
// replaced by another pod of its name.
func isGone(err error) bool { return apierrors.IsNotFound(err) || apierrors.IsConflict(err) }

// selectVictims finds the fewest, least important lower-priority pods on
// ni whose eviction lets pod fit: it removes them all, checks the pod
// fits, then puts back as many as it can, the most important first and
// those protected by a disruption budget before the others. It returns
// the victims and how many of them violate a budget.
func (pl *DefaultPreemption) selectVictims(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, orig *framework.NodeInfo, budgets []budget) ([]*framework.PodInfo, int, *framework.Status) {
	prio := framework.PodPriority(pod)
	var lower []*framework.PodInfo
	for _, p := range orig.Pods {
		if framework.PodPriority(p.Pod) < prio {
			lower = append(lower, p)
		}
	}
	if len(lower) == 0 {
		return nil, 0, framework.NewStatus(framework.Unschedulable, reasonNoVictims)
	}
	ni, st := orig.Clone(), state.Clone()
	remove := func(p *framework.PodInfo) *framework.Status {
		ni.RemovePod(p.Pod)
		return pl.h.RunPreFilterExtensionRemovePod(ctx, st, pod, p, ni)
	}
	for _, p := range lower {
		if s := remove(p); !s.IsSuccess() {
			return nil, 0, s
		}
	}
	if s := pl.h.RunFilterPluginsWithNominatedPods(ctx, st, pod, ni); !s.IsSuccess() {
		if s.Code() == framework.Error {
			return nil, 0, s
		}
		return nil, 0, framework.NewStatus(framework.Unschedulable, reasonNoVictims)
	}
	slices.SortStableFunc(lower, moreImportant)
	violating, free := splitByBudget(lower, budgets)
	var victims []*framework.PodInfo
	// reprieve puts p back; if the pod no longer fits, p is a victim.
	reprieve := func(p *framework.PodInfo) (bool, *framework.Status) {
		ni.AddPodInfo(p)
		if s := pl.h.RunPreFilterExtensionAddPod(ctx, st, pod, p, ni); !s.IsSuccess() {
			return false, s
		}
		s := pl.h.RunFilterPluginsWithNominatedPods(ctx, st, pod, ni)
		switch {
		case s.IsSuccess():
			return true, nil
		case s.Code() == framework.Error:
			return false, s
		}
		if s := remove(p); !s.IsSuccess() {
			return false, s
		}
		victims = append(victims, p)
		return false, nil
	}
	violations := 0
	for _, p := range violating {
		kept, s := reprieve(p)
		if s != nil {
			return nil, 0, s
		}
		if !kept {
			violations++
		}
	}
	for _, p := range free {
		if _, s := reprieve(p); s != nil {
			return nil, 0, s
		}
	}
	return victims, violations, nil
}

// moreImportant orders pods by priority, then the longer running first.
func moreImportant(a, b *framework.PodInfo) int {
	if c := cmp.Compare(framework.PodPriority(b.Pod), framework.PodPriority(a.Pod)); c != 0 {
		return c
	}
	return startTime(a.Pod).Compare(startTime(b.Pod).Time)
}

// startTime is when the pod started, or was created if it has not.
func startTime(pod *corev1.Pod) metav1.Time {
	if pod.Status.StartTime != nil {
		return *pod.Status.StartTime
	}
	return pod.CreationTimestamp
}

// splitByBudget splits pods, in order, into those whose eviction would
// exceed a disruption budget and the others, counting each eviction
// against every budget that covers the pod.
func splitByBudget(pods []*framework.PodInfo, budgets []budget) (violating, free []*framework.PodInfo) {
	if len(budgets) == 0 {
		return nil, pods
	}
	allowed := make([]int32, len(budgets))
	for i := range budgets {
		allowed[i] = budgets[i].allowed
	}
	for _, p := range pods {
		violates := false
		for i := range budgets {
			b := &budgets[i]
			if b.namespace != p.Pod.Namespace || !b.selector.Matches(labels.Set(p.Pod.Labels)) {
				continue
			}
			if _, done := b.disrupted[p.Pod.Name]; done {
				// Already counted by the budget's controller.
				continue
			}
			allowed[i]--
			if allowed[i] < 0 {
				violates = true
			}
		}
		if violates {
			violating = append(violating, p)
		} else {
			free = append(free, p)
		}
	}
	return violating, free
}

// pickCandidate chooses, as Kubernetes does: the fewest budget
// violations, then the lowest highest victim priority, then the lowest sum
// of priorities, then the fewest victims, then the most recently started
// most important victims, then the first.
func pickCandidate(cands []candidate) candidate {
	if len(cands) == 1 {
		return cands[0]
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if len(c.victims) == 0 {
			return c
		}
		if compareCandidates(c, best) < 0 {
			best = c
		}
	}
	return best
}

// compareCandidates is negative when a is the better node to preempt on.
func compareCandidates(a, b candidate) int {
	if c := cmp.Compare(a.violations, b.violations); c != 0 {
		return c
	}
	if c := cmp.Compare(highest(a.victims), highest(b.victims)); c != 0 {
		return c
	}
	if c := cmp.Compare(prioritySum(a.victims), prioritySum(b.victims)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.victims), len(b.victims)); c != 0 {
		return c
	}
	// Later is better: those victims have done less work.
	return earliestOfHighest(b.victims).Compare(earliestOfHighest(a.victims).Time)
}

func highest(victims []*framework.PodInfo) int32 {
	h := int32(math.MinInt32)
	for _, v := range victims {
		h = max(h, framework.PodPriority(v.Pod))
	}
	return h
}

// prioritySum adds the priorities shifted to be positive, so that more
// victims never make a smaller sum.
func prioritySum(victims []*framework.PodInfo) int64 {
	var s int64
	for _, v := range victims {
		s += int64(framework.PodPriority(v.Pod)) + math.MaxInt32 + 1
	}
	return s
}

// earliestOfHighest is the earliest start among the highest-priority
// victims.
func earliestOfHighest(victims []*framework.PodInfo) metav1.Time {
	h := highest(victims)
	var t metav1.Time
	for _, v := range victims {
		if framework.PodPriority(v.Pod) != h {
			continue
		}
		if s := startTime(v.Pod); t.IsZero() || s.Before(&t) {
			t = s
		}
	}
	return t
}

// evict deletes the candidate's victims, each with its own grace period,
// after marking each with the DisruptionTarget condition (reason
// PreemptionByScheduler) as Kubernetes does, so that the owners of a
// victim (a Job's pod failure policy) can tell why it stopped; and takes
// the node away from lower-priority pods nominated to it: they will not
// fit there once the preemptor does.
func (pl *DefaultPreemption) evict(ctx context.Context, pod *corev1.Pod, c candidate) *framework.Status {
	logger := klog.FromContext(ctx)
	cs := pl.h.ClientSet()
	errs := make([]error, len(c.victims))
	pl.h.Parallelizer().Until(ctx, len(c.victims), func(i int) {
		v := c.victims[i].Pod
		if patch := disruptionPatch(v, pod); patch != nil {
			if err := cs.PatchPodStatus(ctx, v, patch); err != nil {
				if isGone(err) {
					return
				}
				errs[i] = fmt.Errorf("mark preempted pod %s: %w", framework.PodKey(v), err)
				return
			}
		}
		if err := cs.DeletePod(ctx, v, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &v.UID}}); err != nil && !isGone(err) {
			errs[i] = fmt.Errorf("preempt pod %s: %w", framework.PodKey(v), err)
			return
		}
		logger.V(2).Info("Preempted pod", "victim", klog.KObj(v), "preemptor", klog.KObj(pod), "node", c.node)
		pl.h.EventRecorder().Eventf(v, corev1.EventTypeNormal, "Preempted", "Preempted by pod %s on node %s", pod.UID, c.node)
	})
	for _, err := range errs {
		if err != nil {
			return framework.AsStatus(err)
		}
	}
	if nom := pl.h.Nominator(); nom != nil {
		prio := framework.PodPriority(pod)
		clear, _ := json.Marshal(map[string]any{"status": map[string]any{"nominatedNodeName": nil}})
		for _, np := range nom.NominatedPodsForNode(c.node) {
			if np.Pod.UID == pod.UID || framework.PodPriority(np.Pod) >= prio {
				continue
			}
			nom.AddNominatedPod(np, "")
			if np.Pod.Status.NominatedNodeName != "" {
				if err := cs.PatchPodStatus(ctx, np.Pod, clear); err != nil && !isGone(err) {
					logger.Error(err, "Failed to clear the nominated node of a lower-priority pod", "pod", klog.KObj(np.Pod))
				}
			}
		}
	}
	return nil
}

// disruptionPatch is the status patch that sets the DisruptionTarget
// condition of victim, preempted for preemptor, or nil when the condition
// is already true.
func disruptionPatch(victim, preemptor *corev1.Pod) []byte {
	for _, cond := range victim.Status.Conditions {
		if cond.Type == corev1.DisruptionTarget && cond.Status == corev1.ConditionTrue {
			return nil
		}
	}
	cond := corev1.PodCondition{
		Type:               corev1.DisruptionTarget,
		Status:             corev1.ConditionTrue,
		Reason:             corev1.PodReasonPreemptionByScheduler,
		Message:            fmt.Sprintf("%s: preempting to accommodate a higher priority pod", preemptor.Spec.SchedulerName),
		LastTransitionTime: metav1.Now(),
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
	if err != nil {
		return nil
	}
	return patch
}
