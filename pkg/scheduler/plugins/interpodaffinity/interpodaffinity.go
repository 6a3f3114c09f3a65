// Package interpodaffinity is the InterPodAffinity plugin: required pod
// affinity and anti-affinity (the pod's own and, by symmetry, that of the
// pods already running) filter nodes; preferred terms score them.
package interpodaffinity

import (
	"context"
	"maps"
	"sync"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/labels"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "InterPodAffinity"

// Reasons of rejections.
const (
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
	ErrReasonAffinityRulesNotMatch             = "node(s) didn't match pod affinity rules"
	ErrReasonAntiAffinityRulesNotMatch         = "node(s) didn't match pod anti-affinity rules"
)

// hardPodAffinityWeight is the score weight of an existing pod's required
// affinity term that the incoming pod matches.
const hardPodAffinityWeight = 1

const (
	preFilterKey framework.StateKey = "PreFilter" + Name
	preScoreKey  framework.StateKey = "PreScore" + Name
)

type topologyPair struct{ key, value string }

type pairCounts map[topologyPair]int64

// add counts the node's values of each term's topology key.
func (c pairCounts) add(terms []framework.AffinityTerm, node *corev1.Node, n int64) {
	for _, t := range terms {
		if v, ok := node.Labels[t.TopologyKey]; ok {
			p := topologyPair{t.TopologyKey, v}
			c[p] += n
			if c[p] == 0 {
				delete(c, p)
			}
		}
	}
}

type preFilterState struct {
	// existingAnti counts topology domains with an existing pod whose
	// required anti-affinity the incoming pod matches.
	existingAnti pairCounts
	// affinity and anti count the domains with existing pods matching the
	// incoming pod's required affinity (all terms) and anti-affinity terms.
	affinity, anti pairCounts
	podInfo        *framework.PodInfo
	nsLabels       labels.Set
}

func (s *preFilterState) Clone() framework.StateData {
	return &preFilterState{existingAnti: maps.Clone(s.existingAnti), affinity: maps.Clone(s.affinity), anti: maps.Clone(s.anti), podInfo: s.podInfo, nsLabels: s.nsLabels}
}

// InterPodAffinity is the plugin.
type InterPodAffinity struct{ h framework.Handle }

var (
	_ framework.PreFilterPlugin     = (*InterPodAffinity)(nil)
	_ framework.FilterPlugin        = (*InterPodAffinity)(nil)
	_ framework.PreScorePlugin      = (*InterPodAffinity)(nil)
	_ framework.ScorePlugin         = (*InterPodAffinity)(nil)
	_ framework.PreFilterExtensions = (*InterPodAffinity)(nil)
	_ framework.EnqueueExtensions   = (*InterPodAffinity)(nil)
)

// New returns the plugin.
func New(h framework.Handle) (framework.Plugin, error) { return &InterPodAffinity{h: h}, nil }

// Name implements framework.Plugin.
func (*InterPodAffinity) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (*InterPodAffinity) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.All},
		{Resource: framework.NodeResource, ActionType: framework.Add | framework.UpdateNodeLabel},
		{Resource: framework.NamespaceResource, ActionType: framework.All},
	}
}

// matcher matches terms against pods, looking up namespace labels once.
type matcher struct {
	h      framework.Handle
	labels map[string]labels.Set
}

func (m *matcher) nsLabels(ns string) labels.Set {
	if l, ok := m.labels[ns]; ok {
		return l
	}
	if m.labels == nil {
		m.labels = map[string]labels.Set{}
	}
	var l labels.Set
	if m.h != nil {
		l = m.h.NamespaceLabels(ns)
	}
	m.labels[ns] = l
	return l
}

func (m *matcher) matches(t *framework.AffinityTerm, pod *corev1.Pod) bool {
	if _, ok := t.Namespaces[pod.Namespace]; !ok {
		if labels.MatchesNothing(t.NamespaceSelector) || !t.NamespaceSelector.Matches(m.nsLabels(pod.Namespace)) {
			return false
		}
	}
	return t.Selector.Matches(labels.Set(pod.Labels))
}

func (m *matcher) matchesAll(terms []framework.AffinityTerm, pod *corev1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !m.matches(&terms[i], pod) {
			return false
		}
	}
	return true
}

