package dns

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/typed"
)

// The kube-dns Service pods reach the cluster DNS at.
const (
	ServiceNamespace = "kube-system"
	ServiceName      = "kube-dns"
	// DefaultServiceIP is the tenth address of the default service range,
	// which kubelets' --cluster-dns defaults to.
	DefaultServiceIP = "10.96.0.10"
	// ManagedBy marks the endpoint slices the DNS component publishes.
	ManagedBy = "dns.kubecore.io"
)

// Publisher writes the kube-dns Service and this DNS server's endpoint;
// *typed.Clientset satisfies the client.
type Publisher struct {
	Client interface {
		CoreV1() typed.CoreV1
		DiscoveryV1() typed.DiscoveryV1
	}
	// ServiceIP is the Service's cluster IP when it is created.
	ServiceIP string
	// NodeName and NodeIP are the endpoint's node and address; Port is
	// the port the server listens on.
	NodeName string
	NodeIP   string
	Port     int32
}

// Publish creates the kube-dns Service (without a selector: its endpoints
// are the DNS servers' own slices) unless it exists, and creates or
// updates this node's EndpointSlice kube-dns-<node>.
func (p Publisher) Publish(ctx context.Context) error {
	ip, err := netip.ParseAddr(p.NodeIP)
	if err != nil {
		return fmt.Errorf("dns endpoint address %q: %w", p.NodeIP, err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ServiceNamespace, Name: ServiceName,
			Labels: map[string]string{"k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS", "kubernetes.io/cluster-service": "true"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: p.ServiceIP, Ports: []corev1.ServicePort{
			{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, TargetPort: intstr.FromInt32(p.Port)},
			{Name: "dns-tcp", Protocol: corev1.ProtocolTCP, Port: 53, TargetPort: intstr.FromInt32(p.Port)},
			{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9153, TargetPort: intstr.FromInt32(9153)},
		}},
	}
	if p.ServiceIP != "" {
		svc.Spec.ClusterIPs = []string{p.ServiceIP}
	}
	// Get first: creating it again would fail on the allocated IP before
	// the name.
	services := p.Client.CoreV1().Services(ServiceNamespace)
	if _, err := services.Get(ctx, ServiceName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create service %s/%s: %w", ServiceNamespace, ServiceName, err)
		}
	} else if err != nil {
		return fmt.Errorf("get service %s/%s: %w", ServiceNamespace, ServiceName, err)
	}
	addrType := discoveryv1.AddressTypeIPv4
	if ip.Is6() && !ip.Is4In6() {
		addrType = discoveryv1.AddressTypeIPv6
	}
	udp, tcp, ready := corev1.ProtocolUDP, corev1.ProtocolTCP, true
	name := "kube-dns-" + p.NodeName
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ServiceNamespace, Name: name,
			Labels: map[string]string{discoveryv1.LabelServiceName: ServiceName, discoveryv1.LabelManagedBy: ManagedBy}},
		AddressType: addrType,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{ip.Unmap().String()}, NodeName: &p.NodeName,
			Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports: []discoveryv1.EndpointPort{
			{Name: new("dns"), Protocol: &udp, Port: &p.Port},
			{Name: new("dns-tcp"), Protocol: &tcp, Port: &p.Port},
		},
	}
	slices := p.Client.DiscoveryV1().EndpointSlices(ServiceNamespace)
	old, err := slices.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := slices.Create(ctx, slice, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create endpoint slice %s/%s: %w", ServiceNamespace, name, err)
		}
	case err != nil:
		return fmt.Errorf("get endpoint slice %s/%s: %w", ServiceNamespace, name, err)
	default:
		slice.ResourceVersion = old.ResourceVersion
		if _, err := slices.Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update endpoint slice %s/%s: %w", ServiceNamespace, name, err)
		}
	}
	return nil
}

// Unpublish deletes this node's endpoint slice, so that the proxy stops
// sending queries to a server that is gone.
func (p Publisher) Unpublish(ctx context.Context) error {
	name := "kube-dns-" + p.NodeName
	if err := p.Client.DiscoveryV1().EndpointSlices(ServiceNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete endpoint slice %s/%s: %w", ServiceNamespace, name, err)
	}
	return nil
}
