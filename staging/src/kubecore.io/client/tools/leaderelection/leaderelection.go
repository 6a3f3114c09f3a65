// Package leaderelection elects one leader among several replicas of a component
// through a coordination.k8s.io/v1 Lease, with callbacks as leadership starts and stops.
package leaderelection

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"k8s.io/klog/v2"
)

// LeaseClient reads and writes the Leases of one namespace. The typed client
// (typed.Clientset.CoordinationV1().Leases(ns)) satisfies it.
type LeaseClient interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error)
	Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error)
	Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error)
}

// Clock is the elector's time source; tests inject a fake one.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a pending wake-up of a Clock.
type Timer interface {
	// C delivers the time once the timer fires.
	C() <-chan time.Time
	// Stop cancels the timer; it reports false if it already fired.
	Stop() bool
}

// RealClock is the wall clock.
type RealClock struct{}

var _ Clock = RealClock{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (RealClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

// Callbacks are called as leadership changes.
type Callbacks struct {
	// OnStartedLeading runs in its own goroutine once this candidate leads;
	// ctx is cancelled when it stops leading. Required.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading is called when Run returns, whether or not this
	// candidate ever led. Required.
	OnStoppedLeading func()
	// OnNewLeader is called with the identity of each new holder this
	// candidate observes, itself included; it runs in the elector's goroutine
	// and must return quickly. Optional.
	OnNewLeader func(identity string)
}

// Config configures an Elector.
type Config struct {
	// Client reads and writes the Lease; its namespace is the Lease's.
	Client LeaseClient
	// LeaseName names the Lease.
	LeaseName string
	// Identity names this candidate; it must be unique among candidates.
	Identity string
	// LeaseDuration is how long non-leaders wait after they last saw the
	// Lease change before they may take it over.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before it
	// stops leading; it must be shorter than LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the pause between attempts to acquire or renew.
	RetryPeriod time.Duration
	// ReleaseOnCancel clears the holder when Run's ctx is cancelled, so that
	// another candidate takes over at once. The callbacks must have finished
	// their work when ctx is cancelled.
	ReleaseOnCancel bool
	// Callbacks are called as leadership changes.
	Callbacks Callbacks
	// Clock is the time source; nil means the wall clock.
	Clock Clock
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs field.ErrorList
	if c.Client == nil {
		errs = append(errs, field.Required(field.NewPath("client"), "a lease client is required"))
	}
	if c.LeaseName == "" {
		errs = append(errs, field.Required(field.NewPath("leaseName"), ""))
	}
	if c.Identity == "" {
		errs = append(errs, field.Required(field.NewPath("identity"), ""))
	}
	if c.LeaseDuration <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("leaseDuration"), c.LeaseDuration.String(), "must be greater than zero"))
	}
	if c.RenewDeadline <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("renewDeadline"), c.RenewDeadline.String(), "must be greater than zero"))
	}
	if c.RetryPeriod <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("retryPeriod"), c.RetryPeriod.String(), "must be greater than zero"))
	}
	if c.LeaseDuration > 0 && c.RenewDeadline >= c.LeaseDuration {
		errs = append(errs, field.Invalid(field.NewPath("renewDeadline"), c.RenewDeadline.String(), "must be less than leaseDuration"))
	}
	if c.RetryPeriod > 0 && c.RenewDeadline > 0 && c.RetryPeriod >= c.RenewDeadline {
		errs = append(errs, field.Invalid(field.NewPath("retryPeriod"), c.RetryPeriod.String(), "must be less than renewDeadline"))
	}
	if c.Callbacks.OnStartedLeading == nil {
		errs = append(errs, field.Required(field.NewPath("callbacks", "onStartedLeading"), ""))
	}
	if c.Callbacks.OnStoppedLeading == nil {
		errs = append(errs, field.Required(field.NewPath("callbacks", "onStoppedLeading"), ""))
	}
	return errs.ToAggregate()
}

// Elector campaigns for one Lease on behalf of one candidate.
type Elector struct {
	cfg   Config
	clock Clock

	mu sync.Mutex
	// observed is the spec last read or written, observedTime when this
	// candidate saw it change (its own clock, never the remote timestamps).
	observed     coordinationv1.LeaseSpec
	observedTime time.Time
	// lease is the Lease last read or written, with its resourceVersion.
	lease *coordinationv1.Lease
}

// New validates cfg and returns an Elector.
func New(cfg Config) (*Elector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("leader election config: %w", err)
	}
	e := &Elector{cfg: cfg, clock: cfg.Clock}
	if e.clock == nil {
		e.clock = RealClock{}
	}
	return e, nil
}

// IsLeader reports whether this candidate holds the Lease by its last observation.
func (e *Elector) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return deref(e.observed.HolderIdentity) == e.cfg.Identity
}

