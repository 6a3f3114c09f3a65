package nodeipam

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/cache"
)

// newAllocator returns a controller over nodes whose pod CIDRs are cidrs
// ("" for none), without a client: enough for allocate.
func newAllocator(t *testing.T, cluster string, mask int, cidrs ...string) *Controller {
	t.Helper()
	idx := cache.NewIndexer[*corev1.Node]()
	c := newController(nil, Options{ClusterCIDR: netip.MustParsePrefix(cluster), NodeCIDRMaskSize: mask})
	c.nodes = cache.NewLister(idx, corev1.Resource("nodes"))
	for i, cidr := range cidrs {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i)}}
		if cidr != "" {
			n.Spec.PodCIDR, n.Spec.PodCIDRs = cidr, []string{cidr}
		}
		if err := idx.Add(n); err != nil {
			t.Fatal(err)
		}
		c.observe(n.Name, n)
	}
	return c
}

func TestAllocateFirstFree(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster string
		mask    int
		used    []string
		want    []string // successive allocations; "full" for ErrCIDRFull
	}{
		{name: "empty", cluster: "10.244.0.0/16", mask: 24, want: []string{"10.244.0.0/24", "10.244.1.0/24"}},
		{name: "gaps first", cluster: "10.244.0.0/16", mask: 24, used: []string{"10.244.0.0/24", "10.244.2.0/24", ""},
			want: []string{"10.244.1.0/24", "10.244.3.0/24"}},
		{name: "a larger range by hand", cluster: "10.244.0.0/16", mask: 24, used: []string{"10.244.0.0/23", "10.244.3.0/24"},
			want: []string{"10.244.2.0/24", "10.244.4.0/24"}},
		{name: "a smaller range by hand", cluster: "10.244.0.0/16", mask: 24, used: []string{"10.244.0.16/28"},
			want: []string{"10.244.1.0/24"}},
		{name: "outside the cluster and other families ignored", cluster: "10.244.0.0/16", mask: 24,
			used: []string{"10.0.0.0/24", "fd00::/64", "not-a-cidr"}, want: []string{"10.244.0.0/24"}},
		{name: "full", cluster: "10.244.0.0/22", mask: 24, used: []string{"10.244.0.0/24", "10.244.1.0/24", "10.244.3.0/24"},
			want: []string{"10.244.2.0/24", "full"}},
		{name: "a range holding the cluster", cluster: "10.244.0.0/16", mask: 24, used: []string{"10.0.0.0/8"}, want: []string{"full"}},
		{name: "IPv6", cluster: "fd00:10:244::/56", mask: 64, used: []string{"fd00:10:244::/64"},
			want: []string{"fd00:10:244:1::/64", "fd00:10:244:2::/64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newAllocator(t, tc.cluster, tc.mask, tc.used...)
			for i, want := range tc.want {
				got, err := c.allocate(fmt.Sprintf("new-%d", i))
				if want == "full" {
					if !errors.Is(err, ErrCIDRFull) {
						t.Fatalf("allocation %d: %v, %v; want ErrCIDRFull", i, got, err)
					}
					continue
				}
				if err != nil || got.String() != want {
					t.Fatalf("allocation %d: %v, %v; want %s", i, got, err, want)
				}
			}
		})
	}
}

// TestAllocateKeepsPending: a Node asking again gets the range it was
// given, no other Node gets it before or after the Node shows it, and a
// deleted Node's range is free again.
func TestAllocateKeepsPending(t *testing.T) {
	c := newAllocator(t, "10.244.0.0/16", 24)
	a, err := c.allocate("a")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.allocate("a"); again != a {
		t.Errorf("a again: %v, want %v", again, a)
	}
	// The cache shows a without its range yet, then with it.
	c.observe("a", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	if b, _ := c.allocate("b"); b == a {
		t.Errorf("b was given a's pending range %v", b)
	}
	c.observe("a", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NodeSpec{PodCIDR: a.String()}})
	if d, _ := c.allocate("d"); d == a {
		t.Errorf("d was given a's range %v", d)
	}
	c.observe("a", nil)
	if e, _ := c.allocate("e"); e != a {
		t.Errorf("after a is deleted e got %v, want a's %v", e, a)
	}
}

// BenchmarkAllocate5000Nodes allocates the ranges of 5,000 Nodes joining at
// once, each seeing the ranges already written.
func BenchmarkAllocate5000Nodes(b *testing.B) {
	for b.Loop() {
		c := newController(nil, Options{ClusterCIDR: netip.MustParsePrefix("10.0.0.0/8"), NodeCIDRMaskSize: 24})
		for i := range 5000 {
			name := fmt.Sprintf("n%d", i)
			p, err := c.allocate(name)
			if err != nil {
				b.Fatal(err)
			}
			c.observe(name, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDR: p.String(), PodCIDRs: []string{p.String()}}})
		}
	}
}
