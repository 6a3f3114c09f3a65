package informers

import (
	networkingv1 "kubecore.io/api/networking/v1"
	"kubecore.io/client/tools/cache"
)

// ServiceCIDRs returns the shared ServiceCIDR informer.
func ServiceCIDRs(f *SharedInformerFactory) (*cache.Informer[*networkingv1.ServiceCIDR], error) {
	return For[*networkingv1.ServiceCIDR](f, networkingv1.SchemeGroupVersion.WithResource("servicecidrs"))
}

// IPAddresses returns the shared IPAddress informer.
func IPAddresses(f *SharedInformerFactory) (*cache.Informer[*networkingv1.IPAddress], error) {
	return For[*networkingv1.IPAddress](f, networkingv1.SchemeGroupVersion.WithResource("ipaddresses"))
}
