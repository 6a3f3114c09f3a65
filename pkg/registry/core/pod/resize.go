package pod

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// NewResizeREST serves pods/resize: the whole pod (GET, PUT, PATCH), of
// which an update changes only the containers' (app and init) resources
// and resize policies; the pod's kubelet then resizes them in place.
func NewResizeREST(store *generic.Store) *strategy.StatusREST {
	return strategy.NewSubresourceREST(store, "resize", resizeStrategy{})
}

// resizeStrategy keeps the stored pod but for its containers' resources
// and resize policies.
type resizeStrategy struct{ specSubresource }

var (
	_ rest.UpdateStrategy      = resizeStrategy{}
	_ rest.ResetFieldsStrategy = resizeStrategy{}
)

// PrepareForUpdate implements rest.UpdateStrategy: the stored pod with
// the update's resources and resize policies of each container of the
// same name and place (a pod whose containers were added, removed or
// reordered is left as sent, for validation to refuse), the generation
// bumped when the spec changed.
func (resizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, ok1 := obj.(*corev1.Pod)
	prev, ok2 := old.(*corev1.Pod)
	if !ok1 || !ok2 {
		return
	}
	containers, ok := resizedContainers(pod.Spec.Containers, prev.Spec.Containers)
	if !ok {
		return
	}
	initContainers, ok := resizedContainers(pod.Spec.InitContainers, prev.Spec.InitContainers)
	if !ok {
		return
	}
	rv, managed := pod.ResourceVersion, pod.ManagedFields
	*pod = *prev.DeepCopy()
	pod.ResourceVersion, pod.ManagedFields = rv, managed
	pod.Spec.Containers, pod.Spec.InitContainers = containers, initContainers
	if !sameResources(pod, prev) {
		pod.Generation = prev.Generation + 1
	}
}

// resizedContainers is old with the resources and resize policies of
// update; ok is false when the two lists do not name the same containers
// in the same order.
func resizedContainers(update, old []corev1.Container) ([]corev1.Container, bool) {
	if len(update) != len(old) {
		return nil, false
	}
	out := make([]corev1.Container, len(old))
	for i := range old {
		if update[i].Name != old[i].Name {
			return nil, false
		}
		out[i] = *old[i].DeepCopy()
		out[i].Resources, out[i].ResizePolicy = update[i].Resources, update[i].ResizePolicy
	}
	return out, true
}

// sameResources tells whether a resize changed nothing: the containers'
// resources and resize policies encode alike (quantities in canonical
// form).
func sameResources(pod, old *corev1.Pod) bool {
	a, errA := json.Marshal(resourcesOf(pod))
	b, errB := json.Marshal(resourcesOf(old))
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

type containerResources struct {
	Resources    corev1.ResourceRequirements
	ResizePolicy []corev1.ContainerResizePolicy
}

func resourcesOf(pod *corev1.Pod) []containerResources {
	var out []containerResources
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			out = append(out, containerResources{c.Resources, c.ResizePolicy})
		}
	}
	return out
}

// ValidateUpdate implements rest.UpdateStrategy.
func (resizeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	pod, ok1 := obj.(*corev1.Pod)
	prev, ok2 := old.(*corev1.Pod)
	if !ok1 || !ok2 {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("not a pod: %T", obj))}
	}
	return validation.ValidatePodResize(pod, prev)
}
