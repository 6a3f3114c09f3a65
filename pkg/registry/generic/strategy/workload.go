package strategy

import (
	"reflect"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/generic"
)

// WorkloadStorage is a workload's Store and its subresources.
type WorkloadStorage[T runtime.Object] struct {
	Store  *generic.Store
	Status *StatusREST
	Scale  *ScaleREST
}

// SpecAndStatus is the strategy of a namespaced resource with a spec and a
// status (the workloads, cronjobs): status written only through /status,
// generation bumped on spec changes.
func SpecAndStatus[T runtime.Object](validate func(T) field.ErrorList, validateUpdate func(obj, old T) field.ErrorList) *Strategy[T] {
	return &Strategy[T]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validate,
		ValidateUpdateFunc: validateUpdate,
	}
}

// NewWorkload builds the workload's Store, in the "all" category, with its
// status and its scale subresource, which maps spec.replicas (1 when
// unset), status.replicas and spec.selector.
func NewWorkload[T runtime.Object](opts generic.StoreOptions, r Resource[T]) (*WorkloadStorage[T], error) {
	st, err := NewWithStatus(opts, r.InCategories("all"))
	if err != nil {
		return nil, err
	}
	return &WorkloadStorage[T]{Store: st.Store, Status: st.Status, Scale: NewScaleREST(st.Store, ScalableFields[T]())}, nil
}

// ScalableFields reads and writes the scale of a workload T through its
// fields Spec.Replicas (*int32), Status.Replicas (int32) and
// Spec.Selector (*metav1.LabelSelector), which every workload has.
func ScalableFields[T runtime.Object]() Scalable[T] {
	spec := func(o T) reflect.Value { return reflect.ValueOf(o).Elem().FieldByName("Spec") }
	return Scalable[T]{
		Replicas: func(o T) int32 {
			return ReplicasOf(spec(o).FieldByName("Replicas").Interface().(*int32))
		},
		SetReplicas: func(o T, n int32) { spec(o).FieldByName("Replicas").Set(reflect.ValueOf(&n)) },
		StatusReplicas: func(o T) int32 {
			return int32(reflect.ValueOf(o).Elem().FieldByName("Status").FieldByName("Replicas").Int())
		},
		Selector: func(o T) *metav1.LabelSelector {
			return spec(o).FieldByName("Selector").Interface().(*metav1.LabelSelector)
		},
	}
}

// ReplicasOf is spec.replicas, 1 when unset as the workloads' default says.
func ReplicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
