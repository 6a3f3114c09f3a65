package leaderelection

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2500 * time.Millisecond
	tick          = 100 * time.Millisecond
)

// candidate is one elector of a harness and what it has done.
type candidate struct {
	id      string
	client  *brokenClient
	elector *Elector
	cancel  context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	leadCtx context.Context
	started int
}

func (c *candidate) leading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leadCtx != nil && c.leadCtx.Err() == nil
}

// harness runs candidates on one fake Lease with a fake clock, and checks on
// every write of the Lease and after every tick that at most one leads.
type harness struct {
	t       *testing.T
	clock   *fakeClock
	leases  *fakeLeases
	running atomic.Int32
	// wrap, if set, wraps the Lease client of the candidates started next.
	wrap func(LeaseClient) LeaseClient

	mu         sync.Mutex
	candidates []*candidate
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, clock: newFakeClock(), leases: newFakeLeases()}
	h.leases.onWrite = func(l *coordinationv1.Lease) {
		holder := deref(l.Spec.HolderIdentity)
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.candidates {
			if c.id != holder && c.leading() {
				t.Errorf("lease taken by %q while %q still leads", holder, c.id)
			}
		}
	}
	return h
}

func (h *harness) start(id string, release bool) *candidate {
	var leases LeaseClient = h.leases
	if h.wrap != nil {
		leases = h.wrap(leases)
	}
	c := &candidate{id: id, client: &brokenClient{LeaseClient: leases}, done: make(chan struct{})}
	e, err := New(Config{
		Client: c.client, LeaseName: "lock", Identity: id,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		ReleaseOnCancel: release, Clock: h.clock,
		Callbacks: Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				c.mu.Lock()
				c.leadCtx = ctx
				c.started++
				c.mu.Unlock()
			},
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	c.elector = e
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	h.mu.Lock()
	h.candidates = append(h.candidates, c)
	h.mu.Unlock()
	h.running.Add(1)
	go func() {
		defer close(c.done)
		defer h.running.Add(-1)
		e.Run(ctx)
	}()
	h.settle()
	return c
}

// settle waits until every running elector waits on the clock.
func (h *harness) settle() {
	deadline := time.Now().Add(10 * time.Second)
	for h.clock.Waiters() != int(h.running.Load()) {
		if time.Now().After(deadline) {
			h.t.Fatalf("electors did not settle: %d timers, %d running", h.clock.Waiters(), h.running.Load())
		}
		time.Sleep(50 * time.Microsecond)
	}
	runtime.Gosched()
}

// waitFor waits in real time for cond, e.g. for a callback goroutine to run.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func (h *harness) check() {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.candidates {
		if c.leading() {
			n++
		}
	}
	if n > 1 {
		h.t.Fatalf("%d candidates lead at once", n)
	}
}

// advanceUntil ticks the clock until cond holds or limit passes; it returns
// the fake time that elapsed.
func (h *harness) advanceUntil(limit time.Duration, cond func() bool) (time.Duration, bool) {
	start := h.clock.Now()
	for {
		h.settle()
		h.check()
		if cond() {
			return h.clock.Now().Sub(start), true
		}
		if h.clock.Now().Sub(start) >= limit {
			return h.clock.Now().Sub(start), false
		}
		h.clock.Step(tick)
	}
}

func (h *harness) stopAll() {
	for _, c := range h.candidates {
		c.cancel()
		<-c.done
	}
}

func (h *harness) transitions() int32 {
	l, err := h.leases.Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return deref(l.Spec.LeaseTransitions)
}

