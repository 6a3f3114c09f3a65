// Package nodename is the NodeName plugin: a pod that names a node in
// spec.nodeName fits only there.
package nodename

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodeName"

// ErrReason is the reason of a rejection.
const ErrReason = "node(s) didn't match the requested node name"

// NodeName is the plugin.
type NodeName struct{}

var (
	_ framework.FilterPlugin      = NodeName{}
	_ framework.EnqueueExtensions = NodeName{}
)

// New returns the plugin.
func New(framework.Handle) (framework.Plugin, error) { return NodeName{}, nil }

// Name implements framework.Plugin.
func (NodeName) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (NodeName) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{{Resource: framework.NodeResource, ActionType: framework.Add}}
}

// Filter implements framework.FilterPlugin.
func (NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != n.Name() {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
	}
	return nil
}
