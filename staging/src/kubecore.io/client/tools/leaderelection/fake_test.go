package leaderelection

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// fakeClock is a manual Clock: time moves only in Step.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters map[*fakeTimer]struct{}
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Time
	ch    chan time.Time
	fired bool
}

var _ Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), waiters: map[*fakeTimer]struct{}{}}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.fired = true
		t.ch <- c.now
		return t
	}
	c.waiters[t] = struct{}{}
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	delete(t.c.waiters, t)
	return !t.fired
}

// Step moves time forward by d and fires the timers that are due.
func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for t := range c.waiters {
		if !t.at.After(c.now) {
			t.fired = true
			t.ch <- c.now
			delete(c.waiters, t)
		}
	}
}

// Waiters is the number of pending timers.
func (c *fakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// fakeLeases is an in-memory Lease store with optimistic concurrency. onWrite
// is called, under the store's lock, with every Lease written.
type fakeLeases struct {
	mu      sync.Mutex
	leases  map[string]*coordinationv1.Lease
	rv      int
	onWrite func(*coordinationv1.Lease)
}

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func newFakeLeases() *fakeLeases { return &fakeLeases{leases: map[string]*coordinationv1.Lease{}} }

func (f *fakeLeases) Get(_ context.Context, name string, _ metav1.GetOptions) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.leases[name]
	if !ok {
		return nil, apierrors.NewNotFound(leaseResource, name)
	}
	return l.DeepCopy(), nil
}

func (f *fakeLeases) Create(_ context.Context, lease *coordinationv1.Lease, _ metav1.CreateOptions) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.leases[lease.Name]; ok {
		return nil, apierrors.NewAlreadyExists(leaseResource, lease.Name)
	}
	return f.store(lease), nil
}

func (f *fakeLeases) Update(_ context.Context, lease *coordinationv1.Lease, _ metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.leases[lease.Name]
	if !ok {
		return nil, apierrors.NewNotFound(leaseResource, lease.Name)
	}
	if cur.ResourceVersion != lease.ResourceVersion {
		return nil, apierrors.NewConflict(leaseResource, lease.Name, errors.New("the object has been modified"))
	}
	return f.store(lease), nil
}

func (f *fakeLeases) store(lease *coordinationv1.Lease) *coordinationv1.Lease {
	f.rv++
	l := lease.DeepCopy()
	l.ResourceVersion = strconv.Itoa(f.rv)
	f.leases[l.Name] = l
	if f.onWrite != nil {
		f.onWrite(l)
	}
	return l.DeepCopy()
}

// brokenClient fails every call while broken is set, as a partitioned client would.
type brokenClient struct {
	LeaseClient
	mu     sync.Mutex
	broken bool
}

var errPartitioned = errors.New("connection refused")

func (b *brokenClient) setBroken(v bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.broken = v
}

func (b *brokenClient) isBroken() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.broken
}

func (b *brokenClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	if b.isBroken() {
		return nil, errPartitioned
	}
	return b.LeaseClient.Get(ctx, name, opts)
}

func (b *brokenClient) Create(ctx context.Context, l *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error) {
	if b.isBroken() {
		return nil, errPartitioned
	}
	return b.LeaseClient.Create(ctx, l, opts)
}

func (b *brokenClient) Update(ctx context.Context, l *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if b.isBroken() {
		return nil, errPartitioned
	}
	return b.LeaseClient.Update(ctx, l, opts)
}
