// Package persistentvolume serves persistentvolumes: cluster-wide pieces of storage
// and their status subresource through the generic Store.
package persistentvolume

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
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

// NewStorage returns the storage of persistentvolumes.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*corev1.PersistentVolume]{
		Resource:   corev1.Resource("persistentvolumes"),
		Singular:   corev1.Resource("persistentvolume"),
		NewObj:     func() runtime.Object { return &corev1.PersistentVolume{} },
		NewList:    func() runtime.Object { return &corev1.PersistentVolumeList{} },
		ShortNames: []string{"pv"},
		Strategy:   NewStrategy(),
	})
	if err != nil {
		return nil, err
	}
	return &Storage{PersistentVolume: &REST{Store: st.Store}, Status: st.Status}, nil
}
