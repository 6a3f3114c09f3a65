// Package networking provides the storage of the networking.k8s.io/v1 API
// group: the resources the API server serves for it, each built by its
// own package below.
package networking

import (
	networkingv1 "kubecore.io/api/networking/v1"

	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/networking/ingress"
	"kubecore.io/kubecore/pkg/registry/networking/ingressclass"
	"kubecore.io/kubecore/pkg/registry/networking/ipaddress"
	"kubecore.io/kubecore/pkg/registry/networking/networkpolicy"
	"kubecore.io/kubecore/pkg/registry/networking/servicecidr"
)

// Provider builds the storage of networking.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(networkingv1.SchemeGroupVersion,
		strategy.Served("ingressclasses", ingressclass.NewREST),
		strategy.Served("ingresses", ingress.NewStorage),
		strategy.Served("ipaddresses", ipaddress.NewREST),
		strategy.Served("networkpolicies", networkpolicy.NewREST),
		strategy.Served("servicecidrs", servicecidr.NewStorage),
	)
}
