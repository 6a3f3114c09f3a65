// Package noderesources holds the NodeResourcesFit plugin (a pod's requests
// must fit in the node's allocatable room; LeastAllocated or MostAllocated
// scoring) and the NodeResourcesBalancedAllocation plugin.
package noderesources

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Names of the plugins.
const (
	FitName                = "NodeResourcesFit"
	BalancedAllocationName = "NodeResourcesBalancedAllocation"
)

// ScoringStrategy selects how NodeResourcesFit ranks nodes.
type ScoringStrategy string

// The scoring strategies.
const (
	// LeastAllocated prefers nodes with the most room left (spreading).
	LeastAllocated ScoringStrategy = "LeastAllocated"
	// MostAllocated prefers the fullest nodes (bin packing).
	MostAllocated ScoringStrategy = "MostAllocated"
)

// ResourceWeight is a resource scoring looks at, and its weight.
type ResourceWeight struct {
	Name   corev1.ResourceName
	Weight int64
}

// FitArgs configure NodeResourcesFit.
type FitArgs struct {
	// ScoringStrategy is LeastAllocated when empty.
	ScoringStrategy ScoringStrategy
	// Resources scored; cpu and memory with weight 1 when empty.
	Resources []ResourceWeight
}

// DefaultResources are the resources scored by default.
var defaultResources = []ResourceWeight{{Name: corev1.ResourceCPU, Weight: 1}, {Name: corev1.ResourceMemory, Weight: 1}}

// ErrReasonTooManyPods is the reason when the node's pod count is full.
const ErrReasonTooManyPods = "Too many pods"

const fitStateKey framework.StateKey = "PreFilter" + FitName

type fitState struct{ *framework.Resource }

func (s fitState) Clone() framework.StateData { return s }

// Fit is the NodeResourcesFit plugin.
type Fit struct {
	strategy  ScoringStrategy
	resources []ResourceWeight
}

var (
	_ framework.PreFilterPlugin   = (*Fit)(nil)
	_ framework.FilterPlugin      = (*Fit)(nil)
	_ framework.ScorePlugin       = (*Fit)(nil)
	_ framework.PreScorePlugin    = (*Fit)(nil)
	_ framework.EnqueueExtensions = (*Fit)(nil)
)

// NewFit returns a plugin factory for args.
func NewFit(args FitArgs) func(framework.Handle) (framework.Plugin, error) {
	return func(framework.Handle) (framework.Plugin, error) {
		f := &Fit{strategy: args.ScoringStrategy, resources: args.Resources}
		if f.strategy == "" {
			f.strategy = LeastAllocated
		}
		if f.strategy != LeastAllocated && f.strategy != MostAllocated {
			return nil, fmt.Errorf("scoringStrategy.type: Unsupported value: %q: supported values: %q, %q", f.strategy, LeastAllocated, MostAllocated)
		}
		if len(f.resources) == 0 {
			f.resources = defaultResources
		}
		for i, r := range f.resources {
			if r.Weight <= 0 || r.Weight > 100 {
				return nil, fmt.Errorf("scoringStrategy.resources[%d].weight: Invalid value: %d: must be in the range [1, 100]", i, r.Weight)
			}
		}
		return f, nil
	}
}

// Name implements framework.Plugin.
func (*Fit) Name() string { return FitName }

// EventsToRegister implements framework.EnqueueExtensions.
func (*Fit) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.Delete | framework.UpdatePodScaleDown},
		{Resource: framework.NodeResource, ActionType: framework.Add | framework.UpdateNodeAllocatable},
	}
}