// Leader returns the holder of the Lease by the last observation, "" if none.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return deref(e.observed.HolderIdentity)
}

// Run campaigns until this candidate leads, leads until it fails to renew
// within RenewDeadline or ctx is cancelled, then returns. OnStoppedLeading is
// called before Run returns; the ctx given to OnStartedLeading is cancelled
// before that, and before another candidate can take the Lease over.
func (e *Elector) Run(ctx context.Context) {
	defer e.cfg.Callbacks.OnStoppedLeading()
	logger := klog.FromContext(ctx).WithValues("lease", e.cfg.LeaseName, "identity", e.cfg.Identity)
	acquiredAt, ok := e.acquire(ctx)
	if !ok {
		return
	}
	logger.V(2).Info("Acquired lease")
	leadCtx, cancel := context.WithCancel(ctx)
	go e.cfg.Callbacks.OnStartedLeading(leadCtx)
	e.renew(ctx, acquiredAt)
	cancel()
	if ctx.Err() == nil {
		logger.Info("Failed to renew lease within the renew deadline, stopping leading", "renewDeadline", e.cfg.RenewDeadline)
		return
	}
	if e.cfg.ReleaseOnCancel {
		if err := e.release(ctx); err != nil {
			logger.Error(err, "Failed to release lease")
		} else {
			logger.V(2).Info("Released lease")
		}
	}
}

// sleep waits d on the elector's clock; it reports false if ctx ended first.
func (e *Elector) sleep(ctx context.Context, d time.Duration) bool {
	t := e.clock.NewTimer(d)
	select {
	case <-ctx.Done():
		t.Stop()
		return false
	case <-t.C():
		return true
	}
}

// acquire tries every RetryPeriod until it holds the Lease; it returns the
// clock reading taken before the successful attempt.
func (e *Elector) acquire(ctx context.Context) (time.Time, bool) {
	for {
		start := e.clock.Now()
		if e.tryAcquireOrRenew(ctx, e.cfg.RenewDeadline) {
			return start, true
		}
		if !e.sleep(ctx, e.cfg.RetryPeriod) {
			return time.Time{}, false
		}
	}
}

// renew renews every RetryPeriod; it returns when ctx ends or when
// RenewDeadline has passed since the start of the last successful attempt.
func (e *Elector) renew(ctx context.Context, lastRenew time.Time) {
	for {
		left := lastRenew.Add(e.cfg.RenewDeadline).Sub(e.clock.Now())
		if left <= 0 {
			return
		}
		if !e.sleep(ctx, min(e.cfg.RetryPeriod, left)) {
			return
		}
		start := e.clock.Now()
		left = lastRenew.Add(e.cfg.RenewDeadline).Sub(start)
		if left <= 0 {
			return
		}
		if e.tryAcquireOrRenew(ctx, left) {
			lastRenew = start
		}
	}
}

// tryAcquireOrRenew makes one attempt, bounded by timeout, to take the Lease
// if it is free or expired, or to renew it if this candidate holds it.
func (e *Elector) tryAcquireOrRenew(ctx context.Context, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	logger := klog.FromContext(ctx)
	now := e.clock.Now()
	durationSeconds := int32((e.cfg.LeaseDuration + time.Second - 1) / time.Second)
	want := coordinationv1.LeaseSpec{
		HolderIdentity:       &e.cfg.Identity,
		LeaseDurationSeconds: &durationSeconds,
		AcquireTime:          ptr(metav1.NewMicroTime(now)),
		RenewTime:            ptr(metav1.NewMicroTime(now)),
		LeaseTransitions:     ptr(int32(0)),
	}

	// The leader renews the Lease it last wrote without reading it first:
	// one request instead of two, as long as nobody else wrote it since.
	if renewed, ok := e.renewHeld(ctx, want, now); ok {
		return renewed
	}
	current, err := e.cfg.Client.Get(ctx, e.cfg.LeaseName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: e.cfg.LeaseName}, Spec: want}
		created, err := e.cfg.Client.Create(ctx, lease, metav1.CreateOptions{})
		if err != nil {
			logger.V(4).Info("Failed to create lease", "lease", e.cfg.LeaseName, "err", err)
			return false
		}
		e.observe(created, now)
		return true
	}
	if err != nil {
		logger.V(4).Info("Failed to get lease", "lease", e.cfg.LeaseName, "err", err)
		return false
	}
	e.observe(current, now)

	e.mu.Lock()
	holder := deref(e.observed.HolderIdentity)
	expiry := e.observedTime.Add(time.Duration(deref(e.observed.LeaseDurationSeconds)) * time.Second)
	e.mu.Unlock()
	if holder != "" && holder != e.cfg.Identity && expiry.After(now) {
		return false
	}
	if holder == e.cfg.Identity {
		want.AcquireTime = current.Spec.AcquireTime
		want.LeaseTransitions = ptr(deref(current.Spec.LeaseTransitions))
	} else {
		want.LeaseTransitions = ptr(deref(current.Spec.LeaseTransitions) + 1)
	}
	next := current.DeepCopy()
	next.Spec = want
	updated, err := e.cfg.Client.Update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		logger.V(4).Info("Failed to update lease", "lease", e.cfg.LeaseName, "err", err)
		return false
	}
	e.observe(updated, now)
	return true
}

