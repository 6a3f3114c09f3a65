// Package taintnodesbycondition is the TaintNodesByCondition admission
// plugin: a new Node gets the node.kubernetes.io/not-ready:NoSchedule
// taint, so that nothing is scheduled on it before its kubelet reports it
// Ready. The node lifecycle controller removes the taint then (it keeps
// the taints of the Ready condition in line afterwards).
package taintnodesbycondition

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Name is the plugin's name in Kubernetes.
const Name = "TaintNodesByCondition"

// Plugin is TaintNodesByCondition admission, of the mutating phase.
type Plugin struct{}

var _ admission.MutationInterface = Plugin{}

// Name is the plugin's name, by which it is disabled.
func (Plugin) Name() string { return Name }

// Handles implements admission.Interface: the creates of nodes.
func (Plugin) Handles(a *rest.Attributes) bool {
	return a.Operation == rest.OperationCreate && a.Resource.GroupResource() == corev1.Resource("nodes") && a.Subresource == ""
}

// Admit implements admission.MutationInterface: it adds the taint unless
// the node has it (with any value).
func (Plugin) Admit(_ context.Context, a *rest.Attributes) error {
	node, ok := a.Object.(*corev1.Node)
	if !ok {
		return nil
	}
	taint := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	for _, t := range node.Spec.Taints {
		if t.MatchTaint(&taint) {
			return nil
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, taint)
	return nil
}
