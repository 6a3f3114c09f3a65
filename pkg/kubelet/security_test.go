package kubelet

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestForbiddenSysctl(t *testing.T) {
	pod := func(hostNet, hostIPC bool, names ...string) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{HostNetwork: hostNet, HostIPC: hostIPC, SecurityContext: &corev1.PodSecurityContext{}}}
		for _, n := range names {
			p.Spec.SecurityContext.Sysctls = append(p.Spec.SecurityContext.Sysctls, corev1.Sysctl{Name: n, Value: "1"})
		}
		return p
	}
	for _, tc := range []struct {
		pod     *corev1.Pod
		allowed []string
		want    string
	}{
		{pod(false, false, "kernel.shm_rmid_forced", "net.ipv4.tcp_syncookies"), nil, ""},
		{pod(false, false, "kernel/shm_rmid_forced", "net/ipv4/ip_local_port_range"), nil, ""},
		{pod(false, false, "kernel.msgmax"), nil, `forbidden sysctl: "kernel.msgmax" not allowlisted`},
		{pod(false, false, "kernel.msgmax"), []string{"kernel.msg*"}, ""},
		{pod(false, false, "net.core.somaxconn"), []string{"net.core.somaxconn"}, ""},
		{pod(false, false, "kernel.panic"), []string{"kernel.panic"}, `forbidden sysctl: "kernel.panic" not namespaced`},
		{pod(true, false, "net.ipv4.tcp_syncookies"), nil, `forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled`},
		{pod(false, true, "kernel.shm_rmid_forced"), nil, `forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host ipc enabled`},
		{&corev1.Pod{}, nil, ""},
	} {
		if got := forbiddenSysctl(tc.pod, tc.allowed); got != tc.want {
			t.Errorf("%v (allowed %q): %q, want %q", tc.pod.Spec.SecurityContext, tc.allowed, got, tc.want)
		}
	}
	if got := sysctlDots("net/ipv4/conf/eth0.100/forwarding"); got != "net.ipv4.conf.eth0/100.forwarding" {
		t.Errorf("sysctlDots = %q", got)
	}
}

func TestContainerSecurity(t *testing.T) {
	f, tr := false, true
	s := containerSecurity(&corev1.Container{SecurityContext: &corev1.SecurityContext{
		AllowPrivilegeEscalation: &f, ReadOnlyRootFilesystem: &tr,
		Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}, Drop: []corev1.Capability{"ALL"}},
	}})
	if !s.NoNewPrivs || !s.ReadOnlyRootfs || s.Privileged || len(s.CapAdd) != 1 || s.CapAdd[0] != "NET_ADMIN" || len(s.CapDrop) != 1 || s.CapDrop[0] != "ALL" {
		t.Errorf("containerSecurity = %+v", s)
	}
	// Unset allowPrivilegeEscalation allows it, as in Kubernetes.
	if s := containerSecurity(&corev1.Container{SecurityContext: &corev1.SecurityContext{Privileged: &tr}}); s.NoNewPrivs || !s.Privileged {
		t.Errorf("privileged: %+v", s)
	}
	if s := containerSecurity(&corev1.Container{}); s == nil || s.NoNewPrivs || s.Privileged {
		t.Errorf("no security context: %+v", s)
	}
}

func TestPodHosts(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "ns"}, Spec: corev1.PodSpec{
		Subdomain: "web", HostAliases: []corev1.HostAlias{{IP: "192.0.2.9", Hostnames: []string{"foo", "bar"}}}}}
	h := podHosts(pod, "cluster.local.")
	if h == nil || h.FQDN != "web-0.web.ns.svc.cluster.local" || len(h.Aliases) != 1 || h.Aliases[0].IP != "192.0.2.9" {
		t.Fatalf("podHosts = %+v", h)
	}
	want := "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n" +
		"10.244.0.5\tweb-0.web.ns.svc.cluster.local\tweb-0\n\n# Entries added by HostAliases.\n192.0.2.9\tfoo\tbar\n"
	if got := string(h.HostsFile("10.244.0.5", "web-0")); got != want {
		t.Errorf("HostsFile:\n%s\nwant:\n%s", got, want)
	}
	pod.Spec.HostNetwork = true
	if h := podHosts(pod, "cluster.local"); h != nil {
		t.Errorf("hostNetwork pod: %+v, want the node's /etc/hosts", h)
	}
}
