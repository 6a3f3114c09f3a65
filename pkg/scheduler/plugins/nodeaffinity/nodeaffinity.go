// Package nodeaffinity is the NodeAffinity plugin: a pod's nodeSelector and
// required node affinity filter nodes; preferred terms score them.
package nodeaffinity

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodeAffinity"

// ErrReasonPod is the reason of a rejection.
const ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"

const (
	preFilterKey framework.StateKey = "PreFilter" + Name
	preScoreKey  framework.StateKey = "PreScore" + Name
)

type preFilterState struct{ required *helper.RequiredNodeAffinity }

func (s *preFilterState) Clone() framework.StateData { return s }

type weightedTerm struct {
	term   helper.NodeSelectorTerm
	weight int64
}

type preScoreState struct{ preferred []weightedTerm }

func (s *preScoreState) Clone() framework.StateData { return s }

// NodeAffinity is the plugin.
type NodeAffinity struct{}

var (
	_ framework.PreFilterPlugin   = NodeAffinity{}
	_ framework.FilterPlugin      = NodeAffinity{}
	_ framework.PreScorePlugin    = NodeAffinity{}
	_ framework.ScorePlugin       = NodeAffinity{}
	_ framework.EnqueueExtensions = NodeAffinity{}
)

// New returns the plugin.
func New(framework.Handle) (framework.Plugin, error) { return NodeAffinity{}, nil }

// Name implements framework.Plugin.
func (NodeAffinity) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (NodeAffinity) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.NodeResource, ActionType: framework.Add | framework.UpdateNodeLabel}}
}

// PreFilter implements framework.PreFilterPlugin; a pod with no node
// constraints skips the filter.
func (NodeAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod) (*framework.PreFilterResult, *framework.Status) {
	a := pod.Spec.Affinity
	hasRequired := a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
	if len(pod.Spec.NodeSelector) == 0 && !hasRequired {
		return nil, framework.NewStatus(framework.Skip)
	}
	req, err := helper.NewRequiredNodeAffinity(pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	state.Write(preFilterKey, &preFilterState{required: req})
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter implements framework.FilterPlugin.
func (NodeAffinity) Filter(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[*preFilterState](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !s.required.Match(n.Node()) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	}
	return nil
}

// PreScore implements framework.PreScorePlugin; a pod without preferred
// terms skips Score.
func (NodeAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	prefs := a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	path := field.NewPath("spec", "affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
	s := &preScoreState{}
	for i, p := range prefs {
		if p.Weight == 0 {
			continue
		}
		terms, err := helper.ParseNodeSelectorTerms([]corev1.NodeSelectorTerm{p.Preference}, path.Index(i).Child("preference"))
		if err != nil {
			return framework.AsStatus(fmt.Errorf("pod %s: %w", framework.PodKey(pod), err))
		}
		s.preferred = append(s.preferred, weightedTerm{term: terms[0], weight: int64(p.Weight)})
	}
	state.Write(preScoreKey, s)
	return nil
}

// Score implements framework.ScorePlugin: the sum of the weights of the
// preferred terms the node matches.
func (NodeAffinity) Score(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	s, err := framework.ReadState[*preScoreState](state, preScoreKey)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	var score int64
	for _, t := range s.preferred {
		if t.term.Match(n.Node()) {
			score += t.weight
		}
	}
	return score, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (NodeAffinity) ScoreExtensions() framework.ScoreExtensions { return normalizer{} }

type normalizer struct{}

func (normalizer) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
	return nil
}