func TestTakeover(t *testing.T) {
	tests := []struct {
		name    string
		release bool
		// stop ends a's leadership and returns when it began.
		stop     func(h *harness, a *candidate)
		maxDelay time.Duration
	}{
		{
			name: "cancel without release",
			stop: func(h *harness, a *candidate) { a.cancel(); <-a.done },
			// b may have seen a's last renewal up to a retry period late.
			maxDelay: leaseDuration + retryPeriod,
		},
		{
			name:     "cancel with release",
			release:  true,
			stop:     func(h *harness, a *candidate) { a.cancel(); <-a.done },
			maxDelay: retryPeriod,
		},
		{
			name: "partitioned leader stops before takeover",
			stop: func(h *harness, a *candidate) {
				a.client.setBroken(true)
				if d, ok := h.advanceUntil(renewDeadline+retryPeriod, func() bool { return !a.leading() }); !ok {
					h.t.Fatalf("partitioned leader still leads after %v", d)
				}
			},
			// measured from the moment a stopped leading
			maxDelay: leaseDuration,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			defer h.stopAll()
			a := h.start("a", tt.release)
			waitFor(t, a.leading)
			b := h.start("b", tt.release)
			// a renews for a while; b must not take over.
			if _, ok := h.advanceUntil(3*leaseDuration, b.leading); ok {
				t.Fatal("b took over a lease a keeps renewing")
			}
			if !a.leading() || a.elector.Leader() != "a" || b.elector.Leader() != "a" {
				t.Fatalf("a leading=%v, a sees %q, b sees %q", a.leading(), a.elector.Leader(), b.elector.Leader())
			}
			tt.stop(h, a)
			// IsLeader turns true with the write that takes the lease;
			// OnStartedLeading may run a little later in its own goroutine.
			d, ok := h.advanceUntil(3*leaseDuration, b.elector.IsLeader)
			if !ok {
				t.Fatalf("b did not take over within %v", d)
			}
			if d > tt.maxDelay {
				t.Errorf("takeover took %v, want at most %v", d, tt.maxDelay)
			}
			t.Logf("figure: takeover %v (target: <= %v)", d, tt.maxDelay)
			if got := h.transitions(); got != 1 {
				t.Errorf("leaseTransitions = %d, want 1", got)
			}
			waitFor(t, b.leading)
			// b keeps the lease; a, if still running, does not take it back.
			if _, ok := h.advanceUntil(2*leaseDuration, func() bool { return !b.leading() || a.leading() }); ok {
				t.Fatalf("leadership moved again: a=%v b=%v", a.leading(), b.leading())
			}
		})
	}
}

// TestManyCandidates runs five candidates that are repeatedly cancelled and
// restarted; at most one leads at any time and the lease always finds a holder.
func TestManyCandidates(t *testing.T) {
	h := newHarness(t)
	defer h.stopAll()
	ids := []string{"c0", "c1", "c2", "c3", "c4"}
	byID := map[string]*candidate{}
	for i, id := range ids {
		byID[id] = h.start(id, i%2 == 0)
	}
	for round := range 6 {
		var leader *candidate
		d, ok := h.advanceUntil(2*leaseDuration+retryPeriod, func() bool {
			for _, c := range byID {
				if c.leading() {
					leader = c
					return true
				}
			}
			return false
		})
		if !ok {
			t.Fatalf("round %d: no leader after %v", round, d)
		}
		leader.cancel()
		<-leader.done
		byID[leader.id] = h.start(leader.id+"-"+strings.Repeat("r", round+1), round%2 == 0)
	}
}

