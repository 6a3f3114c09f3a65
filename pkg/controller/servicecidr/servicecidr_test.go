package servicecidr

import (
	"testing"

	networkingv1 "kubecore.io/api/networking/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/cache"
)

func cidr(name string, deleting bool, cidrs ...string) *networkingv1.ServiceCIDR {
	sc := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	if deleting {
		now := metav1.Now()
		sc.DeletionTimestamp = &now
	}
	return sc
}

// TestBlockingAddress checks which addresses keep a deleted ServiceCIDR:
// those inside it that no live ServiceCIDR also holds.
func TestBlockingAddress(t *testing.T) {
	for _, tc := range []struct {
		name    string
		others  []*networkingv1.ServiceCIDR
		ips     []string
		blocked string
	}{
		{"no address", nil, nil, ""},
		{"an address outside", nil, []string{"10.96.0.10"}, ""},
		{"an address inside", nil, []string{"10.96.0.10", "10.97.0.5"}, "10.97.0.5"},
		{"covered by a larger live range", []*networkingv1.ServiceCIDR{cidr("big", false, "10.96.0.0/12")}, []string{"10.97.0.5"}, ""},
		{"covered by the same range", []*networkingv1.ServiceCIDR{cidr("twin", false, "10.97.0.0/16")}, []string{"10.97.0.5"}, ""},
		{"covered only by another deleted range", []*networkingv1.ServiceCIDR{cidr("twin", true, "10.97.0.0/16")}, []string{"10.97.0.5"}, "10.97.0.5"},
		{"a smaller live range leaves the rest", []*networkingv1.ServiceCIDR{cidr("small", false, "10.97.0.0/24")}, []string{"10.97.0.5", "10.97.1.5"}, "10.97.1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deleted := cidr("extra", true, "10.97.0.0/16")
			cidrs := cache.NewIndexer[*networkingv1.ServiceCIDR]()
			for _, sc := range append([]*networkingv1.ServiceCIDR{deleted}, tc.others...) {
				if err := cidrs.Add(sc); err != nil {
					t.Fatal(err)
				}
			}
			addrs := cache.NewIndexer[*networkingv1.IPAddress]()
			for _, ip := range tc.ips {
				labels := map[string]string{networkingv1.LabelManagedBy: networkingv1.ServiceIPAllocatorManager}
				if err := addrs.Add(&networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: ip, Labels: labels}}); err != nil {
					t.Fatal(err)
				}
			}
			// An address another manager made inside never blocks.
			if err := addrs.Add(&networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "10.97.200.1", Labels: map[string]string{networkingv1.LabelManagedBy: "gateway.example.com"}}}); err != nil {
				t.Fatal(err)
			}
			c := &Controller{cidrs: cache.NewLister(cidrs, networkingv1.Resource("servicecidrs")), addresses: cache.NewLister(addrs, networkingv1.Resource("ipaddresses"))}
			ip, blocked := c.blockingAddress(deleted)
			if blocked != (tc.blocked != "") || ip != tc.blocked {
				t.Errorf("blockingAddress = %q, %v; want %q", ip, blocked, tc.blocked)
			}
		})
	}
}
