// Package tainttoleration is the TaintToleration plugin: NoSchedule and
// NoExecute taints keep pods that do not tolerate them off a node, and
// PreferNoSchedule taints lower its score.
package tainttoleration

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "TaintToleration"

// TaintToleration is the plugin.
type TaintToleration struct{}

var (
	_ framework.FilterPlugin      = TaintToleration{}
	_ framework.ScorePlugin       = TaintToleration{}
	_ framework.EnqueueExtensions = TaintToleration{}
)

// New returns the plugin.
func New(framework.Handle) (framework.Plugin, error) { return TaintToleration{}, nil }

// Name implements framework.Plugin.
func (TaintToleration) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (TaintToleration) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.NodeResource, ActionType: framework.Add | framework.UpdateNodeTaint}}
}

// Filter implements framework.FilterPlugin.
func (TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	node := n.Node()
	if node == nil {
		return framework.AsStatus(fmt.Errorf("node not found"))
	}
	taint, bad := helper.FindUntoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations, helper.DoNotScheduleTaints)
	if !bad {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value))
}

// Score implements framework.ScorePlugin: the number of PreferNoSchedule
// taints the pod does not tolerate (fewer is better after normalizing).
func (TaintToleration) Score(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	var tolerations []corev1.Toleration
	for _, t := range pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			tolerations = append(tolerations, t)
		}
	}
	var count int64
	for i := range n.Node().Spec.Taints {
		t := &n.Node().Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule && !helper.TolerationsTolerateTaint(tolerations, t) {
			count++
		}
	}
	return count, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (TaintToleration) ScoreExtensions() framework.ScoreExtensions { return reverse{} }

type reverse struct{}

func (reverse) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *corev1.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
	return nil
}
