// Package plugins assembles the default scheduling profile from the
// in-tree plugins.
package plugins

import (
	policyv1 "kubecore.io/api/policy/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/plugins/defaultbinder"
	"kubecore.io/kubecore/pkg/scheduler/plugins/defaultpreemption"
	"kubecore.io/kubecore/pkg/scheduler/plugins/interpodaffinity"
	"kubecore.io/kubecore/pkg/scheduler/plugins/nodeaffinity"
	"kubecore.io/kubecore/pkg/scheduler/plugins/nodename"
	"kubecore.io/kubecore/pkg/scheduler/plugins/nodeports"
	"kubecore.io/kubecore/pkg/scheduler/plugins/noderesources"
	"kubecore.io/kubecore/pkg/scheduler/plugins/nodeunschedulable"
	"kubecore.io/kubecore/pkg/scheduler/plugins/podtopologyspread"
	"kubecore.io/kubecore/pkg/scheduler/plugins/tainttoleration"
	"kubecore.io/kubecore/pkg/scheduler/plugins/volumebinding"
)

// Options tune the default profile.
type Options struct {
	// ScoringStrategy of NodeResourcesFit; LeastAllocated when empty.
	ScoringStrategy noderesources.ScoringStrategy
	// PodDisruptionBudgets returns the budgets preemption respects; nil
	// means none are known.
	PodDisruptionBudgets func() []*policyv1.PodDisruptionBudget
	// Volumes, when set, adds the VolumeBinding plugin with these args.
	Volumes *volumebinding.Args
}

// Default returns the plugins of the default profile, filters first, with
// Kubernetes' default score weights.
func Default(o Options) []framework.PluginSpec {
	specs := []framework.PluginSpec{
		{Name: nodeunschedulable.Name, New: nodeunschedulable.New},
		{Name: nodename.Name, New: nodename.New},
		{Name: tainttoleration.Name, Weight: 3, New: tainttoleration.New},
		{Name: nodeaffinity.Name, Weight: 2, New: nodeaffinity.New},
		{Name: nodeports.Name, New: nodeports.New},
		{Name: noderesources.FitName, Weight: 1, New: noderesources.NewFit(noderesources.FitArgs{ScoringStrategy: o.ScoringStrategy})},
		{Name: podtopologyspread.Name, Weight: 2, New: podtopologyspread.New},
		{Name: interpodaffinity.Name, Weight: 2, New: interpodaffinity.New},
		{Name: noderesources.BalancedAllocationName, Weight: 1, New: noderesources.NewBalancedAllocation},
		{Name: defaultpreemption.Name, New: defaultpreemption.New(defaultpreemption.Args{PodDisruptionBudgets: o.PodDisruptionBudgets})},
		{Name: defaultbinder.Name, New: defaultbinder.New},
	}
	if o.Volumes != nil {
		// Filters run in order: volumes after the node's own constraints.
		vb := framework.PluginSpec{Name: volumebinding.Name, New: volumebinding.New(*o.Volumes)}
		specs = append(specs[:5], append([]framework.PluginSpec{vb}, specs[5:]...)...)
	}
	return specs
}
