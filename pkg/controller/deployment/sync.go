package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"
)

// splitReplicaSets returns the ReplicaSet whose template is d's (the
// oldest, should there be several) and the others.
func splitReplicaSets(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet) {
	sorted := append([]*appsv1.ReplicaSet(nil), rsList...)
	byCreation(sorted)
	var newRS *appsv1.ReplicaSet
	var old []*appsv1.ReplicaSet
	for _, rs := range sorted {
		if newRS == nil && equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}

// getAllReplicaSetsAndSyncRevision returns the new ReplicaSet (created
// when create is set and there is none) and the old ones, and brings the
// revision annotations of the new ReplicaSet and of d up to date.
func (c *Controller) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	existing, old := splitReplicaSets(d, rsList)
	newRS, err := c.getNewReplicaSet(ctx, d, existing, old, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, old, nil
}

func (c *Controller) getNewReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	newRevision := maxRevision(old) + 1
	if existing != nil {
		rs := existing.DeepCopy()
		changed := setNewReplicaSetAnnotations(d, rs, newRevision, true)
		if rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			changed = true
		}
		if changed {
			updated, err := c.replicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
			if err != nil {
				return nil, fmt.Errorf("update replica set %s/%s: %w", rs.Namespace, rs.Name, err)
			}
			rs = updated
		}
		if err := c.syncDeploymentRevision(ctx, d, rs.Annotations[appsv1.RevisionAnnotation]); err != nil {
			return nil, err
		}
		if hasProgressDeadline(d) && getCondition(&d.Status, appsv1.DeploymentProgressing) == nil {
			setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, appsv1.FoundNewRSReason,
				fmt.Sprintf("Found new replica set %q", rs.Name), c.now()))
			if err := c.updateStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return rs, nil
	}
	if !create {
		return nil, nil
	}

	hash := templateHash(&d.Spec.Template, d.Status.CollisionCount)
	template := d.Spec.Template.DeepCopy()
	template.Labels = cloneLabels(template.Labels)
	template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	selector := d.Spec.Selector.DeepCopy()
	selector.MatchLabels = cloneLabels(selector.MatchLabels)
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	zero := int32(0)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       d.Namespace,
			Name:            d.Name + "-" + hash,
			Labels:          cloneLabels(template.Labels),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, controllerKind)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: *template},
	}
	replicas := newRSReplicas(d, append(append([]*appsv1.ReplicaSet(nil), old...), rs), rs)
	rs.Spec.Replicas = &replicas
	setNewReplicaSetAnnotations(d, rs, newRevision, false)

	created, err := c.replicaSets(d.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Either the cache has not seen our own ReplicaSet yet, or another
		// object has the name: then bump the collision count, which
		// changes the hash, and try again.
		found, getErr := c.replicaSets(d.Namespace).Get(ctx, rs.Name, metav1.GetOptions{})
		if getErr != nil {
			return nil, fmt.Errorf("get replica set %s/%s: %w", rs.Namespace, rs.Name, getErr)
		}
		if metav1.IsControlledBy(found, d) && equalIgnoreHash(&found.Spec.Template, &d.Spec.Template) {
			return found, nil
		}
		n := int32(0)
		if d.Status.CollisionCount != nil {
			n = *d.Status.CollisionCount
		}
		n++
		d.Status.CollisionCount = &n
		if err := c.updateStatus(ctx, d); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("replica set %s/%s exists with another template: collision count raised to %d", rs.Namespace, rs.Name, n)
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
		if hasProgressDeadline(d) {
			setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, appsv1.FailedRSCreateReason, msg, c.now()))
			_ = c.updateStatus(ctx, d) // the create error is what matters
		}
		c.recorder.Eventf(d, corev1.EventTypeWarning, appsv1.FailedRSCreateReason, "%s", msg)
		return nil, fmt.Errorf("create replica set %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	if replicas > 0 {
		c.recorder.Eventf(d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, replicas)
	}
	if err := c.syncDeploymentRevision(ctx, d, strconv.FormatInt(newRevision, 10)); err != nil {
		return nil, err
	}
	if hasProgressDeadline(d) {
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, appsv1.NewReplicaSetReason,
			fmt.Sprintf("Created new replica set %q", created.Name), c.now()))
		if err := c.updateStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return created, nil
}

