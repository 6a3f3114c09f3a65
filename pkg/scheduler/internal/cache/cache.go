// Package cache is the scheduler's view of nodes and the pods on them,
// including pods assumed on a node before their binding is confirmed.
package cache

import (
	"fmt"
	"slices"
	"sync"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

type podState struct {
	info    *framework.PodInfo
	assumed bool
}

// Cache holds every node and the pods bound or assumed on it. The
// scheduler takes a Snapshot of it at the start of each cycle.
type Cache struct {
	mu         sync.Mutex
	nodes      map[string]*framework.NodeInfo
	order      []string // node names in the order they were added
	pods       map[types.UID]*podState
	dirty      map[string]struct{}
	generation int64
}

// New returns an empty cache.
func New() *Cache {
	return &Cache{nodes: map[string]*framework.NodeInfo{}, pods: map[types.UID]*podState{}, dirty: map[string]struct{}{}}
}

// podInfoOf parses an existing pod; a term that does not parse (which
// validation should have refused) is dropped rather than losing the pod's
// resources.
func podInfoOf(pod *corev1.Pod) *framework.PodInfo {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		pi = &framework.PodInfo{Pod: pod}
		pi.Requests, pi.NonZeroRequests = framework.PodRequests(pod)
	}
	return pi
}

func (c *Cache) touch(name string) *framework.NodeInfo {
	n, ok := c.nodes[name]
	if !ok {
		n = framework.NewNodeInfo()
		c.nodes[name] = n
	}
	c.generation++
	n.Generation = c.generation
	c.dirty[name] = struct{}{}
	return n
}

func (c *Cache) addPodLocked(pi *framework.PodInfo, assumed bool) {
	c.touch(pi.Pod.Spec.NodeName).AddPodInfo(pi)
	c.pods[pi.Pod.UID] = &podState{info: pi, assumed: assumed}
}

func (c *Cache) removePodLocked(pod *corev1.Pod) {
	st, ok := c.pods[pod.UID]
	if !ok {
		return
	}
	delete(c.pods, pod.UID)
	name := st.info.Pod.Spec.NodeName
	n, ok := c.nodes[name]
	if !ok {
		return
	}
	c.touch(name).RemovePod(st.info.Pod)
	if n.Node() == nil && len(n.Pods) == 0 {
		delete(c.nodes, name)
	}
}

// AssumePod records pod (whose spec.nodeName is set) on its node before
// its binding is confirmed.
func (c *Cache) AssumePod(pi *framework.PodInfo) error {
	pod := pi.Pod
	if pod.Spec.NodeName == "" {
		return fmt.Errorf("assume pod %s: no node name", framework.PodKey(pod))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[pod.UID]; ok {
		return fmt.Errorf("assume pod %s: already in the cache", framework.PodKey(pod))
	}
	c.addPodLocked(pi, true)
	return nil
}

// ForgetPod removes an assumed pod whose binding failed.
func (c *Cache) ForgetPod(pod *corev1.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[pod.UID]
	if !ok {
		return nil
	}
	if !st.assumed {
		return fmt.Errorf("forget pod %s: it is bound, not assumed", framework.PodKey(pod))
	}
	c.removePodLocked(pod)
	return nil
}

// IsAssumedPod reports whether pod is assumed and not yet confirmed.
func (c *Cache) IsAssumedPod(pod *corev1.Pod) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[pod.UID]
	return ok && st.assumed
}

// AddPod records a bound pod, confirming it if it was assumed.
func (c *Cache) AddPod(pod *corev1.Pod) {
	if pod.Spec.NodeName == "" {
		return
	}
	pi := podInfoOf(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePodLocked(pod)
	c.addPodLocked(pi, false)
}

// UpdatePod replaces a bound pod.
func (c *Cache) UpdatePod(_, pod *corev1.Pod) { c.AddPod(pod) }

// RemovePod removes a pod.
func (c *Cache) RemovePod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePodLocked(pod)
}

// AddNode adds or replaces a node.
func (c *Cache) AddNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.nodes[node.Name]; !ok || n.Node() == nil {
		if !slices.Contains(c.order, node.Name) {
			c.order = append(c.order, node.Name)
		}
	}
	c.touch(node.Name).SetNode(node)
}

// UpdateNode replaces a node.
func (c *Cache) UpdateNode(_, node *corev1.Node) { c.AddNode(node) }

// RemoveNode removes a node; its pods stay until they are deleted.
func (c *Cache) RemoveNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[node.Name]
	if !ok {
		return
	}
	c.order = slices.DeleteFunc(c.order, func(s string) bool { return s == node.Name })
	if len(n.Pods) == 0 {
		delete(c.nodes, node.Name)
		c.generation++
		c.dirty[node.Name] = struct{}{}
		return
	}
	fresh := framework.NewNodeInfo(n.Pods...)
	c.nodes[node.Name] = fresh
	c.touch(node.Name)
}

// NodeCount returns the number of nodes with a Node object.
func (c *Cache) NodeCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order)
}

// PodCount returns the number of bound and assumed pods.
func (c *Cache) PodCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pods)
}

// UpdateSnapshot brings s up to date with the nodes changed since its
// last update. NodeInfos in s keep their identity across updates.
func (c *Cache) UpdateSnapshot(s *Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dirty) == 0 {
		return
	}
	listChanged, affinityChanged := false, false
	for name := range c.dirty {
		old, had := s.nodes[name]
		if had && (len(old.PodsWithAffinity) > 0 || len(old.PodsWithRequiredAntiAffinity) > 0) {
			affinityChanged = true
		}
		n, ok := c.nodes[name]
		if !ok || n.Node() == nil {
			if had {
				delete(s.nodes, name)
				listChanged = true
			}
			continue
		}
		clone := n.Clone()
		if len(clone.PodsWithAffinity) > 0 || len(clone.PodsWithRequiredAntiAffinity) > 0 {
			affinityChanged = true
		}
		if had {
			*old = *clone
		} else {
			s.nodes[name] = clone
			listChanged = true
		}
	}
	clear(c.dirty)
	s.generation = c.generation
	if listChanged {
		s.list = s.list[:0]
		for _, name := range c.order {
			if n, ok := s.nodes[name]; ok {
				s.list = append(s.list, n)
			}
		}
		affinityChanged = true
	}
	if affinityChanged {
		s.rebuildAffinityLists()
	}
}
