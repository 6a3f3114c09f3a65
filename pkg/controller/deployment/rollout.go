package deployment

import (
	"context"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
)

// rolloutRolling takes one step of a rolling update: grow the new
// ReplicaSet within maxSurge, or shrink the old ones within
// maxUnavailable, then report status.
func (c *Controller) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, old, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	all := append(append([]*appsv1.ReplicaSet(nil), old...), newRS)
	scaledUp, newRS, err := c.reconcileNewReplicaSet(ctx, d, all, newRS)
	if err != nil {
		return err
	}
	if scaledUp {
		return c.syncRolloutStatus(ctx, d, append(old, newRS), newRS)
	}
	scaledDown, old, err := c.reconcileOldReplicaSets(ctx, d, old, newRS)
	if err != nil {
		return err
	}
	all = append(old, newRS)
	if scaledDown {
		return c.syncRolloutStatus(ctx, d, all, newRS)
	}
	if st := calculateStatus(d, all, newRS, c.now()); deploymentComplete(d, &st) {
		if err := c.cleanupDeployment(ctx, d, old); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, d, all, newRS)
}

// reconcileNewReplicaSet grows the new ReplicaSet as far as maxSurge
// allows (or shrinks it to the desired size).
func (c *Controller) reconcileNewReplicaSet(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, *appsv1.ReplicaSet, error) {
	replicas := replicasOf(d.Spec.Replicas)
	cur := replicasOf(newRS.Spec.Replicas)
	if cur == replicas {
		return false, newRS, nil
	}
	target := replicas
	if cur < replicas {
		target = newRSReplicas(d, all, newRS)
	}
	changed, out, err := c.scaleReplicaSet(ctx, newRS, target, d, scalingOperation(cur, target))
	if err != nil {
		return false, nil, err
	}
	return changed, out, nil
}

// reconcileOldReplicaSets shrinks the old ReplicaSets as far as
// maxUnavailable allows: first their unavailable pods, then available ones.
func (c *Controller) reconcileOldReplicaSets(ctx context.Context, d *appsv1.Deployment, old []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, []*appsv1.ReplicaSet, error) {
	oldCount := sumReplicas(old)
	if oldCount == 0 {
		return false, old, nil
	}
	replicas := replicasOf(d.Spec.Replicas)
	minAvailable := replicas - maxUnavailable(d)
	allCount := oldCount + replicasOf(newRS.Spec.Replicas)
	newUnavailable := replicasOf(newRS.Spec.Replicas) - newRS.Status.AvailableReplicas
	// The most the old ReplicaSets may lose now, counting their pods as
	// available (the spec sizes are current; their statuses may lag).
	budget := allCount - minAvailable - newUnavailable
	if budget <= 0 {
		return false, old, nil
	}
	old = append([]*appsv1.ReplicaSet(nil), old...)
	byCreation(old)

	// Unavailable old pods go first: they cost no availability.
	total := int32(0)
	for i, rs := range old {
		if total >= budget {
			break
		}
		size := replicasOf(rs.Spec.Replicas)
		unavailable := size - rs.Status.AvailableReplicas
		if size == 0 || unavailable <= 0 {
			continue
		}
		n := min(budget-total, unavailable)
		_, out, err := c.scaleReplicaSet(ctx, rs, size-n, d, "down")
		if err != nil {
			return false, nil, err
		}
		old[i] = out
		total += n
	}

	// Then available ones, keeping minAvailable.
	available := sumStatus(old, func(s appsv1.ReplicaSetStatus) int32 { return s.AvailableReplicas }) + newRS.Status.AvailableReplicas
	allowed := min(available-minAvailable, budget-total)
	for i, rs := range old {
		if allowed <= 0 {
			break
		}
		size := replicasOf(rs.Spec.Replicas)
		if size == 0 {
			continue
		}
		n := min(size, allowed)
		_, out, err := c.scaleReplicaSet(ctx, rs, size-n, d, "down")
		if err != nil {
			return false, nil, err
		}
		old[i] = out
		total += n
		allowed -= n
	}
	return total > 0, old, nil
}

// rolloutRecreate scales every old ReplicaSet to zero, waits until none of
// their pods runs, then scales the new ReplicaSet up.
func (c *Controller) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, old, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	scaledDown := false
	for i, rs := range old {
		if replicasOf(rs.Spec.Replicas) == 0 {
			continue
		}
		changed, out, err := c.scaleReplicaSet(ctx, rs, 0, d, "down")
		if err != nil {
			return err
		}
		old[i] = out
		scaledDown = scaledDown || changed
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, d, append(old, newRS), newRS)
	}
	running, err := c.oldPodsRunning(newRS, old)
	if err != nil {
		return err
	}
	if running {
		return c.syncRolloutStatus(ctx, d, append(old, newRS), newRS)
	}
	if newRS == nil {
		if newRS, old, err = c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true); err != nil {
			return err
		}
	}
	if replicas := replicasOf(d.Spec.Replicas); replicasOf(newRS.Spec.Replicas) != replicas {
		_, out, err := c.scaleReplicaSet(ctx, newRS, replicas, d, scalingOperation(replicasOf(newRS.Spec.Replicas), replicas))
		if err != nil {
			return err
		}
		newRS = out
	}
	all := append(append([]*appsv1.ReplicaSet(nil), old...), newRS)
	if st := calculateStatus(d, all, newRS, c.now()); deploymentComplete(d, &st) {
		if err := c.cleanupDeployment(ctx, d, old); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, d, all, newRS)
}

// oldPodsRunning reports whether an old ReplicaSet still has pods, or any
// pod of one (terminating ones included) has not finished.
func (c *Controller) oldPodsRunning(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) (bool, error) {
	if sumStatus(old, func(s appsv1.ReplicaSetStatus) int32 { return s.Replicas }) > 0 {
		return true, nil
	}
	if len(old) == 0 {
		return false, nil
	}
	oldUIDs := map[string]bool{}
	for _, rs := range old {
		oldUIDs[string(rs.UID)] = true
	}
	pods, err := c.podLister.Namespaced(old[0].Namespace).List(labels.Everything())
	if err != nil {
		return false, err
	}
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || !oldUIDs[string(ref.UID)] || (newRS != nil && ref.UID == newRS.UID) {
			continue
		}
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			return true, nil
		}
	}
	return false, nil
}