// renewHeld renews the Lease as this candidate last saw it, when it holds
// it and its last observation has not expired; ok is false when it did
// not try, or when the Lease changed since (a conflict): the caller then
// reads it. A failure of any other kind fails the attempt.
func (e *Elector) renewHeld(ctx context.Context, want coordinationv1.LeaseSpec, now time.Time) (renewed, ok bool) {
	e.mu.Lock()
	held := e.lease != nil && deref(e.observed.HolderIdentity) == e.cfg.Identity &&
		e.observedTime.Add(time.Duration(deref(e.observed.LeaseDurationSeconds))*time.Second).After(now)
	var next *coordinationv1.Lease
	if held {
		next = e.lease.DeepCopy()
	}
	e.mu.Unlock()
	if !held {
		return false, false
	}
	want.AcquireTime = next.Spec.AcquireTime
	want.LeaseTransitions = ptr(deref(next.Spec.LeaseTransitions))
	next.Spec = want
	updated, err := e.cfg.Client.Update(ctx, next, metav1.UpdateOptions{})
	switch {
	case apierrors.IsConflict(err):
		return false, false
	case err != nil:
		klog.FromContext(ctx).V(4).Info("Failed to renew lease", "lease", e.cfg.LeaseName, "err", err)
		return false, true
	}
	e.observe(updated, now)
	return true, true
}

// observe records lease; when its spec differs from the last one seen, the
// change is timed by this candidate's clock and OnNewLeader is told of a new holder.
func (e *Elector) observe(lease *coordinationv1.Lease, now time.Time) {
	e.mu.Lock()
	changed := !specEqual(&e.observed, &lease.Spec) || e.observedTime.IsZero()
	oldHolder := deref(e.observed.HolderIdentity)
	e.lease = lease
	if changed {
		e.observed = *lease.Spec.DeepCopy()
		e.observedTime = now
	}
	newHolder := deref(e.observed.HolderIdentity)
	e.mu.Unlock()
	if newHolder != oldHolder && newHolder != "" && e.cfg.Callbacks.OnNewLeader != nil {
		e.cfg.Callbacks.OnNewLeader(newHolder)
	}
}

// release clears the holder of a Lease this candidate still holds, using a
// context that outlives the cancelled ctx for at most RenewDeadline. A
// renewal cut short by the cancel may have been applied without this
// candidate seeing the answer; the release then conflicts, and is tried
// again on the Lease as it now is, as long as it still names this candidate.
func (e *Elector) release(ctx context.Context) error {
	e.mu.Lock()
	lease := e.lease
	held := deref(e.observed.HolderIdentity) == e.cfg.Identity
	e.mu.Unlock()
	if lease == nil || !held {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
	defer cancel()
	const attempts = 5
	for i := 1; ; i++ {
		now := e.clock.Now()
		next := lease.DeepCopy()
		next.Spec.HolderIdentity = ptr("")
		next.Spec.LeaseDurationSeconds = ptr(int32(1))
		next.Spec.AcquireTime = ptr(metav1.NewMicroTime(now))
		next.Spec.RenewTime = ptr(metav1.NewMicroTime(now))
		updated, err := e.cfg.Client.Update(ctx, next, metav1.UpdateOptions{})
		if err == nil {
			e.observe(updated, now)
			return nil
		}
		if !apierrors.IsConflict(err) || i == attempts {
			return fmt.Errorf("release lease %s: %w", e.cfg.LeaseName, err)
		}
		current, err := e.cfg.Client.Get(ctx, e.cfg.LeaseName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("release lease %s: read it after a conflict: %w", e.cfg.LeaseName, err)
		}
		e.observe(current, now)
		if deref(current.Spec.HolderIdentity) != e.cfg.Identity {
			return nil // no longer ours to release
		}
		lease = current
	}
}

func specEqual(a, b *coordinationv1.LeaseSpec) bool {
	return deref(a.HolderIdentity) == deref(b.HolderIdentity) &&
		deref(a.LeaseDurationSeconds) == deref(b.LeaseDurationSeconds) &&
		deref(a.LeaseTransitions) == deref(b.LeaseTransitions) &&
		microEqual(a.AcquireTime, b.AcquireTime) &&
		microEqual(a.RenewTime, b.RenewTime)
}

func microEqual(a, b *metav1.MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Time.Equal(b.Time)
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
