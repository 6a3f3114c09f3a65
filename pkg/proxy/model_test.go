package proxy

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func svc(name, ip string, mut ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: corev1.ServiceSpec{ClusterIP: ip, ClusterIPs: []string{ip}, Type: corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80}}}}
	for _, m := range mut {
		m(s)
	}
	return s
}

type ep struct {
	ip                        string
	node                      string
	ready, serving, terminate bool
}

func slice(svcName string, eps ...ep) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: svcName + "-x", Labels: map[string]string{discoveryv1.LabelServiceName: svcName}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Protocol: ptr(corev1.ProtocolTCP), Port: ptr(int32(8080))}}}
	for _, e := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{e.ip}, NodeName: ptr(e.node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(e.ready), Serving: ptr(e.serving), Terminating: ptr(e.terminate)}})
	}
	return s
}

func TestBuildServicePorts(t *testing.T) {
	services := []*corev1.Service{
		svc("web", "10.96.0.10"),
		svc("rolling", "10.96.0.11"),
		svc("headless", corev1.ClusterIPNone),
		svc("ext", "", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalName, s.Spec.ClusterIPs = corev1.ServiceTypeExternalName, "example.com", nil
		}),
		svc("np", "10.96.0.12", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.Ports[0].NodePort = corev1.ServiceTypeNodePort, 30001
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
		}),
		svc("v6", "fd00::10"),
	}
	slices := []*discoveryv1.EndpointSlice{
		slice("web", ep{"10.1.0.2", "n1", true, true, false}, ep{"10.1.0.1", "n2", true, true, false}, ep{"10.1.0.3", "n1", false, false, false}),
		// Only terminating serving endpoints: they are used.
		slice("rolling", ep{"10.1.0.4", "n1", false, true, true}, ep{"10.1.0.5", "n1", false, false, true}),
		slice("headless", ep{"10.1.0.6", "n1", true, true, false}),
		slice("np", ep{"10.1.0.7", "n1", true, true, false}),
	}
	got := BuildServicePorts(IPv4, "n1", services, slices)
	var names []string
	for _, sp := range got {
		names = append(names, sp.Name)
	}
	if want := "ns/np/tcp/80 ns/rolling/tcp/80 ns/web/tcp/80"; strings.Join(names, " ") != want {
		t.Fatalf("ports = %v, want %s", names, want)
	}
	np, rolling, web := got[0], got[1], got[2]
	if np.NodePort != 30001 || !np.LocalOnly || np.AffinitySeconds != DefaultAffinitySeconds || len(np.LocalEndpoints()) != 1 {
		t.Errorf("node port service: %+v", np)
	}
	if len(rolling.Endpoints) != 1 || rolling.Endpoints[0].String() != "10.1.0.4:8080" {
		t.Errorf("terminating fallback: %v", rolling.Endpoints)
	}
	if len(web.Endpoints) != 2 || web.Endpoints[0].String() != "10.1.0.1:8080" || web.Endpoints[1].Local != true {
		t.Errorf("ready endpoints, sorted: %+v", web.Endpoints)
	}
	if v6 := BuildServicePorts(IPv6, "n1", services, slices); len(v6) != 1 || v6[0].ClusterIP.String() != "fd00::10" || len(v6[0].Endpoints) != 0 {
		t.Errorf("ipv6 ports: %+v", v6)
	}
}

func TestBuildProgram(t *testing.T) {
	services := []*corev1.Service{svc("web", "10.96.0.10"), svc("empty", "10.96.0.13", func(s *corev1.Service) {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53})
	})}
	slices := []*discoveryv1.EndpointSlice{slice("web", ep{"10.1.0.1", "n1", true, true, false}, ep{"10.1.0.2", "n1", true, true, false}, ep{"10.1.0.3", "n2", true, true, false})}
	text := Build(IPv4, BuildServicePorts(IPv4, "n1", services, slices)).String()
	for _, want := range []string{
		"ip daddr 10.96.0.10 meta l4proto tcp th dport 80 goto svc-",
		"numgen random mod 3 == 0 goto ep-",
		"numgen random mod 2 == 0 goto ep-",
		"ip saddr 10.1.0.1 meta mark set mark | 0x4000",
		"meta l4proto tcp dnat to 10.1.0.3:8080",
		"ip daddr 10.96.0.13 meta l4proto tcp th dport 80 reject with tcp reset",
		"ip daddr 10.96.0.13 meta l4proto udp th dport 53 reject with port-unreachable",
		"meta mark & 0x4000 != 0 masquerade",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("program lacks %q:\n%s", want, text)
		}
	}
	if again := Build(IPv4, BuildServicePorts(IPv4, "n1", services, slices)).String(); again != text {
		t.Error("the same state built two different programs")
	}
}
