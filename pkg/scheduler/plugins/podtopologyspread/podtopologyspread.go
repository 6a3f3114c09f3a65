// Package podtopologyspread is the PodTopologySpread plugin: a pod's
// topology spread constraints keep the skew of matching pods across
// topology domains within maxSkew (DoNotSchedule) or prefer it (ScheduleAnyway).
package podtopologyspread

import (
	"context"
	"fmt"
	"maps"
	"math"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "PodTopologySpread"

// Reasons of rejections.
const (
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	ErrReasonNodeLabelNotMatch   = ErrReasonConstraintsNotMatch + " (missing required label)"
)

const (
	preFilterKey framework.StateKey = "PreFilter" + Name
	preScoreKey  framework.StateKey = "PreScore" + Name
)

// constraint is a parsed topology spread constraint.
type constraint struct {
	maxSkew         int64
	key             string
	selector        labels.Selector
	minDomains      int
	honorAffinity   bool
	honorTaints     bool
	scheduleAnyway  bool
	requiredAffinty *helper.RequiredNodeAffinity
}

// parseConstraints returns the pod's constraints of one kind.
func parseConstraints(pod *corev1.Pod, scheduleAnyway bool) ([]constraint, error) {
	var out []constraint
	var aff *helper.RequiredNodeAffinity
	for i, c := range pod.Spec.TopologySpreadConstraints {
		if (c.WhenUnsatisfiable == corev1.ScheduleAnyway) != scheduleAnyway {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("spec.topologySpreadConstraints[%d].labelSelector: %w", i, err)
		}
		if c.LabelSelector != nil {
			for _, k := range c.MatchLabelKeys {
				if v, ok := pod.Labels[k]; ok {
					r, err := labels.NewRequirement(k, "=", []string{v})
					if err != nil {
						return nil, fmt.Errorf("spec.topologySpreadConstraints[%d].matchLabelKeys: %w", i, err)
					}
					sel = sel.Add(*r)
				}
			}
		}
		pc := constraint{
			maxSkew: int64(c.MaxSkew), key: c.TopologyKey, selector: sel, minDomains: 1,
			honorAffinity:  c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
			honorTaints:    c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
			scheduleAnyway: scheduleAnyway,
		}
		if c.MinDomains != nil {
			pc.minDomains = int(*c.MinDomains)
		}
		if pc.honorAffinity {
			if aff == nil {
				if aff, err = helper.NewRequiredNodeAffinity(pod); err != nil {
					return nil, err
				}
			}
			pc.requiredAffinty = aff
		}
		out = append(out, pc)
	}
	return out, nil
}

// includes reports whether the node counts as a domain of c for pod.
func (c *constraint) includes(pod *corev1.Pod, node *corev1.Node) bool {
	if c.honorAffinity && !c.requiredAffinty.Match(node) {
		return false
	}
	if c.honorTaints {
		if _, bad := helper.FindUntoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations, helper.DoNotScheduleTaints); bad {
			return false
		}
	}
	return true
}

// countMatching counts the pods on n of pod's namespace that c selects.
func (c *constraint) countMatching(pod *corev1.Pod, n *framework.NodeInfo) int64 {
	var count int64
	for _, p := range n.Pods {
		if p.Pod.Namespace == pod.Namespace && p.Pod.DeletionTimestamp == nil && c.selector.Matches(labels.Set(p.Pod.Labels)) {
			count++
		}
	}
	return count
}

func hasAllKeys(node *corev1.Node, cs []constraint) bool {
	for _, c := range cs {
		if _, ok := node.Labels[c.key]; !ok {
			return false
		}
	}
	return true
}

type preFilterState struct {
	constraints []constraint
	// counts[i] maps each domain of constraint i to its matching pods.
	counts []map[string]int64
	// minMatch[i] is the smallest count among constraint i's domains.
	minMatch []int64
}

func (s *preFilterState) Clone() framework.StateData {
	c := &preFilterState{constraints: s.constraints, counts: make([]map[string]int64, len(s.counts)), minMatch: append([]int64(nil), s.minMatch...)}
	for i := range s.counts {
		c.counts[i] = maps.Clone(s.counts[i])
	}
	return c
}

func (s *preFilterState) updateMins() {
	for i, counts := range s.counts {
		m := int64(math.MaxInt64)
		for _, n := range counts {
			m = min(m, n)
		}
		if len(counts) < s.constraints[i].minDomains || len(counts) == 0 {
			m = 0
		}
		s.minMatch[i] = m
	}
}

// PodTopologySpread is the plugin.
type PodTopologySpread struct{ h framework.Handle }

var (
	_ framework.PreFilterPlugin     = (*PodTopologySpread)(nil)
	_ framework.FilterPlugin        = (*PodTopologySpread)(nil)
	_ framework.PreScorePlugin      = (*PodTopologySpread)(nil)
	_ framework.ScorePlugin         = (*PodTopologySpread)(nil)
	_ framework.PreFilterExtensions = (*PodTopologySpread)(nil)
	_ framework.EnqueueExtensions   = (*PodTopologySpread)(nil)
)

