// Package persistentvolume serves persistentvolumes: cluster-wide pieces of storage
// and their status subresource through the generic Store.
package persistentvolume

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/apis/strategy"
	"kubecore.io/kubecore/pkg/registry/generic"
)

// Storage is the storage of persistentvolumes and their status.
type Storage struct {
	PersistentVolume *REST
	Status           *strategy.StatusREST
}

// REST serves persistentvolumes.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of persistentvolumes: status only through /status.
func NewStrategy() *strategy.Strategy[*corev1.PersistentVolume] {
	return &strategy.Strategy[*corev1.PersistentVolume]{
		Namespaced:        false,
		StatusSubresource: true,
		// The status the client sent is dropped; a new volume is Pending until
		// it is bound, as Kubernetes reports it.
		PrepareCreate: func(_ context.Context, obj *corev1.PersistentVolume) {
			obj.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
		},
		ValidateFunc: func(_ context.Context, obj *corev1.PersistentVolume) field.ErrorList {
			return validation.ValidatePersistentVolume(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *corev1.PersistentVolume) field.ErrorList {
			return func(obj, _ *corev1.PersistentVolume) field.ErrorList { return validation.ValidatePersistentVolume(obj) }(obj, old)
		},
	}
}

// NewStatusStrategy returns the strategy of persistentvolumes/status.
func NewStatusStrategy() *strategy.StatusStrategy[*corev1.PersistentVolume] {
	return &strategy.StatusStrategy[*corev1.PersistentVolume]{Namespaced: false}
}

// NewStorage returns the storage of persistentvolumes.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PersistentVolume{} },
		NewListFunc:               func() runtime.Object { return &corev1.PersistentVolumeList{} },
		DefaultQualifiedResource:  corev1.Resource("persistentvolumes"),
		SingularQualifiedResource: corev1.Resource("persistentvolume"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"pv"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &Storage{PersistentVolume: &REST{Store: store}, Status: strategy.NewStatusREST(store, NewStatusStrategy())}, nil
}
