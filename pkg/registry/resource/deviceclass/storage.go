// Package deviceclass serves deviceclasses: the device selectors and
// configuration that claims refer to, through the generic Store.
package deviceclass

import (
	resourcev1 "kubecore.io/api/resource/v1"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of deviceclasses; a spec change bumps the
// generation.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*resourcev1.DeviceClass]{Generation: true, ValidateFunc: validation.ValidateDeviceClass, ValidateUpdateFunc: validation.ValidateDeviceClassUpdate}
	return strategy.NewStore(opts, strategy.Of[resourcev1.DeviceClass, resourcev1.DeviceClassList](resourcev1.Resource("deviceclasses"), "deviceclass", s))
}