func TestValidate(t *testing.T) {
	ok := Config{
		Client: newFakeLeases(), LeaseName: "l", Identity: "i",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: Callbacks{OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}},
	}
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{name: "valid", mutate: func(*Config) {}},
		{name: "no identity", mutate: func(c *Config) { c.Identity = "" }, wantErr: "identity: Required value"},
		{name: "no lease name", mutate: func(c *Config) { c.LeaseName = "" }, wantErr: "leaseName: Required value"},
		{name: "no client", mutate: func(c *Config) { c.Client = nil }, wantErr: "client: Required value"},
		{name: "renew deadline not below lease duration", mutate: func(c *Config) { c.RenewDeadline = 15 * time.Second }, wantErr: "renewDeadline: Invalid value"},
		{name: "retry period not below renew deadline", mutate: func(c *Config) { c.RetryPeriod = 10 * time.Second }, wantErr: "retryPeriod: Invalid value"},
		{name: "zero lease duration", mutate: func(c *Config) { c.LeaseDuration = 0 }, wantErr: "leaseDuration: Invalid value"},
		{name: "no started callback", mutate: func(c *Config) { c.Callbacks.OnStartedLeading = nil }, wantErr: "callbacks.onStartedLeading: Required value"},
		{name: "no stopped callback", mutate: func(c *Config) { c.Callbacks.OnStoppedLeading = nil }, wantErr: "callbacks.onStoppedLeading: Required value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mutate(&c)
			_, err := New(c)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// lostAnswerClient applies one Update but answers it with an error, as
// when the caller's context is cancelled while the request is in flight.
type lostAnswerClient struct {
	LeaseClient
	mu   sync.Mutex
	lose bool
}

func (c *lostAnswerClient) Update(ctx context.Context, l *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	out, err := c.LeaseClient.Update(ctx, l, opts)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && c.lose {
		c.lose = false
		return nil, context.Canceled
	}
	return out, err
}

// TestReleaseAfterLostRenewal: a renewal applied by the server whose answer
// the leader never saw leaves it holding a stale resourceVersion; releasing
// on cancel must still clear the holder rather than fail with a conflict.
func TestReleaseAfterLostRenewal(t *testing.T) {
	h := newHarness(t)
	defer h.stopAll()
	lost := &lostAnswerClient{LeaseClient: h.leases}
	h.wrap = func(LeaseClient) LeaseClient { return lost }
	a := h.start("a", true)
	waitFor(t, a.leading)
	lost.mu.Lock()
	lost.lose = true
	lost.mu.Unlock()
	// The next renewal is applied, its answer lost.
	if _, ok := h.advanceUntil(2*retryPeriod, func() bool {
		lost.mu.Lock()
		defer lost.mu.Unlock()
		return !lost.lose
	}); !ok {
		t.Fatal("no renewal within two retry periods")
	}
	a.cancel()
	<-a.done
	l, err := h.leases.Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if holder := deref(l.Spec.HolderIdentity); holder != "" {
		t.Errorf("holder after release is %q, want none", holder)
	}
}

// countingClient counts the requests of one candidate.
type countingClient struct {
	LeaseClient
	gets, updates atomic.Int32
}

func (c *countingClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	c.gets.Add(1)
	return c.LeaseClient.Get(ctx, name, opts)
}

func (c *countingClient) Update(ctx context.Context, l *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	c.updates.Add(1)
	return c.LeaseClient.Update(ctx, l, opts)
}

// TestLeaderRenewsWithoutReading: a leader renews the Lease it last wrote
// with one request; once someone else wrote the Lease, its renewal
// conflicts, and it reads the Lease and renews on that.
func TestLeaderRenewsWithoutReading(t *testing.T) {
	h := newHarness(t)
	defer h.stopAll()
	counts := &countingClient{}
	h.wrap = func(c LeaseClient) LeaseClient { counts.LeaseClient = c; return counts }
	a := h.start("a", false)
	waitFor(t, a.leading)
	gets, updates := counts.gets.Load(), counts.updates.Load()
	h.advanceUntil(4*retryPeriod, func() bool { return false })
	if g, u := counts.gets.Load()-gets, counts.updates.Load()-updates; g != 0 || u < 3 {
		t.Fatalf("over four retry periods the leader made %d reads and %d updates, want 0 and at least 3", g, u)
	}
	// An administrator edits the Lease (a label): the leader's copy is stale.
	l, err := h.leases.Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Labels = map[string]string{"edited": "yes"}
	if _, err := h.leases.Update(context.Background(), l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	gets = counts.gets.Load()
	h.advanceUntil(2*retryPeriod, func() bool { return false })
	if counts.gets.Load() == gets {
		t.Error("the leader did not read the Lease after its renewal conflicted")
	}
	if !a.leading() {
		t.Fatal("the leader lost the Lease after an edit of it")
	}
	l, err = h.leases.Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Labels["edited"] != "yes" || deref(l.Spec.HolderIdentity) != "a" {
		t.Errorf("after the renewal: labels %v holder %q, want the edit kept and a", l.Labels, deref(l.Spec.HolderIdentity))
	}
}