// syncDeploymentRevision sets d's revision annotation (kept in metadata,
// hence a patch of the object, not of its status).
func (c *Controller) syncDeploymentRevision(ctx context.Context, d *appsv1.Deployment, rev string) error {
	if rev == "" || d.Annotations[appsv1.RevisionAnnotation] == rev {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{appsv1.RevisionAnnotation: rev},
	}})
	if err != nil {
		return err
	}
	out, err := c.deployments(d.Namespace).Patch(ctx, d.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("set revision of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.Annotations, d.ResourceVersion = out.Annotations, out.ResourceVersion
	return nil
}

// updateStatus writes d.Status; d takes the server's answer. The cache
// often lags behind our own last write: on a conflict the status is
// written once more over a fresh copy of the same generation.
func (c *Controller) updateStatus(ctx context.Context, d *appsv1.Deployment) error {
	client := c.deployments(d.Namespace)
	out, err := client.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		fresh, getErr := client.Get(ctx, d.Name, metav1.GetOptions{})
		if getErr != nil {
			return fmt.Errorf("update status of deployment %s/%s: %w", d.Namespace, d.Name, getErr)
		}
		if fresh.UID != d.UID || fresh.Generation != d.Generation {
			return fmt.Errorf("update status of deployment %s/%s: %w", d.Namespace, d.Name, err)
		}
		fresh.Status = d.Status
		out, err = client.UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("update status of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.ResourceVersion, d.Annotations = out.ResourceVersion, out.Annotations
	return nil
}

// scaleReplicaSet sets rs's size and its replicas annotations; it reports
// whether the size changed.
func (c *Controller) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, size int32, d *appsv1.Deployment, operation string) (bool, *appsv1.ReplicaSet, error) {
	cur := replicasOf(rs.Spec.Replicas)
	sizeChanged := cur != size
	cp := rs.DeepCopy()
	annotationsChanged := setReplicasAnnotations(cp, replicasOf(d.Spec.Replicas), replicasOf(d.Spec.Replicas)+maxSurge(d))
	if !sizeChanged && !annotationsChanged {
		return false, rs, nil
	}
	cp.Spec.Replicas = &size
	out, err := c.replicaSets(rs.Namespace).Update(ctx, cp, metav1.UpdateOptions{})
	if err != nil {
		return false, nil, fmt.Errorf("scale replica set %s/%s to %d: %w", rs.Namespace, rs.Name, size, err)
	}
	if sizeChanged {
		c.recorder.Eventf(d, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", operation, rs.Name, cur, size)
	}
	return sizeChanged, out, nil
}

func scalingOperation(from, to int32) string {
	if to < from {
		return "down"
	}
	return "up"
}

// scale resizes the ReplicaSets when d's replicas changed: the only active
// one takes the new size; during a rollout the change is spread over the
// active ones in proportion to their sizes.
func (c *Controller) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) error {
	replicas := replicasOf(d.Spec.Replicas)
	if target := findActiveOrLatest(newRS, old); target != nil {
		if replicasOf(target.Spec.Replicas) == replicas {
			return nil
		}
		_, _, err := c.scaleReplicaSet(ctx, target, replicas, d, scalingOperation(replicasOf(target.Spec.Replicas), replicas))
		return err
	}
	if isSaturated(d, newRS) {
		for _, rs := range activeReplicaSets(old) {
			if _, _, err := c.scaleReplicaSet(ctx, rs, 0, d, "down"); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	all := activeReplicaSets(append(append([]*appsv1.ReplicaSet(nil), old...), newRS))
	allowed := int32(0)
	if replicas > 0 {
		allowed = replicas + maxSurge(d)
	}
	toAdd := allowed - sumReplicas(all)
	if toAdd == 0 {
		return nil
	}
	// Growing favours the larger and newer ReplicaSets, shrinking the
	// larger and older ones.
	sort.SliceStable(all, func(i, j int) bool {
		a, b := replicasOf(all[i].Spec.Replicas), replicasOf(all[j].Spec.Replicas)
		if a != b {
			return a > b
		}
		if toAdd > 0 {
			return all[j].CreationTimestamp.Before(&all[i].CreationTimestamp)
		}
		return all[i].CreationTimestamp.Before(&all[j].CreationTimestamp)
	})
	sizes := make([]int32, len(all))
	added := int32(0)
	for i, rs := range all {
		p := proportion(rs, d, toAdd, added)
		sizes[i] = replicasOf(rs.Spec.Replicas) + p
		added += p
	}
	// What rounding left over goes to the largest.
	if left := toAdd - added; left != 0 && len(all) > 0 {
		sizes[0] = max(sizes[0]+left, 0)
	}
	for i, rs := range all {
		if _, _, err := c.scaleReplicaSet(ctx, rs, max(sizes[i], 0), d, scalingOperation(replicasOf(rs.Spec.Replicas), sizes[i])); err != nil {
			return err
		}
	}
	return nil
}

// cleanupDeployment deletes the oldest ReplicaSets beyond
// revisionHistoryLimit that have scaled to zero.
func (c *Controller) cleanupDeployment(ctx context.Context, d *appsv1.Deployment, old []*appsv1.ReplicaSet) error {
	if d.Spec.RevisionHistoryLimit == nil {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range old {
		if rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	excess := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)
	if excess <= 0 {
		return nil
	}
	sort.SliceStable(cleanable, func(i, j int) bool {
		ri, rj := revision(cleanable[i]), revision(cleanable[j])
		if ri != rj {
			return ri < rj
		}
		return cleanable[i].CreationTimestamp.Before(&cleanable[j].CreationTimestamp)
	})
	for _, rs := range cleanable[:excess] {
		if rs.Status.Replicas != 0 || replicasOf(rs.Spec.Replicas) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		uid := rs.UID
		err := c.replicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete old replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
	}
	return nil
}

// checkPausedConditions records pausing and resuming in the Progressing
// condition, so that a paused Deployment does not time out.
func (c *Controller) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := getCondition(&d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == appsv1.TimedOutReason {
		return nil
	}
	paused := cond != nil && cond.Reason == appsv1.PausedDeployReason
	switch {
	case d.Spec.Paused && !paused:
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, appsv1.PausedDeployReason, "Deployment is paused", c.now()))
	case !d.Spec.Paused && paused:
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, appsv1.ResumedDeployReason, "Deployment is resumed", c.now()))
	default:
		return nil
	}
	return c.updateStatus(ctx, d)
}

