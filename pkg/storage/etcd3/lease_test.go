package etcd3

import (
	"strconv"
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
	third := leaseOf("/widgets/default/c")
	if ttl, err := testClient.TimeToLive(ctx, third); third == clientv3.NoLease || err != nil || ttl.TTL <= 0 {
		t.Fatalf("lease after revoke %x: %+v %v, want a live one", third, ttl, err)
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

// TestExpiredLeasesSwept: an expiring object's lease carries its deadline;
// the sweep leaves it before the deadline and revokes it, with the object,
// once the deadline has passed, however long etcd's own timer still runs
// (etcd restarts it when a member restarts). Leases numbered by etcd are
// never touched.
func TestExpiredLeasesSwept(t *testing.T) {
	ctx := ctxT(t)
	s, prefix := newTestStore(t, testClient, func(c *Config) { c.LeaseTTL = time.Hour })
	mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	resp, err := testClient.Get(ctx, prefix+"/widgets/default/a")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("get: %v %v", resp, err)
	}
	id := clientv3.LeaseID(resp.Kvs[0].Lease)
	rec, err := testClient.Get(ctx, leaseDeadlineKey(id))
	if err != nil || len(rec.Kvs) != 1 || clientv3.LeaseID(rec.Kvs[0].Lease) != id {
		t.Fatalf("deadline of lease %x: %v %v", id, rec, err)
	}
	secs, _ := strconv.ParseInt(string(rec.Kvs[0].Value), 10, 64)
	deadline := time.Unix(secs, 0)
	if want := time.Now().Add(time.Hour); deadline.Before(want.Add(-time.Minute)) || deadline.After(want.Add(2*time.Minute)) {
		t.Fatalf("lease %x: deadline %v, want about %v", id, deadline, want)
	}
	other, err := testClient.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = testClient.Revoke(ctx, other.ID) }()

	if _, err := sweepLeases(ctx, testClient, deadline.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/widgets/default/a", storage.GetOptions{}); err != nil {
		t.Fatalf("before the deadline: %v", err)
	}
	n, err := sweepLeases(ctx, testClient, deadline)
	if err != nil || n < 1 {
		t.Fatalf("sweep at the deadline: %d revoked, %v", n, err)
	}
	if _, err := s.Get(ctx, "/widgets/default/a", storage.GetOptions{}); !hasCode(err, storage.ErrCodeKeyNotFound) {
		t.Fatalf("after the deadline: %v, want not found", err)
	}
	if ttl, err := testClient.TimeToLive(ctx, other.ID); err != nil || ttl.TTL <= 0 {
		t.Fatalf("etcd's own lease after the sweep: %+v %v", ttl, err)
	}
	// The next write is granted a lease again.
	mustCreate(t, s, "/widgets/default/b", newWidget("b", nil))
}
