package statefulset

import (
	"context"
	"reflect"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/controller"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// computeStatus counts the pods of set as Kubernetes does: created pods,
// ready and available ones, and those at the current and update
// revisions; a finished rolling update makes the update revision current.
func computeStatus(set *appsv1.StatefulSet, pods []*corev1.Pod, current, update *appsv1.ControllerRevision, collisions int32, now time.Time) appsv1.StatefulSetStatus {
	st := *set.Status.DeepCopy()
	st.ObservedGeneration = set.Generation
	st.CurrentRevision, st.UpdateRevision = current.Name, update.Name
	st.CollisionCount = &collisions
	st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, p := range pods {
		if !isCreated(p) {
			continue
		}
		st.Replicas++
		if isRunningAndReady(p) {
			st.ReadyReplicas++
			if podcontrol.IsPodAvailable(p, set.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
		if isTerminating(p) {
			continue
		}
		if revisionOf(p) == current.Name {
			st.CurrentReplicas++
		}
		if revisionOf(p) == update.Name {
			st.UpdatedReplicas++
		}
	}
	want := int32(replicasOf(set))
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		st.Replicas == want && st.UpdatedReplicas == want && st.ReadyReplicas == want {
		st.CurrentReplicas, st.CurrentRevision = st.UpdatedReplicas, st.UpdateRevision
	}
	return st
}

// updateStatus writes status unless set already has it.
func (c *Controller) updateStatus(ctx context.Context, set *appsv1.StatefulSet, status appsv1.StatefulSetStatus) error {
	if reflect.DeepEqual(set.Status, status) {
		return nil
	}
	return c.writeStatus(ctx, set, status)
}

// writeStatus writes status to the set, on its latest version when the
// cached one is stale.
func (c *Controller) writeStatus(ctx context.Context, set *appsv1.StatefulSet, status appsv1.StatefulSetStatus) error {
	return controller.UpdateStatus(ctx, c.client.AppsV1().StatefulSets(set.Namespace), "statefulset", set,
		func(s *appsv1.StatefulSet) { s.Status = status }, nil)
}
