package daemonset

import (
	"context"
	"reflect"
	"slices"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/controller"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// computeStatus counts the nodes as Kubernetes does: those that should
// run the daemon pod (desired) and run one (current), with its oldest pod
// ready, available or at hash (updated); those that run one but should
// not (misscheduled). observed says whether the controller acted on this
// generation (its expectations were met).
func computeStatus(ds *appsv1.DaemonSet, decisions map[string]decision, byNode map[string][]*corev1.Pod, hash string, observed bool, now time.Time) appsv1.DaemonSetStatus {
	st := *ds.Status.DeepCopy()
	if observed {
		st.ObservedGeneration = ds.Generation
	}
	st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled = 0, 0, 0
	st.NumberReady, st.NumberAvailable, st.UpdatedNumberScheduled = 0, 0, 0
	for node, d := range decisions {
		pods := byNode[node]
		if !d.run {
			if len(pods) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(pods) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		pods = slices.Clone(pods)
		oldestFirst(pods)
		pod := pods[0]
		if podcontrol.IsPodReady(pod) {
			st.NumberReady++
			if podcontrol.IsPodAvailable(pod, ds.Spec.MinReadySeconds, now) {
				st.NumberAvailable++
			}
		}
		if isUpdated(pod, hash) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st
}

// updateStatus writes status to ds unless it has it already, on the
// latest version of ds when the cached one is stale.
func (c *Controller) updateStatus(ctx context.Context, ds *appsv1.DaemonSet, status appsv1.DaemonSetStatus) error {
	if reflect.DeepEqual(ds.Status, status) {
		return nil
	}
	return controller.UpdateStatus(ctx, c.client.AppsV1().DaemonSets(ds.Namespace), "daemonset", ds,
		func(d *appsv1.DaemonSet) { d.Status = status },
		// The spec changed under us: what was counted is stale, the next
		// sync counts it afresh.
		func(fresh *appsv1.DaemonSet) bool { return fresh.Generation != ds.Generation })
}
