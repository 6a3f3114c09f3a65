// Package deviceclass serves deviceclasses: the device selectors and
// configuration that claims refer to, through the generic Store.
package deviceclass

import (
	resourcev1 "kubecore.io/api/resource/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type class = resourcev1.DeviceClass

// NewREST returns the builder of the storage of deviceclasses, whose CEL
// selectors sel compiles; a spec change bumps the generation.
func NewREST(sel validation.SelectorChecker) func(generic.StoreOptions) (*generic.Store, error) {
	return func(opts generic.StoreOptions) (*generic.Store, error) {
		s := &strategy.Strategy[*class]{
			Generation:         true,
			ValidateFunc:       func(c *class) field.ErrorList { return validation.ValidateDeviceClass(c, sel) },
			ValidateUpdateFunc: func(c, old *class) field.ErrorList { return validation.ValidateDeviceClassUpdate(c, old, sel) },
		}
		return strategy.NewStore(opts, strategy.Of[class, resourcev1.DeviceClassList](resourcev1.Resource("deviceclasses"), "deviceclass", s))
	}
}
