package statefulset

import (
	"context"
	"fmt"
	"slices"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/controller/history"
)

// slots sorts the pods of set into its replicas, by ordinal (nil where a
// pod is missing), and the condemned pods beyond them, highest first.
func slots(set *appsv1.StatefulSet, pods []*corev1.Pod) (replicas []*corev1.Pod, condemned []*corev1.Pod) {
	start, n := startOrdinal(set), replicasOf(set)
	replicas = make([]*corev1.Pod, n)
	for _, p := range pods {
		ord, ok := ordinalOf(set, p.Name)
		if !ok {
			continue
		}
		if ord >= start && ord < start+n {
			replicas[ord-start] = p
		} else {
			condemned = append(condemned, p)
		}
	}
	slices.SortFunc(condemned, func(a, b *corev1.Pod) int {
		oa, _ := ordinalOf(set, a.Name)
		ob, _ := ordinalOf(set, b.Name)
		return ob - oa
	})
	return replicas, condemned
}

// partitionOf is the first ordinal index a rolling update touches.
func partitionOf(set *appsv1.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return 0
	}
	return int(*ru.Partition)
}

// versionFor picks the revision a new pod at index i (from the first
// ordinal) is made from: the current one below the partition of a rolling
// update, the update revision otherwise.
func versionFor(set *appsv1.StatefulSet, i int, current, update *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return update
	}
	if i < partitionOf(set) {
		return current
	}
	return update
}

// updatePods does the next steps towards set's desired pods: create the
// missing ones (in order, each after the previous is Ready, unless
// Parallel), delete those beyond the replicas (highest first), then roll
// the pods not at the update revision from the highest ordinal down to
// the partition, one at a time.
func (c *Controller) updatePods(ctx context.Context, set *appsv1.StatefulSet, current, update *appsv1.ControllerRevision, pods []*corev1.Pod) error {
	logger := klog.FromContext(ctx).WithValues("statefulSet", klog.KObj(set))
	ordered := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	replicas, condemned := slots(set, pods)
	start := startOrdinal(set)

	for i, pod := range replicas {
		ord := start + i
		switch {
		case pod == nil:
			rev := versionFor(set, i, current, update)
			tmpl, err := history.Template(rev)
			if err != nil {
				return err
			}
			if err := c.createPod(ctx, set, &tmpl, rev.Name, ord); err != nil {
				return err
			}
			logger.V(2).Info("Created pod", "pod", podName(set, ord), "revision", rev.Name)
			if ordered {
				return nil
			}
			continue
		case isFinished(pod) && !isTerminating(pod):
			// A failed or completed pod is replaced.
			if err := c.deletePod(ctx, set, pod); err != nil {
				return err
			}
			if ordered {
				return nil
			}
			continue
		case ordered && isTerminating(pod):
			return nil
		case ordered && !isRunningAndReady(pod):
			return nil
		}
		if !identityMatches(pod, ord) {
			cp := pod.DeepCopy()
			setIdentityLabels(set, cp, ord)
			if _, err := c.client.CoreV1().Pods(cp.Namespace).Update(ctx, cp, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("update identity of pod %s/%s: %w", cp.Namespace, cp.Name, err)
			}
		}
	}

	// Every replica is healthy here when ordered: the first unhealthy pod
	// is the lowest unhealthy condemned one, the only unhealthy one that
	// may go.
	var firstUnhealthy *corev1.Pod
	for _, pod := range condemned {
		if !isRunningAndReady(pod) {
			firstUnhealthy = pod
		}
	}
	for _, pod := range condemned {
		if isTerminating(pod) {
			if ordered {
				return nil
			}
			continue
		}
		if ordered && !isRunningAndReady(pod) && pod != firstUnhealthy {
			return nil
		}
		if err := c.deletePod(ctx, set, pod); err != nil {
			return err
		}
		logger.V(2).Info("Deleted pod beyond the replicas", "pod", pod.Name)
		if ordered {
			return nil
		}
	}

	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return nil
	}
	for i := len(replicas) - 1; i >= partitionOf(set) && i >= 0; i-- {
		pod := replicas[i]
		if pod == nil {
			return nil
		}
		if revisionOf(pod) != update.Name && !isTerminating(pod) {
			logger.V(2).Info("Deleting pod for the rolling update", "pod", pod.Name, "revision", revisionOf(pod), "updateRevision", update.Name)
			return c.deletePod(ctx, set, pod)
		}
		if !isHealthy(pod) {
			return nil
		}
	}
	return nil
}

// createPod creates the claims and then the pod of set with ordinal.
func (c *Controller) createPod(ctx context.Context, set *appsv1.StatefulSet, tmpl *corev1.PodTemplateSpec, revision string, ordinal int) error {
	if err := c.ensureClaims(ctx, set, ordinal); err != nil {
		return err
	}
	pod, err := newPod(set, tmpl, revision, ordinal)
	if err != nil {
		return err
	}
	_, err = c.podControl.CreatePod(ctx, pod, set)
	if apierrors.IsAlreadyExists(err) {
		// The cache lags behind an earlier create: look again later.
		return fmt.Errorf("pod %s/%s already exists: %w", pod.Namespace, pod.Name, err)
	}
	if err != nil {
		c.recorder.Event(set, corev1.EventTypeWarning, "FailedCreate", fmt.Sprintf("create Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err))
		return err
	}
	c.recorder.Event(set, corev1.EventTypeNormal, "SuccessfulCreate", fmt.Sprintf("create Pod %s in StatefulSet %s successful", pod.Name, set.Name))
	return nil
}

func (c *Controller) deletePod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	err := c.podControl.DeletePod(ctx, pod.Namespace, pod.Name, set)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.recorder.Event(set, corev1.EventTypeWarning, "FailedDelete", fmt.Sprintf("delete Pod %s in StatefulSet %s failed error: %v", pod.Name, set.Name, err))
		return err
	}
	c.recorder.Event(set, corev1.EventTypeNormal, "SuccessfulDelete", fmt.Sprintf("delete Pod %s in StatefulSet %s successful", pod.Name, set.Name))
	return nil
}
