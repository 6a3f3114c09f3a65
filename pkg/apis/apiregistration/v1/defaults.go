// Package v1 registers the apiregistration.k8s.io/v1 kinds with a server's
// scheme together with their defaults.
package v1

import (
	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the apiregistration.k8s.io/v1 kinds and their
// defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := apiregistrationv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsAPIService)
	return nil
}

// SetDefaultsAPIService: an aggregated server listens on port 443 unless
// the service reference says otherwise.
func SetDefaultsAPIService(a *apiregistrationv1.APIService) {
	if s := a.Spec.Service; s != nil && s.Port == nil {
		port := int32(443)
		s.Port = &port
	}
}
