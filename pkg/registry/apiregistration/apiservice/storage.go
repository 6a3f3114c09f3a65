// Package apiservice serves apiservices, which say which server serves a
// group version, and their status subresource through the generic Store.
package apiservice

import (
	apiregistrationv1 "kubecore.io/api/apiregistration/v1"

	"kubecore.io/kubecore/pkg/apis/apiregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of apiservices and their status: the
// status only through /status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	s := &strategy.Strategy[*apiregistrationv1.APIService]{
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateAPIService,
		ValidateUpdateFunc: validation.ValidateAPIServiceUpdate,
	}
	r := strategy.Of[apiregistrationv1.APIService, apiregistrationv1.APIServiceList](apiregistrationv1.Resource("apiservices"), "apiservice", s).InCategories("api-extensions")
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*apiregistrationv1.APIService]{ResetMetadata: true, ValidateStatus: validation.ValidateAPIServiceStatusUpdate}))
}
