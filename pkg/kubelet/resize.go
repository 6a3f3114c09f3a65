package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// In-place resize (pods/resize), as Kubernetes' kubelet does it: the
// kubelet keeps, per pod, the resources it accepted (allocated) for each
// app and init container. A spec that asks for others is a resize: it is
// Infeasible when the pod's new cpu or memory requests exceed what the
// node can allocate at all, Deferred while the other pods' allocations
// leave too little; either way the PodResizePending condition says why
// and the allocation stays. An accepted resize becomes the allocation at
// once; a running container whose changed resource has the resize policy
// RestartContainer is restarted (its restart count goes up), the others
// keep running. Status reports the allocation in each container's
// allocatedResources (requests) and resources (requests and limits).
// kubecore's runtimes enforce no resources (no cgroup limits), at creation
// as after a resize, so nothing else is applied.

// The reasons of PodResizePending and their events, and the wait of a
// deferred resize.
const (
	reasonResizeInfeasible = "Infeasible"
	reasonResizeDeferred   = "Deferred"
	eventResizeInfeasible  = "ResizeInfeasible"
	eventResizeDeferred    = "ResizeDeferred"
	deferredResizeRetry    = 5 * time.Second
)

// allocation is the accepted resources of a pod's containers, by name.
type allocation map[string]corev1.ResourceRequirements

// allocations holds the allocation of every pod the kubelet runs, by UID;
// safe for concurrent use by the pod workers.
type allocations struct {
	mu   sync.Mutex
	pods map[string]allocation
}

func newAllocations() *allocations { return &allocations{pods: map[string]allocation{}} }

func (a *allocations) get(uid string) (allocation, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	al, ok := a.pods[uid]
	return al, ok
}

func (a *allocations) set(uid string, al allocation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pods[uid] = al
}

// release forgets the allocation of a pod that finished or went away.
func (a *allocations) release(uid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.pods, uid)
}

// othersRequests sums the cpu and memory requests allocated to every pod
// but uid.
func (a *allocations) othersRequests(uid string) corev1.ResourceList {
	a.mu.Lock()
	defer a.mu.Unlock()
	sum := corev1.ResourceList{}
	for other, al := range a.pods {
		if other == uid {
			continue
		}
		addRequests(sum, al)
	}
	return sum
}

// addRequests adds al's cpu and memory requests to sum.
func addRequests(sum corev1.ResourceList, al allocation) {
	for _, r := range al {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := r.Requests[name]; ok {
				t := sum[name]
				t.Add(q)
				sum[name] = t
			}
		}
	}
}

// specAllocation is the allocation a pod's spec asks for: its app and
// init containers' resources (ephemeral containers have none).
func specAllocation(pod *corev1.Pod) allocation {
	al := allocation{}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			al[cs[i].Name] = *cs[i].Resources.DeepCopy()
		}
	}
	return al
}

// initialAllocation is the allocation of a pod the kubelet meets for the
// first time: what its status reports (it ran under an earlier kubelet,
// which may have deferred a resize), else what its spec asks.
func initialAllocation(pod *corev1.Pod) allocation {
	al := specAllocation(pod)
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range list {
			if _, ok := al[cs.Name]; ok && cs.Resources != nil {
				al[cs.Name] = *cs.Resources.DeepCopy()
			}
		}
	}
	return al
}

// sameRequirements tells whether two resource requirements are the same
// (quantities compared in canonical form).
func sameRequirements(a, b corev1.ResourceRequirements) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// resizePending is why a resize waits: PodResizePending's reason
// (Infeasible or Deferred) and message.
type resizePending struct{ reason, message string }

