package kubelet

import (
	"context"
	"fmt"
	"slices"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/server"
)

var _ server.Host = (*Kubelet)(nil)

// Pods are the pods the kubelet runs, sorted by namespace and name.
func (kl *Kubelet) Pods() []*corev1.Pod {
	pods := kl.workers.pods()
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		if a.Namespace != b.Namespace {
			if a.Namespace < b.Namespace {
				return -1
			}
			return 1
		}
		if a.Name < b.Name {
			return -1
		} else if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return pods
}

// Runtime is the kubelet's container runtime.
func (kl *Kubelet) Runtime() kruntime.Runtime { return kl.runtime }

// podNamed is the pod of that name the kubelet runs.
func (kl *Kubelet) podNamed(namespace, name string) (*corev1.Pod, error) {
	for _, p := range kl.workers.pods() {
		if p.Namespace == namespace && p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("pod %s/%s is not on this node: %w", namespace, name, kruntime.ErrNotFound)
}

// Sandbox returns the ready sandbox of a pod the kubelet runs.
func (kl *Kubelet) Sandbox(ctx context.Context, namespace, name string) (*kruntime.PodSandboxStatus, error) {
	pod, err := kl.podNamed(namespace, name)
	if err != nil {
		return nil, err
	}
	sandboxes, err := kl.runtime.ListPodSandbox(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", err)
	}
	for i := range sandboxes {
		if s := &sandboxes[i]; s.Config.UID == string(pod.UID) && s.State == kruntime.SandboxReady {
			return s, nil
		}
	}
	return nil, fmt.Errorf("pod %s/%s has no ready sandbox: %w", namespace, name, kruntime.ErrNotFound)
}

// Container finds the newest (or previous) runtime container of a
// container of a pod the kubelet runs.
func (kl *Kubelet) Container(ctx context.Context, namespace, podName, name string, previous bool) (*kruntime.ContainerStatus, error) {
	pod, err := kl.podNamed(namespace, podName)
	if err != nil {
		return nil, err
	}
	sandboxes, err := kl.runtime.ListPodSandbox(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sandboxes: %w", err)
	}
	var list []kruntime.ContainerStatus
	for _, s := range sandboxes {
		if s.Config.UID != string(pod.UID) {
			continue
		}
		cs, err := kl.runtime.ListContainers(ctx, s.ID)
		if err != nil {
			return nil, fmt.Errorf("list containers: %w", err)
		}
		for _, c := range cs {
			if c.Name == name {
				list = append(list, c)
			}
		}
	}
	recs, _ := groupContainers(list)
	rec := recs[name]
	c := rec.current
	if previous {
		c = rec.previous
	}
	if c == nil {
		what := "container"
		if previous {
			what = "previous terminated container"
		}
		return nil, fmt.Errorf("%s %q in pod %s/%s not found: %w", what, name, namespace, podName, kruntime.ErrNotFound)
	}
	return c, nil
}
