package cache

import (
	"fmt"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Snapshot is the frozen view of the cache one scheduling cycle reads.
type Snapshot struct {
	nodes            map[string]*framework.NodeInfo
	list             []*framework.NodeInfo
	withAffinity     []*framework.NodeInfo
	withAntiAffinity []*framework.NodeInfo
	generation       int64
}

var _ framework.NodeInfoLister = (*Snapshot)(nil)

// NewEmptySnapshot returns a snapshot with no nodes.
func NewEmptySnapshot() *Snapshot {
	return &Snapshot{nodes: map[string]*framework.NodeInfo{}}
}

// NewSnapshot builds a snapshot of nodes and pods directly, for tests and
// tools; pods on unknown nodes are ignored.
func NewSnapshot(pods []*corev1.Pod, nodes []*corev1.Node) *Snapshot {
	c := New()
	for _, n := range nodes {
		c.AddNode(n)
	}
	for _, p := range pods {
		c.AddPod(p)
	}
	s := NewEmptySnapshot()
	c.UpdateSnapshot(s)
	return s
}

func (s *Snapshot) rebuildAffinityLists() {
	s.withAffinity, s.withAntiAffinity = s.withAffinity[:0], s.withAntiAffinity[:0]
	for _, n := range s.list {
		if len(n.PodsWithAffinity) > 0 {
			s.withAffinity = append(s.withAffinity, n)
		}
		if len(n.PodsWithRequiredAntiAffinity) > 0 {
			s.withAntiAffinity = append(s.withAntiAffinity, n)
		}
	}
}

// List implements framework.NodeInfoLister.
func (s *Snapshot) List() []*framework.NodeInfo { return s.list }

// HavePodsWithAffinityList implements framework.NodeInfoLister.
func (s *Snapshot) HavePodsWithAffinityList() []*framework.NodeInfo { return s.withAffinity }

// HavePodsWithRequiredAntiAffinityList implements framework.NodeInfoLister.
func (s *Snapshot) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	return s.withAntiAffinity
}

// Get implements framework.NodeInfoLister.
func (s *Snapshot) Get(name string) (*framework.NodeInfo, error) {
	if n, ok := s.nodes[name]; ok {
		return n, nil
	}
	return nil, fmt.Errorf("node %q not found in the snapshot", name)
}

// NumNodes returns the number of nodes.
func (s *Snapshot) NumNodes() int { return len(s.list) }
