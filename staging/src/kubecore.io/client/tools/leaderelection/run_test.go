package leaderelection

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// runHarness runs RunLeading for one candidate on a fake Lease and clock.
type runHarness struct {
	t      *testing.T
	clock  *fakeClock
	leases *fakeLeases
	client *brokenClient
	cancel context.CancelFunc
	result chan error

	mu sync.Mutex
	// leadReturned is set once lead returned; releasedEarly records a
	// write clearing the holder before that.
	leadReturned  bool
	releasedEarly bool
	released      bool
}

func newRunHarness(t *testing.T) *runHarness {
	h := &runHarness{t: t, clock: newFakeClock(), leases: newFakeLeases(), result: make(chan error, 1)}
	h.client = &brokenClient{LeaseClient: h.leases}
	h.leases.onWrite = func(l *coordinationv1.Lease) {
		if deref(l.Spec.HolderIdentity) != "" {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.released = true
		if !h.leadReturned {
			h.releasedEarly = true
		}
	}
	return h
}

func (h *runHarness) cfg(id string) RunConfig {
	return RunConfig{
		Client: h.client, Namespace: "kube-system", LeaseName: "lock", Identity: id,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod, Clock: h.clock,
	}
}

// run starts RunLeading with lead, wrapped to record when it returns.
func (h *runHarness) run(lead func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.t.Cleanup(cancel)
	go func() {
		h.result <- RunLeading(ctx, h.cfg("me"), func(ctx context.Context) error {
			err := lead(ctx)
			h.mu.Lock()
			h.leadReturned = true
			h.mu.Unlock()
			return err
		})
	}()
}

func (h *runHarness) wait() error {
	h.t.Helper()
	select {
	case err := <-h.result:
		return err
	case <-time.After(10 * time.Second):
		h.t.Fatal("RunLeading did not return")
		return nil
	}
}

// waitTimer waits until the elector waits on the clock.
func (h *runHarness) waitTimer() {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for h.clock.Waiters() == 0 {
		if time.Now().After(deadline) {
			h.t.Fatal("the elector never waited on the clock")
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func (h *runHarness) holder() string {
	l, err := h.leases.Get(context.Background(), "lock", metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return deref(l.Spec.HolderIdentity)
}

// leadUntilDone leads until its context ends; started is closed when it begins.
func leadUntilDone(started chan struct{}, ret error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		// Still working after the cancel: the Lease must stay ours.
		time.Sleep(10 * time.Millisecond)
		return ret
	}
}

func TestRunLeadingReleasesAfterLeadReturns(t *testing.T) {
	h := newRunHarness(t)
	started := make(chan struct{})
	h.run(leadUntilDone(started, nil))
	<-started
	if got := h.holder(); got != "me" {
		t.Fatalf("holder while leading = %q, want me", got)
	}
	h.cancel()
	if err := h.wait(); err != nil {
		t.Fatalf("RunLeading after cancel = %v, want nil", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.released || h.releasedEarly {
		t.Errorf("released=%v releasedBeforeLeadReturned=%v, want released after lead returned", h.released, h.releasedEarly)
	}
}

func TestRunLeadingStopsBeforeLeading(t *testing.T) {
	h := newRunHarness(t)
	// Someone else holds a fresh Lease.
	other := RunConfig{Client: h.leases, LeaseName: "lock", Identity: "other", LeaseDuration: leaseDuration}
	d := int32(other.LeaseDuration / time.Second)
	now := metav1.NewMicroTime(h.clock.Now())
	if _, err := h.leases.Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "lock"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &other.Identity, LeaseDurationSeconds: &d, RenewTime: &now, AcquireTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	called := make(chan struct{}, 1)
	h.run(func(context.Context) error { called <- struct{}{}; return nil })
	h.waitTimer()
	h.cancel()
	if err := h.wait(); err != nil {
		t.Fatalf("RunLeading cancelled before leading = %v, want nil", err)
	}
	select {
	case <-called:
		t.Fatal("lead ran without the Lease")
	default:
	}
	if got := h.holder(); got != "other" {
		t.Errorf("holder = %q, want other (untouched)", got)
	}
}

func TestRunLeadingReturnsLeadError(t *testing.T) {
	h := newRunHarness(t)
	boom := errors.New("controller failed")
	h.run(func(context.Context) error { return boom })
	if err := h.wait(); !errors.Is(err, boom) {
		t.Fatalf("RunLeading = %v, want %v", err, boom)
	}
	if got := h.holder(); got != "" {
		t.Errorf("holder after lead failed = %q, want released", got)
	}
}

func TestRunLeadingLeadReturningIsLoss(t *testing.T) {
	h := newRunHarness(t)
	h.run(func(context.Context) error { return nil })
	if err := h.wait(); !errors.Is(err, ErrLeaderElectionLost) {
		t.Fatalf("RunLeading = %v, want ErrLeaderElectionLost", err)
	}
}

func TestRunLeadingLosesLease(t *testing.T) {
	h := newRunHarness(t)
	started := make(chan struct{})
	h.run(leadUntilDone(started, context.Canceled))
	<-started
	h.client.setBroken(true)
	var err error
	deadline := time.Now().Add(10 * time.Second)
wait:
	for {
		select {
		case err = <-h.result:
			break wait
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("RunLeading did not stop after the renew deadline")
		}
		if h.clock.Waiters() > 0 {
			h.clock.Step(retryPeriod)
		}
		time.Sleep(50 * time.Microsecond)
	}
	if !errors.Is(err, ErrLeaderElectionLost) || errors.Is(err, context.Canceled) {
		t.Fatalf("RunLeading after failed renewals = %v, want ErrLeaderElectionLost alone", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.leadReturned {
		t.Error("RunLeading returned before lead did")
	}
	if h.released {
		t.Error("a partitioned candidate released the Lease")
	}
}

func TestDefaultIdentityIsUnique(t *testing.T) {
	a, err := DefaultIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := DefaultIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a == "" {
		t.Errorf("identities %q and %q, want two distinct", a, b)
	}
}
