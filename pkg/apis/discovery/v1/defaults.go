// Package v1 registers the discovery.k8s.io/v1 kinds with a server's
// scheme together with their defaults.
package v1

import (
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the discovery.k8s.io/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := discoveryv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsEndpointSlice)
	return nil
}

// SetDefaultsEndpointSlice: a port without a name is named "", and one
// without a protocol is TCP.
func SetDefaultsEndpointSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = new(string)
		}
		if p.Protocol == nil {
			tcp := corev1.ProtocolTCP
			p.Protocol = &tcp
		}
	}
}
