package nodelifecycle

import (
	"context"
	"fmt"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"

	"k8s.io/klog/v2"
)

// evictionDelay is how long pod may stay on a node with taints: forever
// (false) when it tolerates every NoExecute taint without a limit;
// otherwise until the earliest deadline among the NoExecute taints: the
// taint's TimeAdded plus the shortest finite tolerationSeconds of the
// tolerations matching it, or now for a taint not tolerated.
func evictionDelay(pod *corev1.Pod, taints []corev1.Taint, now time.Time) (time.Duration, bool) {
	var delay time.Duration
	evict := false
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		var bound *int64
		tolerated := false
		for j := range pod.Spec.Tolerations {
			tol := &pod.Spec.Tolerations[j]
			if !tol.ToleratesTaint(t) {
				continue
			}
			tolerated = true
			// As Kubernetes: the shortest finite toleration wins.
			if s := tol.TolerationSeconds; s != nil && (bound == nil || *s < *bound) {
				bound = s
			}
		}
		if tolerated && bound == nil {
			continue
		}
		d := time.Duration(0)
		if tolerated {
			since := now
			if t.TimeAdded != nil {
				since = t.TimeAdded.Time
			}
			d = max(since.Add(time.Duration(max(*bound, 0))*time.Second).Sub(now), 0)
		}
		if !evict || d < delay {
			delay = d
		}
		evict = true
	}
	return delay, evict
}

// syncPod deletes a pod whose node's NoExecute taints it does not tolerate
// (any longer).
func (c *Controller) syncPod(ctx context.Context, key string) error {
	pod, ok, err := controller.Get(ctx, c.pods.Lister(), key)
	if !ok {
		return err
	}
	if pod.Spec.NodeName == "" || pod.DeletionTimestamp != nil {
		return nil
	}
	node, err := c.nodes.Lister().Get(pod.Spec.NodeName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	delay, evict := evictionDelay(pod, node.Spec.Taints, c.opts.Now())
	if !evict {
		return nil
	}
	if delay > 0 {
		c.podQueue.AddAfter(key, delay)
		return nil
	}
	klog.FromContext(ctx).V(2).Info("Evicting pod from tainted node", "pod", klog.KObj(pod), "node", node.Name)
	uid := pod.UID
	err = c.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("evict pod %s from node %s: %w", key, node.Name, err)
	}
	if err == nil {
		c.recorder.Eventf(pod, corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod %s", key)
	}
	return nil
}
