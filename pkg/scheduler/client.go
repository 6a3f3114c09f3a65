package scheduler

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// clientAdapter writes to the cluster through the typed clientset.
type clientAdapter struct{ cs *typed.Clientset }

var _ framework.Client = clientAdapter{}

func (c clientAdapter) BindPod(ctx context.Context, b *corev1.Binding) error {
	return c.cs.CoreV1().Pods(b.Namespace).Bind(ctx, b, metav1.CreateOptions{})
}

func (c clientAdapter) DeletePod(ctx context.Context, pod *corev1.Pod, opts metav1.DeleteOptions) error {
	return c.cs.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
}

func (c clientAdapter) PatchPodStatus(ctx context.Context, pod *corev1.Pod, patch []byte) error {
	_, err := c.cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}