// fitResize decides a resize to want: nil when the node has room for it,
// else why not.
func (kl *Kubelet) fitResize(uid string, want allocation) *resizePending {
	requested := corev1.ResourceList{}
	addRequests(requested, want)
	used := kl.allocs.othersRequests(uid)
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, ok := requested[name]
		capacity, known := kl.machine.Allocatable[name]
		if !ok || !known {
			continue
		}
		if req.Cmp(capacity) > 0 {
			return &resizePending{reasonResizeInfeasible, fmt.Sprintf("Node didn't have enough capacity: %s, requested: %d, capacity: %d",
				name, quantityValue(name, req), quantityValue(name, capacity))}
		}
		inUse := used[name]
		total := req.DeepCopy()
		total.Add(inUse)
		if total.Cmp(capacity) > 0 {
			return &resizePending{reasonResizeDeferred, fmt.Sprintf("Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d",
				name, quantityValue(name, req), quantityValue(name, inUse), quantityValue(name, capacity))}
		}
	}
	return nil
}

// quantityValue is a quantity as Kubernetes' messages give it: cpu in
// millicores, memory in bytes.
func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// allocate brings the pod's allocation up to its spec when the node has
// room (see above), and returns the containers whose allocation changed
// and the allocation before.
func (s *podSync) allocate(ctx context.Context) ([]string, allocation) {
	kl, pod, st := s.kl, s.pod, s.st
	uid := string(pod.UID)
	cur, ok := kl.allocs.get(uid)
	if !ok {
		cur = initialAllocation(pod)
		kl.allocs.set(uid, cur)
	}
	want := specAllocation(pod)
	var changed []string
	for name, r := range want {
		if !sameRequirements(r, cur[name]) {
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		st.resizePending = nil
		return nil, cur
	}
	if p := kl.fitResize(uid, want); p != nil {
		if st.resizePending == nil || *st.resizePending != *p {
			event := eventResizeDeferred
			if p.reason == reasonResizeInfeasible {
				event = eventResizeInfeasible
			}
			kl.events.pod(ctx, pod, corev1.EventTypeWarning, event, "Pod resize %s: %s", p.reason, p.message)
		}
		st.resizePending = p
		if p.reason == reasonResizeDeferred {
			s.after(deferredResizeRetry)
		}
		return nil, cur
	}
	st.resizePending = nil
	kl.allocs.set(uid, want)
	klog.FromContext(ctx).V(2).Info("Resized pod in place", "pod", klog.KObj(pod), "containers", changed)
	return changed, cur
}

// restartForResize restarts the running containers among changed whose
// resize policy asks for a restart for a resource that changed.
func (s *podSync) restartForResize(ctx context.Context, changed []string, before allocation) error {
	restarted := false
	for _, cs := range [][]corev1.Container{s.pod.Spec.InitContainers, s.pod.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			cur := s.recs[c.Name].current
			if cur == nil || cur.State != kruntime.ContainerRunning || !slices.Contains(changed, c.Name) || !needsRestart(c, before[c.Name]) {
				continue
			}
			msg := fmt.Sprintf("Container %s resize requires restart", c.Name)
			if err := s.kl.stopContainer(ctx, s.pod, c.Name, cur.ID, s.ips.podIP, true, gracePeriod(s.pod), msg); err != nil {
				return fmt.Errorf("restart container %s for its resize: %w", c.Name, err)
			}
			s.startContainer(ctx, c, cur.Attempt+1)
			restarted = true
		}
	}
	if restarted {
		return s.listContainers(ctx)
	}
	return nil
}

// needsRestart tells whether c's new resources differ from before in a
// resource whose resize policy is RestartContainer.
func needsRestart(c *corev1.Container, before corev1.ResourceRequirements) bool {
	for _, p := range c.ResizePolicy {
		if p.RestartPolicy != corev1.RestartContainer {
			continue
		}
		for _, pair := range [][2]corev1.ResourceList{{c.Resources.Requests, before.Requests}, {c.Resources.Limits, before.Limits}} {
			q, ok := pair[0][p.ResourceName]
			o, wasSet := pair[1][p.ResourceName]
			if ok != wasSet || ok && q.Cmp(o) != 0 {
				return true
			}
		}
	}
	return false
}

// allocation is the pod's allocation for its status.
func (s *podSync) allocation() allocation {
	al, _ := s.kl.allocs.get(string(s.pod.UID))
	return al
}
