package noderesources

import (
	"context"
	"math"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// BalancedAllocation is the NodeResourcesBalancedAllocation plugin: it
// prefers nodes whose cpu and memory would be used in equal fractions.
type BalancedAllocation struct{ resources []ResourceWeight }

var _ framework.ScorePlugin = (*BalancedAllocation)(nil)

// NewBalancedAllocation returns the plugin over cpu and memory.
func NewBalancedAllocation(framework.Handle) (framework.Plugin, error) {
	return &BalancedAllocation{resources: defaultResources}, nil
}

// Name implements framework.Plugin.
func (*BalancedAllocation) Name() string { return BalancedAllocationName }

// Score implements framework.ScorePlugin: 100 × (1 − the standard
// deviation of the requested fractions).
func (b *BalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	reqs := scoreRequests(state, pod).requests
	var fractions []float64
	for _, r := range b.resources {
		alloc, req := amounts(r.Name, n, reqs)
		if alloc == 0 {
			continue
		}
		fractions = append(fractions, min(1, float64(req)/float64(alloc)))
	}
	if len(fractions) < 2 {
		return framework.MaxNodeScore, nil
	}
	var mean float64
	for _, f := range fractions {
		mean += f
	}
	mean /= float64(len(fractions))
	var variance float64
	for _, f := range fractions {
		variance += (f - mean) * (f - mean)
	}
	std := math.Sqrt(variance / float64(len(fractions)))
	return int64((1 - std) * float64(framework.MaxNodeScore)), nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (*BalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }
