package daemonset

import (
	"fmt"
	"slices"
	"sort"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// decision is where a node stands for a DaemonSet (see placement.decide).
type decision struct{ run, keep bool }

// plan is what one sync does to a DaemonSet's pods: delete some and
// create one on each of some nodes.
type plan struct {
	deletes []*corev1.Pod
	creates []string
	// retryAfter, when positive, is when a failed pod in back-off may be
	// replaced: the DaemonSet is looked at again then.
	retryAfter time.Duration
}

func (p *plan) empty() bool { return len(p.deletes) == 0 && len(p.creates) == 0 }

func (p *plan) retryIn(d time.Duration) {
	if d > 0 && (p.retryAfter == 0 || d < p.retryAfter) {
		p.retryAfter = d
	}
}

// podsByNode groups the pods of a DaemonSet by the node they are for;
// pods that finished and are being deleted are left out (nothing more is
// done with them), and so are pods for no node.
func podsByNode(pods []*corev1.Pod) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if p.DeletionTimestamp != nil && isFinished(p) {
			continue
		}
		if node, ok := targetNode(p); ok {
			out[node] = append(out[node], p)
		}
	}
	return out
}

func isFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

// oldestFirst sorts pods bound ones first, then by creation, then name:
// the first is the one a node keeps.
func oldestFirst(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			return a.Spec.NodeName != ""
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

func isUpdated(pod *corev1.Pod, hash string) bool {
	return hash != "" && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash
}

func rollingParams(ds *appsv1.DaemonSet) *appsv1.RollingUpdateDaemonSet {
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return nil
	}
	return ds.Spec.UpdateStrategy.RollingUpdate
}

// updateLimits resolves maxSurge and maxUnavailable against the desired
// number of nodes, both rounded up as Kubernetes does; with both 0 (which
// validation refuses) one node at a time may be unavailable.
func updateLimits(ds *appsv1.DaemonSet, desired int) (surge, unavailable int, err error) {
	r := rollingParams(ds)
	if r == nil {
		return 0, 0, nil
	}
	zero, one := intstr.FromInt32(0), intstr.FromInt32(1)
	if surge, err = intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(r.MaxSurge, zero), desired, true); err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	if unavailable, err = intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(r.MaxUnavailable, one), desired, true); err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if desired > 0 && surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}

// allowsSurge reports whether a rolling update may start the new pod of a
// node before the old one goes.
func allowsSurge(ds *appsv1.DaemonSet) bool {
	surge, _, err := updateLimits(ds, 1)
	return err == nil && surge > 0
}

// placePods adds to pl what node's pods need: a pod where there should
// be one and is none; the replacement of a failed pod (unless in
// back-off: failed says when it may go); at most one pod (two during a
// surge) where pods may stay, the oldest kept; none where they may not.
func placePods(pl *plan, ds *appsv1.DaemonSet, node string, d decision, pods []*corev1.Pod, hash string, now time.Time, failed func(node string) time.Duration) {
	switch {
	case d.run && len(pods) == 0:
		pl.creates = append(pl.creates, node)
	case d.keep:
		var running []*corev1.Pod
		for _, pod := range pods {
			switch {
			case pod.DeletionTimestamp != nil:
			case pod.Status.Phase == corev1.PodFailed:
				if wait := failed(node); wait > 0 {
					pl.retryIn(wait)
				} else {
					pl.deletes = append(pl.deletes, pod)
				}
			case pod.Status.Phase == corev1.PodSucceeded:
				pl.deletes = append(pl.deletes, pod)
			default:
				running = append(running, pod)
			}
		}
		oldestFirst(running)
		if !allowsSurge(ds) {
			if len(running) > 1 {
				pl.deletes = append(pl.deletes, running[1:]...)
			}
			return
		}
		if len(running) <= 1 {
			if len(running) == 0 && d.run {
				pl.creates = append(pl.creates, node)
			}
			return
		}
		// Surging: an old and a new pod may run together while the new
		// one becomes available, or while the old one is not ready;
		// every other pod goes.
		var oldestNew, oldestOld *corev1.Pod
		for _, pod := range running {
			switch {
			case isUpdated(pod, hash) && oldestNew == nil:
				oldestNew = pod
			case !isUpdated(pod, hash) && oldestOld == nil:
				oldestOld = pod
			default:
				pl.deletes = append(pl.deletes, pod)
			}
		}
		if oldestNew != nil && oldestOld != nil &&
			(!podcontrol.IsPodReady(oldestOld) || podcontrol.IsPodAvailable(oldestNew, ds.Spec.MinReadySeconds, now)) {
			pl.deletes = append(pl.deletes, oldestOld)
		}
	default:
		for _, pod := range pods {
			if pod.DeletionTimestamp == nil {
				pl.deletes = append(pl.deletes, pod)
			}
		}
	}
}