// New returns the plugin.
func New(h framework.Handle) (framework.Plugin, error) { return &PodTopologySpread{h: h}, nil }

// Name implements framework.Plugin.
func (*PodTopologySpread) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (*PodTopologySpread) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.All},
		{Resource: framework.NodeResource, ActionType: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint},
	}
}

// PreFilter implements framework.PreFilterPlugin; a pod without
// DoNotSchedule constraints skips the filter.
func (pl *PodTopologySpread) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod) (*framework.PreFilterResult, *framework.Status) {
	cs, err := parseConstraints(pod, false)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	if len(cs) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &preFilterState{constraints: cs, counts: make([]map[string]int64, len(cs)), minMatch: make([]int64, len(cs))}
	for i := range s.counts {
		s.counts[i] = map[string]int64{}
	}
	for _, n := range pl.h.SnapshotSharedLister().List() {
		node := n.Node()
		if !hasAllKeys(node, cs) {
			continue
		}
		for i := range cs {
			if cs[i].includes(pod, node) {
				s.counts[i][node.Labels[cs[i].key]] += cs[i].countMatching(pod, n)
			}
		}
	}
	s.updateMins()
	state.Write(preFilterKey, s)
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod implements framework.PreFilterExtensions.
func (pl *PodTopologySpread) AddPod(_ context.Context, state *framework.CycleState, pod *corev1.Pod, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return pl.update(state, pod, p, n, 1)
}

// RemovePod implements framework.PreFilterExtensions.
func (pl *PodTopologySpread) RemovePod(_ context.Context, state *framework.CycleState, pod *corev1.Pod, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return pl.update(state, pod, p, n, -1)
}

func (pl *PodTopologySpread) update(state *framework.CycleState, pod *corev1.Pod, p *framework.PodInfo, n *framework.NodeInfo, sign int64) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	node := n.Node()
	if p.Pod.Namespace != pod.Namespace || !hasAllKeys(node, s.constraints) {
		return nil
	}
	for i := range s.constraints {
		c := &s.constraints[i]
		if c.includes(pod, node) && c.selector.Matches(labels.Set(p.Pod.Labels)) {
			s.counts[i][node.Labels[c.key]] += sign
		}
	}
	s.updateMins()
	return nil
}

// Filter implements framework.FilterPlugin.
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	node := n.Node()
	for i := range s.constraints {
		c := &s.constraints[i]
		v, ok := node.Labels[c.key]
		if !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch)
		}
		var self int64
		if c.selector.Matches(labels.Set(pod.Labels)) {
			self = 1
		}
		if s.counts[i][v]+self-s.minMatch[i] > c.maxSkew {
			return framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch)
		}
	}
	return nil
}

type scoreState struct {
	constraints []constraint
	counts      []map[string]int64
	weights     []float64
	ignored     map[string]struct{}
}

func (s *scoreState) Clone() framework.StateData { return s }

// PreScore implements framework.PreScorePlugin; a pod without
// ScheduleAnyway constraints skips Score.
func (pl *PodTopologySpread) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, filtered []*framework.NodeInfo) *framework.Status {
	cs, err := parseConstraints(pod, true)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	s := &scoreState{constraints: cs, counts: make([]map[string]int64, len(cs)), weights: make([]float64, len(cs)), ignored: map[string]struct{}{}}
	for i := range s.counts {
		s.counts[i] = map[string]int64{}
	}
	for _, n := range filtered {
		if !hasAllKeys(n.Node(), cs) {
			s.ignored[n.Name()] = struct{}{}
		}
	}
	for _, n := range pl.h.SnapshotSharedLister().List() {
		node := n.Node()
		if !hasAllKeys(node, cs) {
			continue
		}
		for i := range cs {
			if cs[i].includes(pod, node) {
				s.counts[i][node.Labels[cs[i].key]] += cs[i].countMatching(pod, n)
			}
		}
	}
	for i := range cs {
		s.weights[i] = math.Log(float64(len(s.counts[i]) + 2))
	}
	state.Write(preScoreKey, s)
	return nil
}

// Score implements framework.ScorePlugin: the weighted matching pods in
// the node's domains (fewer is better after normalizing).
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	if _, ok := s.ignored[n.Name()]; ok {
		return 0, nil
	}
	var score float64
	for i := range s.constraints {
		c := &s.constraints[i]
		score += float64(s.counts[i][n.Node().Labels[c.key]])*s.weights[i] + float64(c.maxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore implements framework.ScoreExtensions: reversed so that
// emptier domains score higher; nodes missing a topology key score 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	s, err := framework.ReadState[*scoreState](state, preScoreKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, sc := range scores {
		if _, ok := s.ignored[sc.Name]; ok {
			continue
		}
		lo, hi = min(lo, sc.Score), max(hi, sc.Score)
	}
	for i := range scores {
		if _, ok := s.ignored[scores[i].Name]; ok {
			scores[i].Score = 0
			continue
		}
		if hi == 0 {
			scores[i].Score = framework.MaxNodeScore
			continue
		}
		scores[i].Score = framework.MaxNodeScore * (hi + lo - scores[i].Score) / hi
	}
	return nil
}
