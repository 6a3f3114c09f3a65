package kubelet

import (
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// What the kubelet hands the runtime of a pod's and its containers'
// security settings, as Kubernetes' kubelet does through CRI: the
// container's capabilities, privileged and no_new_privs; the pod's sysctls
// (after the kubelet's own check of them, below) and its /etc/hosts.

// containerSecurity is the container's security context for the runtime:
// no_new_privs exactly when allowPrivilegeEscalation is false, as
// Kubernetes' kubelet computes it (unset allows escalation).
func containerSecurity(c *corev1.Container) *kruntime.ContainerSecurity {
	s := &kruntime.ContainerSecurity{}
	sc := c.SecurityContext
	if sc == nil {
		return s
	}
	s.Privileged = sc.Privileged != nil && *sc.Privileged
	s.NoNewPrivs = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
	s.ReadOnlyRootfs = sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
	if caps := sc.Capabilities; caps != nil {
		for _, c := range caps.Add {
			s.CapAdd = append(s.CapAdd, string(c))
		}
		for _, c := range caps.Drop {
			s.CapDrop = append(s.CapDrop, string(c))
		}
	}
	return s
}

// podSysctls are the pod's sysctls for its sandbox.
func podSysctls(pod *corev1.Pod) []kruntime.KeyValue {
	psc := pod.Spec.SecurityContext
	if psc == nil {
		return nil
	}
	out := make([]kruntime.KeyValue, 0, len(psc.Sysctls))
	for _, s := range psc.Sysctls {
		out = append(out, kruntime.KeyValue{Key: s.Name, Value: s.Value})
	}
	return out
}

// podHosts is the pod's part of its kubelet-managed /etc/hosts; nil for a
// pod on the node's network, which keeps the node's file.
func podHosts(pod *corev1.Pod, clusterDomain string) *kruntime.HostsConfig {
	if pod.Spec.HostNetwork {
		return nil
	}
	h := &kruntime.HostsConfig{}
	if sub := pod.Spec.Subdomain; sub != "" {
		h.FQDN = fmt.Sprintf("%s.%s.%s.svc.%s", podHostname(pod), sub, pod.Namespace, strings.TrimSuffix(clusterDomain, "."))
	}
	for _, a := range pod.Spec.HostAliases {
		h.Aliases = append(h.Aliases, kruntime.HostAlias{IP: a.IP, Hostnames: slices.Clone(a.Hostnames)})
	}
	return h
}

// reasonSysctlForbidden is the status reason of a pod rejected for its
// sysctls, as Kubernetes' kubelet words it.
const reasonSysctlForbidden = "SysctlForbidden"

// safeSysctls are the sysctls every kubelet allows: namespaced, and
// isolated from the node and the other pods (Kubernetes' safe set).
var safeSysctls = []string{
	"kernel.shm_rmid_forced",
	"net.ipv4.ip_local_port_range",
	"net.ipv4.tcp_syncookies",
	"net.ipv4.ping_group_range",
	"net.ipv4.ip_unprivileged_port_start",
	"net.ipv4.ip_local_reserved_ports",
	"net.ipv4.tcp_keepalive_time",
	"net.ipv4.tcp_fin_timeout",
	"net.ipv4.tcp_keepalive_intvl",
	"net.ipv4.tcp_keepalive_probes",
	"net.ipv4.tcp_rmem",
	"net.ipv4.tcp_wmem",
}

// sysctlDots is a sysctl name with '.' between its parts: a name given
// with '/' separators (whose parts may hold dots, as interface names do)
// has its '/' and '.' swapped, as Kubernetes normalizes it.
func sysctlDots(name string) string {
	if i := strings.IndexAny(name, "./"); i < 0 || name[i] == '.' {
		return name
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '/':
			return '.'
		case '.':
			return '/'
		}
		return r
	}, name)
}

// sysctlNamespace is the namespace a sysctl belongs to ("ipc", "net"),
// "" for one that is not namespaced, which no pod may set.
func sysctlNamespace(name string) string {
	switch {
	case name == "kernel.sem", strings.HasPrefix(name, "kernel.shm"), strings.HasPrefix(name, "kernel.msg"), strings.HasPrefix(name, "fs.mqueue."):
		return "ipc"
	case strings.HasPrefix(name, "net."):
		return "net"
	}
	return ""
}

// forbiddenSysctl returns why the kubelet refuses one of the pod's
// sysctls, "" when it allows them all: a sysctl must be safe or match
// one of allowedUnsafe (names, or prefixes ending in "*"), be
// namespaced, and not belong to a namespace the pod shares with the node.
func forbiddenSysctl(pod *corev1.Pod, allowedUnsafe []string) string {
	psc := pod.Spec.SecurityContext
	if psc == nil {
		return ""
	}
	for _, s := range psc.Sysctls {
		name := sysctlDots(s.Name)
		allowed := slices.Contains(safeSysctls, name)
		for _, a := range allowedUnsafe {
			p, prefix := strings.CutSuffix(sysctlDots(a), "*")
			if name == p || prefix && strings.HasPrefix(name, p) {
				allowed = true
			}
		}
		if !allowed {
			return fmt.Sprintf("forbidden sysctl: %q not allowlisted", s.Name)
		}
		switch ns := sysctlNamespace(name); {
		case ns == "":
			return fmt.Sprintf("forbidden sysctl: %q not namespaced", s.Name)
		case ns == "net" && pod.Spec.HostNetwork:
			return fmt.Sprintf("forbidden sysctl: %q not allowed with host net enabled", s.Name)
		case ns == "ipc" && pod.Spec.HostIPC:
			return fmt.Sprintf("forbidden sysctl: %q not allowed with host ipc enabled", s.Name)
		}
	}
	return ""
}