// PreFilter implements framework.PreFilterPlugin.
func (*Fit) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod) (*framework.PreFilterResult, *framework.Status) {
	reqs, _ := framework.PodRequests(pod)
	state.Write(fitStateKey, fitState{reqs})
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (*Fit) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// InsufficientResource is one resource the node lacks for the pod.
type InsufficientResource struct {
	Name   corev1.ResourceName
	Reason string
	// Unresolvable is set when the pod asks for more than the node has at
	// all, so evicting pods cannot help.
	Unresolvable bool
}

// Filter implements framework.FilterPlugin.
func (*Fit) Filter(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	s, err := framework.ReadState[fitState](state, fitStateKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	missing := Fits(s.Resource, n)
	if len(missing) == 0 {
		return nil
	}
	code := framework.UnschedulableAndUnresolvable
	reasons := make([]string, 0, len(missing))
	for _, m := range missing {
		reasons = append(reasons, m.Reason)
		if !m.Unresolvable {
			code = framework.Unschedulable
		}
	}
	return framework.NewStatus(code, reasons...)
}

// Fits returns what node n lacks to run a pod requesting reqs.
func Fits(reqs *framework.Resource, n *framework.NodeInfo) []InsufficientResource {
	var out []InsufficientResource
	alloc, used := n.Allocatable, n.Requested
	if int64(len(n.Pods))+1 > alloc.AllowedPodNumber {
		out = append(out, InsufficientResource{Name: corev1.ResourcePods, Reason: ErrReasonTooManyPods, Unresolvable: alloc.AllowedPodNumber < 1})
	}
	check := func(name corev1.ResourceName, want, have, inUse int64) {
		if want > 0 && want > have-inUse {
			out = append(out, InsufficientResource{Name: name, Reason: "Insufficient " + string(name), Unresolvable: want > have})
		}
	}
	check(corev1.ResourceCPU, reqs.MilliCPU, alloc.MilliCPU, used.MilliCPU)
	check(corev1.ResourceMemory, reqs.Memory, alloc.Memory, used.Memory)
	check(corev1.ResourceEphemeralStorage, reqs.EphemeralStorage, alloc.EphemeralStorage, used.EphemeralStorage)
	for name, want := range reqs.Scalar {
		check(name, want, alloc.Scalar[name], used.Scalar[name])
	}
	return out
}

const scoreStateKey framework.StateKey = "PreScore" + FitName

type scoreState struct{ requests, nonZero *framework.Resource }

func (s scoreState) Clone() framework.StateData { return s }

// PreScore implements framework.PreScorePlugin: the pod's requests, once.
func (*Fit) PreScore(_ context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	r, nz := framework.PodRequests(pod)
	state.Write(scoreStateKey, scoreState{requests: r, nonZero: nz})
	return nil
}

func scoreRequests(state *framework.CycleState, pod *corev1.Pod) scoreState {
	if s, err := framework.ReadState[scoreState](state, scoreStateKey); err == nil {
		return s
	}
	r, nz := framework.PodRequests(pod)
	return scoreState{requests: r, nonZero: nz}
}

// Score implements framework.ScorePlugin.
func (f *Fit) Score(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	podNZ := scoreRequests(state, pod).nonZero
	var sum, weights int64
	for _, r := range f.resources {
		alloc, req := amounts(r.Name, n, podNZ)
		if alloc == 0 {
			continue
		}
		var s int64
		switch f.strategy {
		case MostAllocated:
			s = min(req, alloc) * framework.MaxNodeScore / alloc
		default:
			if req <= alloc {
				s = (alloc - req) * framework.MaxNodeScore / alloc
			}
		}
		sum += s * r.Weight
		weights += r.Weight
	}
	if weights == 0 {
		return 0, nil
	}
	return sum / weights, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (*Fit) ScoreExtensions() framework.ScoreExtensions { return nil }

// amounts returns the node's allocatable amount of a resource and what it
// would have requested with the pod, using the non-zero defaults for cpu
// and memory.
func amounts(name corev1.ResourceName, n *framework.NodeInfo, pod *framework.Resource) (alloc, req int64) {
	switch name {
	case corev1.ResourceCPU:
		return n.Allocatable.MilliCPU, n.NonZeroRequested.MilliCPU + pod.MilliCPU
	case corev1.ResourceMemory:
		return n.Allocatable.Memory, n.NonZeroRequested.Memory + pod.Memory
	case corev1.ResourceEphemeralStorage:
		return n.Allocatable.EphemeralStorage, n.Requested.EphemeralStorage + pod.EphemeralStorage
	default:
		return n.Allocatable.Scalar[name], n.Requested.Scalar[name] + pod.Scalar[name]
	}
}
