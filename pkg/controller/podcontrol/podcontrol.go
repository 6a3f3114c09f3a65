// Package podcontrol creates and deletes the pods of workload controllers
// (ReplicaSet, StatefulSet): pods made from a template with a controllerRef.
package podcontrol

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
)

// The reasons of the Events a PodControl records on the owner, as
// Kubernetes' controllers record them.
const (
	SuccessfulCreateReason = "SuccessfulCreate"
	FailedCreateReason     = "FailedCreate"
	SuccessfulDeleteReason = "SuccessfulDelete"
	FailedDeleteReason     = "FailedDelete"
)

// PodWriter creates and deletes the pods of one namespace; the typed client
// (typed.Clientset.CoreV1().Pods(ns)) satisfies it.
type PodWriter interface {
	Create(ctx context.Context, pod *corev1.Pod, opts metav1.CreateOptions) (*corev1.Pod, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// PatchPod returns the controller.PatchFunc that merge-patches pods through
// core, as a RefManager adopts and releases them.
func PatchPod(core typed.CoreV1) controller.PatchFunc {
	return func(ctx context.Context, ns, name string, patch []byte) error {
		_, err := core.Pods(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}
}

// Interface is what a workload controller needs to create and delete its
// pods; tests replace it with a fake.
type Interface interface {
	// CreatePod creates pod (see NewPod) on behalf of owner.
	CreatePod(ctx context.Context, pod *corev1.Pod, owner runtime.Object) (*corev1.Pod, error)
	// DeletePod deletes the named pod on behalf of owner.
	DeletePod(ctx context.Context, namespace, name string, owner runtime.Object) error
}

// PodControl is the Interface over the API server: each create and delete is
// reported as an Event on the owner.
type PodControl struct {
	// Pods returns the pods client of a namespace.
	Pods func(namespace string) PodWriter
	// Recorder records the Events; nil records none.
	Recorder record.EventRecorder
}

var _ Interface = PodControl{}

// CreatePod creates pod in its namespace.
func (c PodControl) CreatePod(ctx context.Context, pod *corev1.Pod, owner runtime.Object) (*corev1.Pod, error) {
	if pod == nil {
		return nil, errors.New("create pod: pod is nil")
	}
	out, err := c.Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		c.event(owner, corev1.EventTypeWarning, FailedCreateReason, "Error creating: %v", err)
		return nil, fmt.Errorf("create pod %s/%s: %w", pod.Namespace, podName(pod), err)
	}
	c.event(owner, corev1.EventTypeNormal, SuccessfulCreateReason, "Created pod: %v", out.Name)
	return out, nil
}

// DeletePod deletes the named pod with the default grace period.
func (c PodControl) DeletePod(ctx context.Context, namespace, name string, owner runtime.Object) error {
	if err := c.Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		c.event(owner, corev1.EventTypeWarning, FailedDeleteReason, "Error deleting: %v", err)
		return fmt.Errorf("delete pod %s/%s: %w", namespace, name, err)
	}
	c.event(owner, corev1.EventTypeNormal, SuccessfulDeleteReason, "Deleted pod: %v", name)
	return nil
}

func (c PodControl) event(owner runtime.Object, eventType, reason, format string, args ...any) {
	if c.Recorder != nil && owner != nil {
		c.Recorder.Eventf(owner, eventType, reason, format, args...)
	}
}

func podName(p *corev1.Pod) string {
	if p.Name != "" {
		return p.Name
	}
	return p.GenerateName + "*"
}

// NewPod returns a pod made from template for owner, in owner's namespace,
// with the template's labels, annotations, finalizers and spec, controllerRef
// as its only owner reference, and a name generated from owner's name.
// Callers may change it (a StatefulSet sets the name, hostname, ...) before
// CreatePod.
func NewPod(template *corev1.PodTemplateSpec, owner metav1.Object, controllerRef *metav1.OwnerReference) (*corev1.Pod, error) {
	if template == nil {
		return nil, errors.New("new pod: template is nil")
	}
	if controllerRef == nil || controllerRef.Controller == nil || !*controllerRef.Controller {
		return nil, fmt.Errorf("new pod for %s/%s: controllerRef must be a controller reference", owner.GetNamespace(), owner.GetName())
	}
	if len(template.Labels) == 0 {
		return nil, fmt.Errorf("new pod for %s/%s: spec.template.metadata.labels: the template has no labels", owner.GetNamespace(), owner.GetName())
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       owner.GetNamespace(),
			GenerateName:    owner.GetName() + "-",
			Labels:          maps.Clone(template.Labels),
			Annotations:     maps.Clone(template.Annotations),
			Finalizers:      slices.Clone(template.Finalizers),
			OwnerReferences: []metav1.OwnerReference{*controllerRef},
		},
	}
	template.Spec.DeepCopyInto(&pod.Spec)
	return pod, nil
}

// DeletionExpectations are told of the pod deletions a controller asks
// for; *controller.UIDTrackingExpectations satisfies it.
type DeletionExpectations interface {
	ExpectDeletionsOf(key string, uids []types.UID)
	DeletionObservedUID(key string, uid types.UID)
}

// DeletePods deletes pods on behalf of owner, at most maxInFlight at once,
// once exp expects their deletions for key (the informer may report one
// before its delete returns). A delete that fails is observed at once, as
// its pod will not go; a pod already gone counts as deleted. It reports
// which pods are gone, with the failures joined.
func DeletePods(ctx context.Context, pc Interface, owner runtime.Object, pods []*corev1.Pod, maxInFlight int, exp DeletionExpectations, key string) ([]bool, error) {
	uids := make([]types.UID, len(pods))
	for i, p := range pods {
		uids[i] = p.UID
	}
	exp.ExpectDeletionsOf(key, uids)
	gone := make([]bool, len(pods))
	err := controller.Parallel(len(pods), maxInFlight, func(i int) error {
		p := pods[i]
		if err := pc.DeletePod(ctx, p.Namespace, p.Name, owner); err != nil {
			exp.DeletionObservedUID(key, p.UID)
			if !apierrors.IsNotFound(err) {
				return err
			}
		}
		gone[i] = true
		return nil
	})
	return gone, err
}