// PreFilter implements framework.PreFilterPlugin.
func (pl *InterPodAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod) (*framework.PreFilterResult, *framework.Status) {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	lister := pl.h.SnapshotSharedLister()
	withAnti := lister.HavePodsWithRequiredAntiAffinityList()
	if len(withAnti) == 0 && len(pi.RequiredAffinityTerms) == 0 && len(pi.RequiredAntiAffinityTerms) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	m := &matcher{h: pl.h}
	s := &preFilterState{existingAnti: pairCounts{}, affinity: pairCounts{}, anti: pairCounts{}, podInfo: pi, nsLabels: m.nsLabels(pod.Namespace)}
	for _, n := range withAnti {
		for _, existing := range n.PodsWithRequiredAntiAffinity {
			s.existingAnti.add(matchingTerms(existing.RequiredAntiAffinityTerms, pod, s.nsLabels), n.Node(), 1)
		}
	}
	if len(pi.RequiredAffinityTerms)+len(pi.RequiredAntiAffinityTerms) > 0 {
		for _, n := range lister.List() {
			for _, existing := range n.Pods {
				s.countIncoming(m, existing.Pod, n.Node(), 1)
			}
		}
	}
	state.Write(preFilterKey, s)
	return nil, nil
}

// matchingTerms returns the terms of an existing pod that select pod.
func matchingTerms(terms []framework.AffinityTerm, pod *corev1.Pod, nsLabels labels.Set) []framework.AffinityTerm {
	var out []framework.AffinityTerm
	for i := range terms {
		if terms[i].Matches(pod, nsLabels) {
			out = append(out, terms[i])
		}
	}
	return out
}

// countIncoming counts existing against the incoming pod's required terms.
func (s *preFilterState) countIncoming(m *matcher, existing *corev1.Pod, node *corev1.Node, n int64) {
	if m.matchesAll(s.podInfo.RequiredAffinityTerms, existing) {
		s.affinity.add(s.podInfo.RequiredAffinityTerms, node, n)
	}
	for i := range s.podInfo.RequiredAntiAffinityTerms {
		t := &s.podInfo.RequiredAntiAffinityTerms[i]
		if m.matches(t, existing) {
			s.anti.add([]framework.AffinityTerm{*t}, node, n)
		}
	}
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod implements framework.PreFilterExtensions.
func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, pod *corev1.Pod, added *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return pl.update(state, pod, added, n, 1)
}

// RemovePod implements framework.PreFilterExtensions.
func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, pod *corev1.Pod, removed *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return pl.update(state, pod, removed, n, -1)
}

func (pl *InterPodAffinity) update(state *framework.CycleState, pod *corev1.Pod, p *framework.PodInfo, n *framework.NodeInfo, sign int64) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.existingAnti.add(matchingTerms(p.RequiredAntiAffinityTerms, pod, s.nsLabels), n.Node(), sign)
	s.countIncoming(&matcher{h: pl.h}, p.Pod, n.Node(), sign)
	return nil
}

// Filter implements framework.FilterPlugin.
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	node := n.Node()
	for p, c := range s.existingAnti {
		if c > 0 && node.Labels[p.key] == p.value {
			if _, ok := node.Labels[p.key]; ok {
				return framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
			}
		}
	}
	for _, t := range s.podInfo.RequiredAntiAffinityTerms {
		if v, ok := node.Labels[t.TopologyKey]; ok && s.anti[topologyPair{t.TopologyKey, v}] > 0 {
			return framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
		}
	}
	if terms := s.podInfo.RequiredAffinityTerms; len(terms) > 0 {
		ok := true
		for _, t := range terms {
			v, has := node.Labels[t.TopologyKey]
			if !has || s.affinity[topologyPair{t.TopologyKey, v}] <= 0 {
				ok = false
				break
			}
		}
		// The first pod of a group that selects itself may go anywhere.
		if !ok && !(len(s.affinity) == 0 && (&matcher{h: pl.h}).matchesAll(terms, pod)) {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
		}
	}
	return nil
}

type scoreState struct {
	topologyScore map[string]map[string]int64
}

