// Package defaultbinder is the DefaultBinder plugin: it binds a pod by
// creating its pods/binding subresource.
package defaultbinder

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Name is the plugin's name.
const Name = "DefaultBinder"

// DefaultBinder is the plugin.
type DefaultBinder struct{ client framework.Client }

var _ framework.BindPlugin = (*DefaultBinder)(nil)

// New returns the plugin.
func New(h framework.Handle) (framework.Plugin, error) {
	if h.ClientSet() == nil {
		return nil, fmt.Errorf("%s needs a client", Name)
	}
	return &DefaultBinder{client: h.ClientSet()}, nil
}

// Name implements framework.Plugin.
func (*DefaultBinder) Name() string { return Name }

// Bind implements framework.BindPlugin.
func (b *DefaultBinder) Bind(ctx context.Context, _ *framework.CycleState, pod *corev1.Pod, nodeName string) *framework.Status {
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: nodeName},
	}
	if err := b.client.BindPod(ctx, binding); err != nil {
		return framework.AsStatus(fmt.Errorf("bind pod %s to %s: %w", framework.PodKey(pod), nodeName, err))
	}
	return nil
}