// syncScaleOnly handles a scaling event or a paused Deployment: sizes
// change, no rollout starts.
func (c *Controller) syncScaleOnly(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, old, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := c.scale(ctx, d, newRS, old); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanupDeployment(ctx, d, old); err != nil {
			return err
		}
	}
	// Re-read the sizes the scaling wrote before computing status.
	newRS, old = c.refresh(newRS), c.refreshAll(old)
	return c.syncDeploymentStatus(ctx, d, append(old, newRS), newRS)
}

// syncStatusOnly reports status for a Deployment being deleted.
func (c *Controller) syncStatusOnly(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, old, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return c.syncDeploymentStatus(ctx, d, append(old, newRS), newRS)
}

// refresh returns the cached copy of rs when it is newer.
func (c *Controller) refresh(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if rs == nil {
		return nil
	}
	if cur, err := c.rsLister.Namespaced(rs.Namespace).Get(rs.Name); err == nil && cur.UID == rs.UID && newer(cur, rs) {
		return cur
	}
	return rs
}

func (c *Controller) refreshAll(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := make([]*appsv1.ReplicaSet, len(rss))
	for i, rs := range rss {
		out[i] = c.refresh(rs)
	}
	return out
}

func newer(a, b *appsv1.ReplicaSet) bool {
	x, err1 := strconv.ParseUint(a.ResourceVersion, 10, 64)
	y, err2 := strconv.ParseUint(b.ResourceVersion, 10, 64)
	return err1 == nil && err2 == nil && x > y
}

