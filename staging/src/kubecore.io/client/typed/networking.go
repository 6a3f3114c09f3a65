package typed

import (
	networkingv1 "kubecore.io/api/networking/v1"
	"kubecore.io/client/rest"
)

// NetworkingV1 returns the clients of networking.k8s.io/v1.
func (cs *Clientset) NetworkingV1() NetworkingV1 { return NetworkingV1{rc: cs.networking} }

// NetworkingV1 is networking.k8s.io/v1's client accessors.
type NetworkingV1 struct{ rc *rest.Client }

// RESTClient returns the group's REST client.
func (g NetworkingV1) RESTClient() *rest.Client { return g.rc }

func (g NetworkingV1) ServiceCIDRs() *Client[*networkingv1.ServiceCIDR, *networkingv1.ServiceCIDRList] {
	return NewClient(g.rc, ServiceCIDRsResource(), "")
}

func (g NetworkingV1) IPAddresses() *Client[*networkingv1.IPAddress, *networkingv1.IPAddressList] {
	return NewClient(g.rc, IPAddressesResource(), "")
}

// ServiceCIDRsResource describes networking.k8s.io/v1 servicecidrs.
func ServiceCIDRsResource() Resource[*networkingv1.ServiceCIDR, *networkingv1.ServiceCIDRList] {
	return NewResource[networkingv1.ServiceCIDR, networkingv1.ServiceCIDRList](networkingv1.SchemeGroupVersion.WithResource("servicecidrs"), "ServiceCIDR", false)
}

// IPAddressesResource describes networking.k8s.io/v1 ipaddresses.
func IPAddressesResource() Resource[*networkingv1.IPAddress, *networkingv1.IPAddressList] {
	return NewResource[networkingv1.IPAddress, networkingv1.IPAddressList](networkingv1.SchemeGroupVersion.WithResource("ipaddresses"), "IPAddress", false)
}
