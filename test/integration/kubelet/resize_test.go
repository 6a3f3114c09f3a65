package kubelet

import (
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// TestInPlaceResize: pods/resize changes a running pod's cpu and memory;
// the kubelet reports each container's allocated resources in its status
// (the upstream InPlace Resize specs dereference them), takes a resize the
// node has room for (observedGeneration catches up, no resize condition
// stays), restarts a container whose resize policy asks for it, and keeps
// a resize beyond the node's capacity pending as Infeasible. Bad resizes
// are refused with Kubernetes' messages.
func TestInPlaceResize(t *testing.T) {
	e := newEnv(t, "process")
	q := resource.MustParse
	e.pod("resize", "exec sleep 1000", func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("20m"), corev1.ResourceMemory: q("35Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("30m"), corev1.ResourceMemory: q("45Mi")},
		}
		c.ResizePolicy = []corev1.ContainerResizePolicy{
			{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired},
			{ResourceName: corev1.ResourceMemory, RestartPolicy: corev1.RestartContainer},
		}
	})
	// reports waits until the container runs and reports exactly these
	// resources after the pod's generation gen, with no resize condition.
	reports := func(gen int64, cpuReq, cpuLim, memReq, memLim string, restarts int32) *corev1.Pod {
		t.Helper()
		want := corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q(cpuReq), corev1.ResourceMemory: q(memReq)},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q(cpuLim), corev1.ResourceMemory: q(memLim)},
		}
		return e.waitFor("resize", 60*time.Second, "resources reported", func(p *corev1.Pod) bool {
			cs := containerStatus(p)
			return p.Status.ObservedGeneration == gen && cs != nil && cs.State.Running != nil && cs.RestartCount == restarts &&
				cs.Resources != nil && sameList(cs.Resources.Requests, want.Requests) && sameList(cs.Resources.Limits, want.Limits) &&
				sameList(cs.AllocatedResources, want.Requests) &&
				condition(p, corev1.PodResizePending) == "" && condition(p, corev1.PodResizeInProgress) == "" && isReady(p)
		})
	}
	p := reports(1, "20m", "30m", "35Mi", "45Mi", 0)
	if p.Generation != 1 {
		t.Errorf("generation %d after create, want 1", p.Generation)
	}

	resize := func(patch string) (*corev1.Pod, error) {
		return e.cs.CoreV1().Pods(e.ns).Patch(e.ctx, "resize", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "resize")
	}
	// cpu: no restart. The image is not the resize's to change.
	out, err := resize(`{"spec":{"containers":[{"name":"main","image":"other","resources":{"requests":{"cpu":"25m"},"limits":{"cpu":"35m"}}}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if out.Generation != 2 || out.Spec.Containers[0].Image != "busybox" || out.Spec.Containers[0].Resources.Limits.Cpu().String() != "35m" {
		t.Errorf("after the cpu resize: generation %d, image %q, limits %v", out.Generation, out.Spec.Containers[0].Image, out.Spec.Containers[0].Resources.Limits)
	}
	reports(2, "25m", "35m", "35Mi", "45Mi", 0)

	// memory: its policy restarts the container.
	if _, err := resize(`{"spec":{"containers":[{"name":"main","resources":{"limits":{"memory":"50Mi"}}}]}}`); err != nil {
		t.Fatal(err)
	}
	reports(3, "25m", "35m", "35Mi", "50Mi", 1)

	// More cpu than the node has: Infeasible, the allocation stays.
	if _, err := resize(`{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"1000"},"limits":{"cpu":"1000"}}}]}}`); err != nil {
		t.Fatal(err)
	}
	p = e.waitFor("resize", 60*time.Second, "resize Infeasible", func(p *corev1.Pod) bool {
		return p.Status.ObservedGeneration == 4 && condition(p, corev1.PodResizePending) == corev1.ConditionTrue
	})
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodResizePending && (c.Reason != "Infeasible" || !strings.HasPrefix(c.Message, "Node didn't have enough capacity: cpu, requested: 1000000, capacity: ")) {
			t.Errorf("PodResizePending %s: %s", c.Reason, c.Message)
		}
	}
	if cs := containerStatus(p); cs.Resources == nil || cs.Resources.Limits.Cpu().String() != "35m" {
		t.Errorf("an infeasible resize changed the reported resources: %s", describe(p))
	}
	// Back within the node's room: the condition goes.
	if _, err := resize(`{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"20m"},"limits":{"cpu":"30m"}}}]}}`); err != nil {
		t.Fatal(err)
	}
	reports(5, "20m", "30m", "35Mi", "50Mi", 1)

	for _, tc := range []struct{ patch, want string }{
		{`{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"30m","memory":"50Mi"}}}]}}`, "Pod QOS Class may not change as a result of resizing"},
		{`{"spec":{"containers":[{"name":"main","resources":{"limits":{"memory":null}}}]}}`, "resource limits cannot be removed"},
		{`{"spec":{"containers":[{"name":"main","resources":{"limits":{"example.com/gpu":"1"}}}]}}`, "only cpu and memory resources are mutable"},
	} {
		if _, err := resize(tc.patch); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("resize %s: %v, want %q", tc.patch, err, tc.want)
		}
	}
}

// sameList tells whether two resource lists hold equal quantities.
func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		o, ok := b[name]
		if !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}