// calculateStatus is d's status from its ReplicaSets.
func calculateStatus(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, now time.Time) appsv1.DeploymentStatus {
	available := sumStatus(all, func(s appsv1.ReplicaSetStatus) int32 { return s.AvailableReplicas })
	replicas := replicasOf(d.Spec.Replicas)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            sumStatus(all, func(s appsv1.ReplicaSetStatus) int32 { return s.Replicas }),
		UpdatedReplicas:     sumStatus([]*appsv1.ReplicaSet{newRS}, func(s appsv1.ReplicaSetStatus) int32 { return s.Replicas }),
		ReadyReplicas:       sumStatus(all, func(s appsv1.ReplicaSetStatus) int32 { return s.ReadyReplicas }),
		AvailableReplicas:   available,
		UnavailableReplicas: max(replicas-available, 0),
		CollisionCount:      d.Status.CollisionCount,
		Conditions:          append([]appsv1.DeploymentCondition(nil), d.Status.Conditions...),
	}
	if available >= replicas-maxUnavailable(d) {
		setCondition(&st, newCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, appsv1.MinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		setCondition(&st, newCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, appsv1.MinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return st
}

// syncDeploymentStatus writes the status computed from the ReplicaSets.
func (c *Controller) syncDeploymentStatus(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st := calculateStatus(d, all, newRS, c.now())
	if statusEqual(&d.Status, &st) {
		return nil
	}
	d.Status = st
	return c.updateStatus(ctx, d)
}

// syncRolloutStatus writes status and the Progressing and ReplicaFailure
// conditions of a rollout, and looks again when the deadline would pass.
func (c *Controller) syncRolloutStatus(ctx context.Context, d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	now := c.now()
	st := calculateStatus(d, all, newRS, now)
	if !hasProgressDeadline(d) {
		removeCondition(&st, appsv1.DeploymentProgressing)
	}
	cur := getCondition(&d.Status, appsv1.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == appsv1.NewRSAvailableReason
	if hasProgressDeadline(d) && !complete {
		name := ""
		if newRS != nil {
			name = newRS.Name
		}
		switch {
		case deploymentComplete(d, &st):
			setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, appsv1.NewRSAvailableReason,
				fmt.Sprintf("ReplicaSet %q has successfully progressed.", name), now))
		case deploymentProgressing(d, &st):
			cond := newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, appsv1.ReplicaSetUpdatedReason,
				fmt.Sprintf("ReplicaSet %q is progressing.", name), now)
			if cur != nil && cur.Status == corev1.ConditionTrue {
				cond.LastTransitionTime = cur.LastTransitionTime
			}
			// Progress always refreshes the update time, even with the
			// same reason: the deadline counts from the last progress.
			removeCondition(&st, appsv1.DeploymentProgressing)
			st.Conditions = append(st.Conditions, cond)
		case deploymentTimedOut(d, &st, now):
			setCondition(&st, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, appsv1.TimedOutReason,
				fmt.Sprintf("ReplicaSet %q has timed out progressing.", name), now))
		}
	}
	if failure := replicaFailure(all); failure != nil {
		setCondition(&st, newCondition(appsv1.DeploymentReplicaFailure, failure.Status, failure.Reason, failure.Message, now))
	} else {
		removeCondition(&st, appsv1.DeploymentReplicaFailure)
	}
	if statusEqual(&d.Status, &st) {
		c.requeueStuck(d, &st)
		return nil
	}
	d.Status = st
	if err := c.updateStatus(ctx, d); err != nil {
		return err
	}
	c.requeueStuck(d, &st)
	return nil
}

// replicaFailure returns the first ReplicaFailure condition of the
// ReplicaSets.
func replicaFailure(all []*appsv1.ReplicaSet) *appsv1.ReplicaSetCondition {
	for _, rs := range all {
		if rs == nil {
			continue
		}
		for i := range rs.Status.Conditions {
			if rs.Status.Conditions[i].Type == appsv1.ReplicaSetReplicaFailure {
				return &rs.Status.Conditions[i]
			}
		}
	}
	return nil
}

// requeueStuck syncs d again when its progress deadline would pass.
func (c *Controller) requeueStuck(d *appsv1.Deployment, st *appsv1.DeploymentStatus) {
	cond := getCondition(st, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cond == nil || cond.Reason == appsv1.NewRSAvailableReason || cond.Reason == appsv1.TimedOutReason {
		return
	}
	after := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(c.now())
	c.Queue().AddAfter(cache.ObjectKey(d.Namespace, d.Name), max(after, 0)+time.Second)
}