func (s *scoreState) Clone() framework.StateData { return s }

// PreScore implements framework.PreScorePlugin. It sums, by topology
// value, the weights of the preferred terms of the pod that existing pods
// match and of the existing pods' terms that the pod matches. Nodes are
// walked in parallel, each summing its own pods before one merge.
func (pl *InterPodAffinity) PreScore(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return framework.AsStatus(err)
	}
	lister := pl.h.SnapshotSharedLister()
	hasPreferred := len(pi.PreferredAffinityTerms)+len(pi.PreferredAntiAffinityTerms) > 0
	nodes := lister.HavePodsWithAffinityList()
	if hasPreferred {
		nodes = lister.List()
	}
	if len(nodes) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	ns := (&matcher{h: pl.h}).nsLabels(pod.Namespace)
	s := &scoreState{topologyScore: map[string]map[string]int64{}}
	var mu sync.Mutex
	merge := func(node *corev1.Node, key string, w int64) {
		v, ok := node.Labels[key]
		if !ok || w == 0 {
			return
		}
		if s.topologyScore[key] == nil {
			s.topologyScore[key] = map[string]int64{}
		}
		s.topologyScore[key][v] += w
	}
	pl.h.Parallelizer().Until(ctx, len(nodes), func(i int) {
		n := nodes[i]
		node := n.Node()
		pods := n.PodsWithAffinity
		if hasPreferred {
			pods = n.Pods
		}
		if node == nil || len(pods) == 0 {
			return
		}
		m := &matcher{h: pl.h}
		// The node's sums: by term of the pod, and by topology key for
		// the terms of existing pods.
		var affinity, anti []int64
		var byKey map[string]int64
		addKey := func(key string, w int64) {
			if byKey == nil {
				byKey = map[string]int64{}
			}
			byKey[key] += w
		}
		for _, existing := range pods {
			for i := range pi.PreferredAffinityTerms {
				if m.matches(&pi.PreferredAffinityTerms[i].AffinityTerm, existing.Pod) {
					if affinity == nil {
						affinity = make([]int64, len(pi.PreferredAffinityTerms))
					}
					affinity[i] += int64(pi.PreferredAffinityTerms[i].Weight)
				}
			}
			for i := range pi.PreferredAntiAffinityTerms {
				if m.matches(&pi.PreferredAntiAffinityTerms[i].AffinityTerm, existing.Pod) {
					if anti == nil {
						anti = make([]int64, len(pi.PreferredAntiAffinityTerms))
					}
					anti[i] -= int64(pi.PreferredAntiAffinityTerms[i].Weight)
				}
			}
			for _, t := range existing.RequiredAffinityTerms {
				if t.Matches(pod, ns) {
					addKey(t.TopologyKey, hardPodAffinityWeight)
				}
			}
			for _, t := range existing.PreferredAffinityTerms {
				if t.Matches(pod, ns) {
					addKey(t.TopologyKey, int64(t.Weight))
				}
			}
			for _, t := range existing.PreferredAntiAffinityTerms {
				if t.Matches(pod, ns) {
					addKey(t.TopologyKey, -int64(t.Weight))
				}
			}
		}
		if affinity == nil && anti == nil && byKey == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for i, w := range affinity {
			merge(node, pi.PreferredAffinityTerms[i].TopologyKey, w)
		}
		for i, w := range anti {
			merge(node, pi.PreferredAntiAffinityTerms[i].TopologyKey, w)
		}
		for key, w := range byKey {
			merge(node, key, w)
		}
	})
	if len(s.topologyScore) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreKey, s)
	return nil
}

// Score implements framework.ScorePlugin.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	var score int64
	for key, values := range s.topologyScore {
		if v, ok := n.Node().Labels[key]; ok {
			score += values[v]
		}
	}
	return score, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return minMax{} }

// minMax scales scores to [0, 100] between their minimum and maximum.
type minMax struct{}

func (minMax) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	if len(scores) == 0 {
		return nil
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		if hi > lo {
			scores[i].Score = framework.MaxNodeScore * (scores[i].Score - lo) / (hi - lo)
		} else {
			scores[i].Score = 0
		}
	}
	return nil
}
