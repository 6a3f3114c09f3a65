package kubelet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodDNS(t *testing.T) {
	host := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(host, []byte("# host\nnameserver 192.0.2.1\nnameserver 192.0.2.2\nsearch corp.example\noptions edns0 ndots:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := DNSConfigurer{ClusterDNS: []string{"10.96.0.10"}, ClusterDomain: "cluster.local", HostResolvConf: host}
	pod := func(policy corev1.DNSPolicy, hostNet bool, dc *corev1.PodDNSConfig) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "p"},
			Spec: corev1.PodSpec{DNSPolicy: policy, HostNetwork: hostNet, DNSConfig: dc}}
	}
	clusterFirst := "nameserver 10.96.0.10\nsearch team.svc.cluster.local svc.cluster.local cluster.local corp.example\noptions ndots:5\n"
	hostConf := "nameserver 192.0.2.1\nnameserver 192.0.2.2\nsearch corp.example\noptions edns0 ndots:1\n"
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("d%d.example", i))
	}
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		cfg      DNSConfigurer
		want     string
		warnings int
	}{
		{"default policy is ClusterFirst", pod("", false, nil), d, clusterFirst, 0},
		{"ClusterFirst", pod(corev1.DNSClusterFirst, false, nil), d, clusterFirst, 0},
		{"ClusterFirst with host network acts as Default", pod(corev1.DNSClusterFirst, true, nil), d, hostConf, 0},
		{"ClusterFirstWithHostNet", pod(corev1.DNSClusterFirstWithHostNet, true, nil), d, clusterFirst, 0},
		{"Default", pod(corev1.DNSDefault, false, nil), d, hostConf, 0},
		{"ClusterFirst without cluster DNS falls back", pod(corev1.DNSClusterFirst, false, nil), DNSConfigurer{ClusterDomain: "cluster.local", HostResolvConf: host}, hostConf, 0},
		{"None with dnsConfig", pod(corev1.DNSNone, false, &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1"}, Searches: []string{"a.example"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: new("2")}, {Name: "rotate"}}}), d,
			"nameserver 1.1.1.1\nsearch a.example\noptions ndots:2 rotate\n", 0},
		{"dnsConfig merged into ClusterFirst", pod(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{Nameservers: []string{"10.96.0.10", "1.1.1.1"},
			Searches: []string{"svc.cluster.local", "x.example"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: new("3")}}}), d,
			"nameserver 10.96.0.10\nnameserver 1.1.1.1\nsearch team.svc.cluster.local svc.cluster.local cluster.local corp.example x.example\noptions ndots:3\n", 0},
		{"limits: 3 name servers, 32 search domains", pod(corev1.DNSNone, false, &corev1.PodDNSConfig{Nameservers: []string{"1.0.0.1", "1.0.0.2", "1.0.0.3", "1.0.0.4"}, Searches: many}), d,
			"nameserver 1.0.0.1\nnameserver 1.0.0.2\nnameserver 1.0.0.3\nsearch " + strings.Join(many[:32], " ") + "\n", 2},
	} {
		c, warnings, err := tc.cfg.PodDNS(tc.pod)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := string(c.ResolvConf()); got != tc.want || len(warnings) != tc.warnings {
			t.Errorf("%s:\n%s(warnings %v)\nwant\n%s(%d warnings)", tc.name, got, warnings, tc.want, tc.warnings)
		}
	}
}
