package podautoscaler

import (
	"errors"
	"fmt"
	"math"

	corev1 "kubecore.io/api/core/v1"
)

// DefaultTolerance is the ratio of usage to target within which the
// controller does not scale (Kubernetes' --horizontal-pod-autoscaler-tolerance).
const DefaultTolerance = 0.1

// errNoMetrics is a metrics API that answered with no pod of the target.
var errNoMetrics = errors.New("no metrics returned from resource metrics API")

// podGroups sorts the target's pods for a resource metric as Kubernetes
// does: pods being deleted and failed pods are ignored; for cpu, pods that
// are not Ready are unready (their usage, often a start-up burst, would
// mislead); pods with no metric are missing.
//
// Simplified from Kubernetes: a pod is unready when its Ready condition is
// not True; Kubernetes also treats a Ready pod as unready during its
// first --horizontal-pod-autoscaler-cpu-initialization-period (5 min) when
// its metric was taken before it became ready.
type podGroups struct {
	ready   map[string]int64 // pod -> metric value
	unready map[string]bool
	missing map[string]bool
}

func groupPods(pods []*corev1.Pod, metrics map[string]PodMetric, res corev1.ResourceName) podGroups {
	g := podGroups{ready: map[string]int64{}, unready: map[string]bool{}, missing: map[string]bool{}}
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		if p.Status.Phase == corev1.PodPending {
			g.unready[p.Name] = true
			continue
		}
		m, ok := metrics[p.Name]
		if !ok {
			g.missing[p.Name] = true
			continue
		}
		if res == corev1.ResourceCPU && !podReady(p) {
			g.unready[p.Name] = true
			continue
		}
		g.ready[p.Name] = m.Value
	}
	return g
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podRequests sums the containers' requests of res in each pod, in the
// metric's unit (millicores for cpu, bytes for memory); a container
// without a request is an error, as utilization needs requests.
func podRequests(pods []*corev1.Pod, res corev1.ResourceName) (map[string]int64, error) {
	out := make(map[string]int64, len(pods))
	for _, p := range pods {
		var sum int64
		for _, c := range p.Spec.Containers {
			q, ok := c.Resources.Requests[res]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", res, c.Name, p.Name)
			}
			if res == corev1.ResourceMemory {
				sum += q.Value()
			} else {
				sum += q.MilliValue()
			}
		}
		out[p.Name] = sum
	}
	return out, nil
}

// replicaResult is a metric's proposal.
type replicaResult struct {
	replicas int32
	// utilization is the current average utilization in percent (for a
	// Utilization target); average the current average value.
	utilization int32
	average     int64
}

// usageRatio is the ratio of the metrics to the target: with requests,
// the utilization (percent of the requests) over target percent; without,
// the average value over the target value.
type usageFunc func(values map[string]int64) (ratio float64, utilization int32, average int64, err error)

// utilizationRatio returns a usageFunc for a Utilization target.
func utilizationRatio(requests map[string]int64, target int32) usageFunc {
	return func(values map[string]int64) (float64, int32, int64, error) {
		var total, req int64
		for pod, v := range values {
			r, ok := requests[pod]
			if !ok {
				continue
			}
			total += v
			req += r
		}
		if req == 0 {
			return 0, 0, 0, errors.New("no metrics returned matched known pods")
		}
		util := int32(total * 100 / req)
		return float64(total*100) / float64(req) / float64(target), util, total / int64(len(values)), nil
	}
}

// averageRatio returns a usageFunc for an AverageValue target (in the
// metric's unit).
func averageRatio(target int64) usageFunc {
	return func(values map[string]int64) (float64, int32, int64, error) {
		if len(values) == 0 || target <= 0 {
			return 0, 0, 0, errNoMetrics
		}
		var total int64
		for _, v := range values {
			total += v
		}
		avg := float64(total) / float64(len(values))
		return avg / float64(target), 0, total / int64(len(values)), nil
	}
}

// computeReplicas is Kubernetes' replica calculation for one metric: the
// ready pods' usage ratio times their number, unless within tolerance;
// when pods lack metrics or are unready, the proposal is rechecked
// assuming the missing ones use 100% of the target when scaling down
// (0 when scaling up) and unready ones 0 when scaling up, and the
// controller only scales when that does not reverse the direction.
// missingValue is what a missing pod is assumed to use at 100% of the
// target (its request for utilization, the target for an average).
func computeReplicas(current int32, g podGroups, ratioOf usageFunc, missingValue func(pod string) int64, tolerance float64) (replicaResult, error) {
	if len(g.ready) == 0 && len(g.missing) == 0 && len(g.unready) == 0 {
		return replicaResult{}, errNoMetrics
	}
	if len(g.ready) == 0 {
		// Nothing measured: Kubernetes fails the same way.
		return replicaResult{}, errNoMetrics
	}
	ratio, util, avg, err := ratioOf(g.ready)
	if err != nil {
		return replicaResult{}, err
	}
	res := replicaResult{replicas: current, utilization: util, average: avg}
	rebalanceUnready := len(g.unready) > 0 && ratio > 1.0
	if !rebalanceUnready && len(g.missing) == 0 {
		if math.Abs(1.0-ratio) <= tolerance {
			return res, nil
		}
		res.replicas = int32(math.Ceil(ratio * float64(len(g.ready))))
		return res, nil
	}
	values := make(map[string]int64, len(g.ready)+len(g.missing)+len(g.unready))
	for p, v := range g.ready {
		values[p] = v
	}
	for p := range g.missing {
		if ratio < 1.0 {
			values[p] = missingValue(p)
		} else {
			values[p] = 0
		}
	}
	if rebalanceUnready {
		for p := range g.unready {
			values[p] = 0
		}
	}
	newRatio, _, _, err := ratioOf(values)
	if err != nil {
		return replicaResult{}, err
	}
	if math.Abs(1.0-newRatio) <= tolerance || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return res, nil
	}
	n := int32(math.Ceil(newRatio * float64(len(values))))
	if (newRatio < 1.0 && n > current) || (newRatio > 1.0 && n < current) {
		return res, nil
	}
	res.replicas = n
	return res, nil
}
