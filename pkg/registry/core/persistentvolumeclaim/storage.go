// Package persistentvolumeclaim serves persistentvolumeclaims: requests for storage
// and their status subresource through the generic Store.
package persistentvolumeclaim

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of persistentvolumeclaims and their status.
type Storage struct {
	PersistentVolumeClaim *REST
	Status                *strategy.StatusREST
}

// REST serves persistentvolumeclaims.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of persistentvolumeclaims: status only through /status.
func NewStrategy() *strategy.Strategy[*corev1.PersistentVolumeClaim] {
	return &strategy.Strategy[*corev1.PersistentVolumeClaim]{
		Namespaced:        true,
		StatusSubresource: true,
		// The status the client sent is dropped; a new claim is Pending until
		// it is bound, as Kubernetes reports it.
		PrepareCreate: func(_ context.Context, obj *corev1.PersistentVolumeClaim) {
			obj.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
		},
		ValidateFunc: func(_ context.Context, obj *corev1.PersistentVolumeClaim) field.ErrorList {
			return validation.ValidatePersistentVolumeClaim(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *corev1.PersistentVolumeClaim) field.ErrorList {
			return validation.ValidatePersistentVolumeClaimUpdate(obj, old)
		},
	}
}

// NewStorage returns the storage of persistentvolumeclaims.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*corev1.PersistentVolumeClaim]{
		Resource:   corev1.Resource("persistentvolumeclaims"),
		Singular:   corev1.Resource("persistentvolumeclaim"),
		NewObj:     func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		NewList:    func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
		ShortNames: []string{"pvc"},
		Strategy:   NewStrategy(),
	})
	if err != nil {
		return nil, err
	}
	return &Storage{PersistentVolumeClaim: &REST{Store: st.Store}, Status: st.Status}, nil
}
