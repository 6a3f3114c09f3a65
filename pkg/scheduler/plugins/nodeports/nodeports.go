// Package nodeports is the NodePorts plugin: a pod's host ports must be
// free on the node.
package nodeports

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "NodePorts"

// ErrReason is the reason of a rejection.
const ErrReason = "node(s) didn't have free ports for the requested pod ports"

const stateKey framework.StateKey = "PreFilter" + Name

type preFilterState []framework.HostPort

func (s preFilterState) Clone() framework.StateData { return s }

// NodePorts is the plugin.
type NodePorts struct{}

var (
	_ framework.PreFilterPlugin   = NodePorts{}
	_ framework.FilterPlugin      = NodePorts{}
	_ framework.EnqueueExtensions = NodePorts{}
)

// New returns the plugin.
func New(framework.Handle) (framework.Plugin, error) { return NodePorts{}, nil }

// Name implements framework.Plugin.
func (NodePorts) Name() string { return Name }

// EventsToRegister implements framework.EnqueueExtensions.
func (NodePorts) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.AssignedPod, ActionType: framework.Delete},
		{Resource: framework.NodeResource, ActionType: framework.Add},
	}
}

// PreFilter implements framework.PreFilterPlugin; a pod without host ports
// skips the filter.
func (NodePorts) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod) (*framework.PreFilterResult, *framework.Status) {
	ports := framework.PodHostPorts(pod)
	if len(ports) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(stateKey, preFilterState(ports))
	return nil, nil
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (NodePorts) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter implements framework.FilterPlugin.
func (NodePorts) Filter(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	ports, err := framework.ReadState[preFilterState](state, stateKey)
	if err != nil {
		return framework.AsStatus(err)
	}
	for _, want := range ports {
		for _, used := range n.UsedPorts {
			if want.Conflicts(used) {
				return framework.NewStatus(framework.Unschedulable, ErrReason)
			}
		}
	}
	return nil
}
