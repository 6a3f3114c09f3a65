package allinone

import (
	"os"
	"testing"

	"kubecore.io/kubecore/cmd/kubecore/app/kubelet"
	"kubecore.io/kubecore/pkg/dns"
)

// TestNetworkDefaults: as root with the process runtime, all-in-one runs
// the service proxy and the cluster DNS and gives pods the DNS's address;
// without root or with the fake runtime, neither; each flag turns one off.
func TestNetworkDefaults(t *testing.T) {
	root := os.Geteuid() == 0
	for _, tc := range []struct {
		name             string
		change           func(*Options)
		wantProxy, wantD bool
	}{
		{"defaults", func(o *Options) {}, root, root},
		{"fake runtime", func(o *Options) { o.Kubelet.Runtime = kubelet.RuntimeFake }, false, false},
		{"no proxy", func(o *Options) { o.Kubelet.RunServiceProxy = kubelet.SwitchOff }, false, false},
		{"no DNS", func(o *Options) { o.Kubelet.RunClusterDNS = kubelet.SwitchOff }, root, false},
		{"DNS without the proxy", func(o *Options) {
			o.Kubelet.RunServiceProxy, o.Kubelet.RunClusterDNS = kubelet.SwitchOff, kubelet.SwitchOn
		}, false, true},
	} {
		o := NewOptions()
		tc.change(o)
		proxyOn, dnsOn, why := o.network()
		if proxyOn != tc.wantProxy || dnsOn != tc.wantD {
			t.Errorf("%s: proxy %v dns %v (%s), want %v %v", tc.name, proxyOn, dnsOn, why, tc.wantProxy, tc.wantD)
		}
		if n := len(o.networkComponents("node0")); n != btoi(tc.wantProxy)+btoi(tc.wantD) {
			t.Errorf("%s: %d network components", tc.name, n)
		}
		k := o.kubeletOptions(t.TempDir(), "kubeconfig")
		if k.RunServiceProxy != kubelet.SwitchOff || k.RunClusterDNS != kubelet.SwitchOff {
			t.Errorf("%s: the kubelet runs its own proxy %q or DNS %q beside all-in-one's", tc.name, k.RunServiceProxy, k.RunClusterDNS)
		}
		if got := len(k.ClusterDNS) == 1 && k.ClusterDNS[0] == dns.DefaultServiceIP; got != tc.wantD {
			t.Errorf("%s: pods' cluster DNS %v", tc.name, k.ClusterDNS)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
