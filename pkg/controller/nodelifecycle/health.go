package nodelifecycle

import (
	"slices"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// The taints the controller keeps in line with a node's Ready condition.
var (
	unreachableNoExecute = corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	notReadyNoExecute    = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	unreachableNoSched   = corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}
	notReadyNoSched      = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	managedTaints        = []corev1.Taint{unreachableNoExecute, notReadyNoExecute, unreachableNoSched, notReadyNoSched}
)

// conditionsMarkedUnknown are the conditions a node that stopped reporting
// gets as Unknown, as Kubernetes' node lifecycle controller does.
var conditionsMarkedUnknown = []corev1.NodeConditionType{
	corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure,
}

// readyCondition returns the node's Ready condition, nil if it has none.
func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

// readyStatus is the status of the node's Ready condition, Unknown when
// it has none.
func readyStatus(node *corev1.Node) corev1.ConditionStatus {
	if c := readyCondition(node); c != nil {
		return c.Status
	}
	return corev1.ConditionUnknown
}

// markUnknown sets the node's conditions to Unknown after it stopped
// reporting; it reports whether anything changed.
func markUnknown(node *corev1.Node, now time.Time) bool {
	changed := false
	t := metav1.NewTime(now)
	for _, typ := range conditionsMarkedUnknown {
		i := slices.IndexFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == typ })
		if i < 0 {
			node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{
				Type: typ, Status: corev1.ConditionUnknown, Reason: "NodeStatusNeverUpdated",
				Message: "Kubelet never posted node status.", LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: t,
			})
			changed = true
			continue
		}
		c := &node.Status.Conditions[i]
		if c.Status == corev1.ConditionUnknown {
			continue
		}
		c.Status, c.Reason, c.Message, c.LastTransitionTime = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", t
		changed = true
	}
	return changed
}

// noExecuteMode says which NoExecute taints a node may get now.
type noExecuteMode int

const (
	// noExecuteAdd lets a NoExecute taint be added.
	noExecuteAdd noExecuteMode = iota
	// noExecuteKeep keeps those already there but adds none (the rate
	// limit is spent).
	noExecuteKeep
	// noExecuteNone removes them all (every node is down: the control
	// plane is likely the one cut off).
	noExecuteNone
)

// desiredTaints returns the node's taints with the managed ones set as its
// Ready condition asks: not-ready for False, unreachable for Unknown, none
// for True, the NoExecute one as mode allows; a NoExecute taint already
// there keeps its TimeAdded.
func desiredTaints(node *corev1.Node, mode noExecuteMode, now time.Time) []corev1.Taint {
	var want []corev1.Taint
	switch readyStatus(node) {
	case corev1.ConditionFalse:
		want = []corev1.Taint{notReadyNoSched, notReadyNoExecute}
	case corev1.ConditionUnknown:
		want = []corev1.Taint{unreachableNoSched, unreachableNoExecute}
	}
	var out []corev1.Taint
	for _, t := range node.Spec.Taints {
		if !isManaged(t) {
			out = append(out, t)
		}
	}
	for _, w := range want {
		i := slices.IndexFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&w) })
		if w.Effect == corev1.TaintEffectNoExecute && (mode == noExecuteNone || (mode == noExecuteKeep && i < 0)) {
			continue
		}
		if i >= 0 {
			out = append(out, node.Spec.Taints[i])
			continue
		}
		if w.Effect == corev1.TaintEffectNoExecute {
			added := metav1.NewTime(now)
			w.TimeAdded = &added
		}
		out = append(out, w)
	}
	return out
}

func isManaged(t corev1.Taint) bool {
	return slices.ContainsFunc(managedTaints, func(m corev1.Taint) bool { return m.MatchTaint(&t) })
}

// sameTaints compares taints by key and effect.
func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.ContainsFunc(b, func(t corev1.Taint) bool { return t.MatchTaint(&a[i]) && t.Value == a[i].Value }) {
			return false
		}
	}
	return true
}

// hasNoExecute reports whether taints hold a managed NoExecute taint.
func hasNoExecute(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool {
		return t.MatchTaint(&unreachableNoExecute) || t.MatchTaint(&notReadyNoExecute)
	})
}

// disruption is how unhealthy the cluster is, which decides the eviction
// rate: normal, reduced for a large cluster mostly down, or none when
// every node is down (the control plane is likely the one cut off).
type disruption int

const (
	disruptionNone disruption = iota
	disruptionPartial
	disruptionFull
)

// unhealthyThreshold is the fraction of not-Ready nodes from which a
// cluster counts as partially disrupted, as Kubernetes' default.
const unhealthyThreshold = 0.55

// largeClusterThreshold is the node count above which a partially
// disrupted cluster still evicts, at the secondary rate.
const largeClusterThreshold = 50

func disruptionOf(nodes []*corev1.Node) disruption {
	if len(nodes) == 0 {
		return disruptionNone
	}
	unhealthy := 0
	for _, n := range nodes {
		if readyStatus(n) != corev1.ConditionTrue {
			unhealthy++
		}
	}
	switch {
	case unhealthy == len(nodes):
		return disruptionFull
	case unhealthy >= 3 && float64(unhealthy)/float64(len(nodes)) >= unhealthyThreshold:
		return disruptionPartial
	}
	return disruptionNone
}

// limiter lets one action through every 1/qps seconds (burst one); qps 0
// lets nothing through.
type limiter struct {
	mu   sync.Mutex
	qps  float64
	next time.Time
}

// allow reports whether an action may happen at now, and otherwise how
// long to wait.
func (l *limiter) allow(now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.qps <= 0 {
		return false, time.Minute
	}
	if now.Before(l.next) {
		return false, l.next.Sub(now)
	}
	l.next = now.Add(time.Duration(float64(time.Second) / l.qps))
	return true, 0
}

func (l *limiter) setQPS(qps float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.qps = qps
}
