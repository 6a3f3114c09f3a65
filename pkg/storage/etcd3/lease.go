package etcd3

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
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
	m.id, m.expires = resp.ID, now.Add(time.Duration(resp.TTL)*time.Second)
	return m.id, nil
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
