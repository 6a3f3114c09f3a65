package pod

import (
	"context"
	"fmt"
	"reflect"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// NewEphemeralContainersREST serves pods/ephemeralcontainers: the whole
// pod, of which an update (PUT or PATCH, as kubectl debug sends) may only
// add ephemeral containers.
func NewEphemeralContainersREST(store *generic.Store) *strategy.StatusREST {
	return strategy.NewSubresourceREST(store, "ephemeralcontainers", ephemeralContainersStrategy{})
}

// specSubresource is what the strategies of the subresources that change
// part of a pod's spec (ephemeralcontainers, resize) share: the whole pod
// is sent and returned, updates only, metadata and status from the stored
// pod, no warnings.
type specSubresource struct{}

func (specSubresource) NamespaceScoped() bool          { return true }
func (specSubresource) AllowCreateOnUpdate() bool      { return false }
func (specSubresource) AllowUnconditionalUpdate() bool { return true }
func (specSubresource) Canonicalize(runtime.Object)    {}

// GetResetFields implements rest.ResetFieldsStrategy: metadata and status
// come from the stored pod.
func (specSubresource) GetResetFields() *fieldpath.Set {
	return fieldpath.NewSet(
		fieldpath.MakePathOrDie("metadata"),
		fieldpath.MakePathOrDie("status"),
	)
}

// WarningsOnUpdate implements rest.UpdateStrategy.
func (specSubresource) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// ephemeralContainersStrategy keeps the stored pod but for its
// spec.ephemeralContainers.
type ephemeralContainersStrategy struct{ specSubresource }

var (
	_ rest.UpdateStrategy      = ephemeralContainersStrategy{}
	_ rest.ResetFieldsStrategy = ephemeralContainersStrategy{}
)

// PrepareForUpdate implements rest.UpdateStrategy: the update keeps only
// its ephemeral containers (and its resourceVersion precondition and
// managedFields).
func (ephemeralContainersStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, ok1 := obj.(*corev1.Pod)
	prev, ok2 := old.(*corev1.Pod)
	if !ok1 || !ok2 {
		return
	}
	ecs, rv, managed := pod.Spec.EphemeralContainers, pod.ResourceVersion, pod.ManagedFields
	*pod = *prev.DeepCopy()
	pod.Spec.EphemeralContainers, pod.ResourceVersion, pod.ManagedFields = ecs, rv, managed
	if len(ecs) != len(prev.Spec.EphemeralContainers) || (len(ecs) > 0 && !reflect.DeepEqual(ecs, prev.Spec.EphemeralContainers)) {
		// A change of the spec, as the pod's generation counts them.
		pod.Generation = prev.Generation + 1
	}
}

// ValidateUpdate implements rest.UpdateStrategy.
func (ephemeralContainersStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	pod, ok1 := obj.(*corev1.Pod)
	prev, ok2 := old.(*corev1.Pod)
	if !ok1 || !ok2 {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("not a pod: %T", obj))}
	}
	return validation.ValidatePodEphemeralContainersUpdate(pod, prev)
}
