package etcd3

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/storage"
)

// TestLeaseTTL: objects of a store with a LeaseTTL share one lease per
// reuse window, get a new one after it, and disappear once it expires.
func TestLeaseTTL(t *testing.T) {
	ctx := ctxT(t)
	s, prefix := newTestStore(t, testClient, func(c *Config) { c.LeaseTTL = 2 * time.Second })
	now := time.Now()
	s.(*store).leases.now = func() time.Time { return now }
	leaseOf := func(key string) clientv3.LeaseID {
		t.Helper()
		resp, err := testClient.Get(ctx, prefix+key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("get %s: %v %v", key, resp, err)
		}
		return clientv3.LeaseID(resp.Kvs[0].Lease)
	}
	mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	mustCreate(t, s, "/widgets/default/b", newWidget("b", nil))
	first := leaseOf("/widgets/default/a")
	if first == clientv3.NoLease || leaseOf("/widgets/default/b") != first {
		t.Fatalf("leases %x and %x: want one shared lease", first, leaseOf("/widgets/default/b"))
	}
	// Past the reuse window, an update gets a lease with the full TTL ahead.
	now = now.Add(s.(*store).leases.window + time.Second)
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil); err != nil {
		t.Fatal(err)
	}
	if second := leaseOf("/widgets/default/a"); second == first || second == clientv3.NoLease {
		t.Fatalf("lease after the window %x, first %x: want a new one", second, first)
	}
	// A revoked lease is replaced on the next write.
	second := leaseOf("/widgets/default/a")
	if _, err := testClient.Revoke(ctx, second); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/widgets/default/c", newWidget("c", nil))
	if third := leaseOf("/widgets/default/c"); third == second || third == clientv3.NoLease {
		t.Fatalf("lease after revoke %x: want a new one", third)
	}
	// Both objects expire with their lease (b's first, c's in a few seconds).
	for _, key := range []string{"/widgets/default/b", "/widgets/default/c"} {
		for {
			_, err := s.Get(ctx, key, storage.GetOptions{})
			if hasCode(err, storage.ErrCodeKeyNotFound) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