// manage plans, for every node of decisions and every node byNode holds
// pods for, the pods to create and delete (see placePods); pods for
// nodes that no longer exist are deleted.
func manage(ds *appsv1.DaemonSet, decisions map[string]decision, byNode map[string][]*corev1.Pod, hash string, now time.Time, failed func(node string) time.Duration) plan {
	var pl plan
	for _, node := range sortedKeys(decisions) {
		placePods(&pl, ds, node, decisions[node], byNode[node], hash, now, failed)
	}
	for _, node := range sortedKeys(byNode) {
		if _, ok := decisions[node]; !ok {
			placePods(&pl, ds, node, decision{}, byNode[node], hash, now, failed)
		}
	}
	return pl
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// splitPods returns a node's pods not being deleted, updated (at hash)
// and old; ok is false when there are two of either, which placePods
// prunes first.
func splitPods(pods []*corev1.Pod, hash string) (updated, old *corev1.Pod, ok bool) {
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if isUpdated(pod, hash) {
			if updated != nil {
				return nil, nil, false
			}
			updated = pod
		} else {
			if old != nil {
				return nil, nil, false
			}
			old = pod
		}
	}
	return updated, old, true
}

// rollingUpdate plans the next step of a rolling update to hash on the
// nodes where daemon pods belong (decisions with run or keep). Without
// surge it deletes old pods, unavailable ones first, while fewer than
// maxUnavailable nodes lack an available pod (a node with no pod, or
// being replaced, counts); placePods then creates the new pods. With
// surge it creates new pods beside old available ones, at most maxSurge
// at once (at once for old pods that are unavailable), and deletes each
// old pod once its new one is available.
func rollingUpdate(ds *appsv1.DaemonSet, decisions map[string]decision, byNode map[string][]*corev1.Pod, hash string, now time.Time) (plan, error) {
	var nodes []string
	desired := 0
	for _, node := range sortedKeys(decisions) {
		d := decisions[node]
		if d.run {
			desired++
		}
		if d.run || d.keep && len(byNode[node]) > 0 {
			nodes = append(nodes, node)
		}
	}
	maxSurge, maxUnavailable, err := updateLimits(ds, desired)
	if err != nil {
		return plan{}, fmt.Errorf("rolling update of %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	available := func(p *corev1.Pod) bool { return podcontrol.IsPodAvailable(p, ds.Spec.MinReadySeconds, now) }
	var pl plan
	if maxSurge == 0 {
		unavailable := 0
		var replace, candidates []*corev1.Pod
		for _, node := range nodes {
			updated, old, ok := splitPods(byNode[node], hash)
			switch {
			case !ok, updated == nil && old == nil, updated != nil && old != nil:
				// placePods acts on this node first.
				unavailable++
			case updated != nil:
				if !available(updated) {
					unavailable++
				}
			case !available(old):
				replace = append(replace, old)
			case unavailable < maxUnavailable:
				candidates = append(candidates, old)
			}
		}
		n := min(max(maxUnavailable-unavailable, 0), len(candidates))
		pl.deletes = append(replace, candidates[:n]...)
		return pl, nil
	}

	surged, availableNodes := 0, 0
	var toDelete, stranded []*corev1.Pod
	var replaceNodes, candidateNodes []string
	for _, node := range nodes {
		updated, old, ok := splitPods(byNode[node], hash)
		if !ok {
			surged++
			continue
		}
		if old != nil && available(old) || old == nil && updated != nil && available(updated) {
			availableNodes++
		}
		switch {
		case old == nil:
			// placePods creates the node's pod if it has none.
		case updated == nil && !available(old):
			if !decisions[node].run {
				toDelete = append(toDelete, old)
				continue
			}
			replaceNodes = append(replaceNodes, node)
		case updated == nil:
			if !decisions[node].run {
				stranded = append(stranded, old)
				continue
			}
			if surged < maxSurge {
				candidateNodes = append(candidateNodes, node)
			}
		case !available(updated):
			surged++
		default:
			toDelete = append(toDelete, old)
		}
	}
	// Available old pods on nodes that no longer take new ones go only
	// while more nodes are available than desired.
	if extra := min(availableNodes-desired, len(stranded)); extra > 0 {
		toDelete = append(toDelete, stranded[:extra]...)
	}
	n := min(max(maxSurge-surged, 0), len(candidateNodes))
	pl.deletes = toDelete
	pl.creates = append(replaceNodes, candidateNodes[:n]...)
	return pl, nil
}
