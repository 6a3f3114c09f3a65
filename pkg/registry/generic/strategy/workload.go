package strategy

import (
	"context"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/generic"
)

// Workload describes a namespaced, scalable resource with a spec and a
// status (deployments, replicasets, statefulsets): status written only
// through /status, generation bumped on spec changes, and a scale
// subresource. NewWorkload builds its storage.
type Workload[T runtime.Object] struct {
	// Resource and Singular name it ("replicasets", "replicaset").
	Resource, Singular schema.GroupResource
	NewObj, NewList    func() runtime.Object
	ShortNames         []string
	Validate           func(obj T) field.ErrorList
	ValidateUpdate     func(obj, old T) field.ErrorList
	Scale              Scalable[T]
}

// WorkloadStorage is a workload's Store and its subresources.
type WorkloadStorage[T runtime.Object] struct {
	Store  *generic.Store
	Status *StatusREST
	Scale  *ScaleREST[T]
}

// Strategy returns the workload's strategy.
func (w Workload[T]) Strategy() *Strategy[T] {
	return &Strategy[T]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       func(_ context.Context, obj T) field.ErrorList { return w.Validate(obj) },
		ValidateUpdateFunc: func(_ context.Context, obj, old T) field.ErrorList { return w.ValidateUpdate(obj, old) },
	}
}

// NewWorkload builds the workload's Store, in the "all" category, with its
// status and scale subresources.
func NewWorkload[T runtime.Object](opts generic.StoreOptions, w Workload[T]) (*WorkloadStorage[T], error) {
	st, err := NewWithStatus(opts, Resource[T]{
		Resource:   w.Resource,
		Singular:   w.Singular,
		NewObj:     w.NewObj,
		NewList:    w.NewList,
		ShortNames: w.ShortNames,
		Categories: []string{"all"},
		Strategy:   w.Strategy(),
	})
	if err != nil {
		return nil, err
	}
	return &WorkloadStorage[T]{Store: st.Store, Status: st.Status, Scale: NewScaleREST(st.Store, w.Scale)}, nil
}

// ReplicasOf is spec.replicas, 1 when unset as the workloads' default says.
func ReplicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
