// Package nodeunschedulable is the NodeUnschedulable plugin: cordoned nodes
// take only pods that tolerate the node.kubernetes.io/unschedulable taint.
package nodeunschedulable

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodeUnschedulable"

// ErrReason is the reason of a rejection.
const ErrReason = "node(s) were unschedulable"

// NodeUnschedulable is the plugin.
type NodeUnschedulable struct{}

var (
	_ framework.FilterPlugin      = NodeUnschedulable{}
	_ framework.EnqueueExtensions = NodeUnschedulable{}
)

// New returns the plugin.
func New(framework.Handle) (framework.Plugin, error) { return NodeUnschedulable{}, nil }

// Name implements framework.Plugin.
func (NodeUnschedulable) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (NodeUnschedulable) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.NodeResource, ActionType: framework.Add | framework.UpdateNodeTaint}}
}

var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// Filter implements framework.FilterPlugin.
func (NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	node := n.Node()
	if node == nil || !node.Spec.Unschedulable {
		return nil
	}
	if helper.TolerationsTolerateTaint(pod.Spec.Tolerations, &unschedulableTaint) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
}
