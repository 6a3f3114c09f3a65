package helper

import corev1 "kubecore.io/api/core/v1"

// HostPort is one host port a pod uses: the scheduler's NodePorts filter
// and the kubelet's admission both refuse a pod whose host ports conflict
// with those of the pods already on the node.
type HostPort struct {
	IP       string
	Protocol corev1.Protocol
	Port     int32
}

// PodHostPorts returns the host ports pod's containers ask for, with the
// wildcard address and TCP where the port leaves them out.
func PodHostPorts(pod *corev1.Pod) []HostPort {
	var out []HostPort
	for i := range pod.Spec.Containers {
		for _, p := range pod.Spec.Containers[i].Ports {
			if p.HostPort <= 0 {
				continue
			}
			hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: p.HostPort}
			if hp.IP == "" {
				hp.IP = "0.0.0.0"
			}
			if hp.Protocol == "" {
				hp.Protocol = corev1.ProtocolTCP
			}
			out = append(out, hp)
		}
	}
	return out
}

// Conflicts reports whether two host ports cannot both be bound: same
// protocol and port, and the same IP or either the wildcard address.
func (p HostPort) Conflicts(o HostPort) bool {
	return p.Port == o.Port && p.Protocol == o.Protocol &&
		(p.IP == o.IP || p.IP == "0.0.0.0" || o.IP == "0.0.0.0")
}

// HostPortConflict returns the first host port of want that conflicts
// with one of used, and whether there is one.
func HostPortConflict(want, used []HostPort) (HostPort, bool) {
	for _, w := range want {
		for _, u := range used {
			if w.Conflicts(u) {
				return w, true
			}
		}
	}
	return HostPort{}, false
}
