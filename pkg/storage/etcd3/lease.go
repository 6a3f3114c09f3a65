package etcd3

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"
)

// maxLeaseReuse bounds how long one lease is handed out: the objects
// written in that window share it, and live up to that much longer than
// their TTL.
const maxLeaseReuse = time.Minute

// leaseManager hands out the etcd lease of objects that expire ttl after
// their last write (events, --event-ttl). One lease serves every write of a
// reuse window, as Kubernetes shares leases, instead of one lease per
// object: each lease is granted for ttl plus the window and handed out
// while at least ttl of it remains, so an object lives between ttl and
// ttl plus the window after its last write.
type leaseManager struct {
	client *clientv3.Client
	ttl    time.Duration
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	id      clientv3.LeaseID
	expires time.Time
}

func newLeaseManager(client *clientv3.Client, ttl time.Duration) *leaseManager {
	// 5% of the TTL, between a second and maxLeaseReuse.
	window := min(max(ttl/20, time.Second), maxLeaseReuse)
	return &leaseManager{client: client, ttl: ttl, window: window, now: time.Now}
}

// lease returns a lease with at least ttl left, granting a new one when the
// current one has less.
func (m *leaseManager) lease(ctx context.Context) (clientv3.LeaseID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.id != clientv3.NoLease && m.expires.Sub(now) >= m.ttl {
		return m.id, nil
	}
	seconds := int64((m.ttl + m.window + time.Second - 1) / time.Second)
	resp, err := m.client.Grant(ctx, seconds)
	if err != nil {
		return clientv3.NoLease, fmt.Errorf("grant a lease of %ds: %w", seconds, err)
	}
	// etcd may grant more than asked (its minimum TTL), never less.
	expires := now.Add(time.Duration(resp.TTL) * time.Second)
	if _, err := m.client.Put(ctx, leaseDeadlineKey(resp.ID), strconv.FormatInt(expires.Unix(), 10), clientv3.WithLease(resp.ID)); err != nil {
		return clientv3.NoLease, fmt.Errorf("record the deadline of lease %x: %w", resp.ID, err)
	}
	m.id, m.expires = resp.ID, expires
	return m.id, nil
}

// Each lease of expiring objects has a key of its own under
// leaseDeadlinePrefix, on the lease, holding the Unix second by which its
// objects must be gone. etcd restarts every lease's timer when a member
// restarts or a new leader is elected (lease checkpoints are off), so a
// server restarted more often than the TTL would keep its events for ever;
// SweepExpiredLeases revokes by the recorded deadline instead.
const leaseDeadlinePrefix = "kubecore_lease_deadline/"

func leaseDeadlineKey(id clientv3.LeaseID) string {
	return leaseDeadlinePrefix + strconv.FormatInt(int64(id), 16)
}

// DefaultLeaseSweepInterval is how often SweepExpiredLeases looks.
const DefaultLeaseSweepInterval = time.Minute

// SweepExpiredLeases revokes, now and every interval until ctx ends, the
// leases of expiring objects whose deadline has passed, with their
// objects. Several API servers may sweep one etcd: a lease revoked twice
// is not an error.
func SweepExpiredLeases(ctx context.Context, client *clientv3.Client, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := sweepLeases(ctx, client, time.Now()); err != nil {
			klog.FromContext(ctx).V(2).Info("Lease sweep failed", "err", err)
		} else if n > 0 {
			klog.FromContext(ctx).V(2).Info("Revoked expired leases", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// sweepLeases revokes the leases whose recorded deadline is not after
// now and returns how many it revoked.
func sweepLeases(ctx context.Context, client *clientv3.Client, now time.Time) (int, error) {
	resp, err := client.Get(ctx, leaseDeadlinePrefix, clientv3.WithPrefix())
	if err != nil {
		return 0, fmt.Errorf("list lease deadlines: %w", err)
	}
	n := 0
	for _, kv := range resp.Kvs {
		deadline, err := strconv.ParseInt(string(kv.Value), 10, 64)
		if err != nil || kv.Lease == 0 || now.Unix() < deadline {
			continue
		}
		if _, err := client.Revoke(ctx, clientv3.LeaseID(kv.Lease)); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) && rpctypes.ErrorDesc(err) != rpctypes.ErrLeaseNotFound.Error() {
			return n, fmt.Errorf("revoke lease %x: %w", kv.Lease, err)
		}
		n++
	}
	return n, nil
}

// forget drops id when etcd no longer knows it (revoked, or expired while
// etcd was away), so that the next write is granted a new one.
func (m *leaseManager) forget(id clientv3.LeaseID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.id == id {
		m.id = clientv3.NoLease
	}
}

// putOptions are the options of a Put of s's objects: their lease, when
// they expire.
func (s *store) putOptions(ctx context.Context) ([]clientv3.OpOption, clientv3.LeaseID, error) {
	if s.leases == nil {
		return nil, clientv3.NoLease, nil
	}
	id, err := s.leases.lease(ctx)
	if err != nil {
		return nil, clientv3.NoLease, err
	}
	return []clientv3.OpOption{clientv3.WithLease(id)}, id, nil
}

// leaseLost says err is etcd refusing a Put whose lease is gone, after
// which the store forgets the lease and writes again with a new one.
func (s *store) leaseLost(err error, id clientv3.LeaseID) bool {
	if s.leases == nil || id == clientv3.NoLease {
		return false
	}
	if !errors.Is(err, rpctypes.ErrLeaseNotFound) && !errors.Is(err, rpctypes.ErrGRPCLeaseNotFound) &&
		rpctypes.ErrorDesc(err) != rpctypes.ErrLeaseNotFound.Error() {
		return false
	}
	s.leases.forget(id)
	return true
}
