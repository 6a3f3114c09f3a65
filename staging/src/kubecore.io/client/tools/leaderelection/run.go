package leaderelection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// ErrLeaderElectionLost is wrapped by the error RunLeading returns when this
// candidate stops holding the Lease while its context is still live.
var ErrLeaderElectionLost = errors.New("leader election lost")

// RunConfig is what a component needs to run its work under leader election.
type RunConfig struct {
	// Client reads and writes the Leases of Namespace.
	Client LeaseClient
	// Namespace and LeaseName name the Lease.
	Namespace, LeaseName string
	// Identity names this candidate; it must be unique among candidates.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are those of Config.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Clock is the time source; nil means the wall clock.
	Clock Clock
}

// RunLeading campaigns for the Lease and runs lead while this candidate
// holds it: the component runs only while it leads, and a replica that
// stops, stops leading cleanly. It returns
//
//   - nil when ctx ends before this candidate leads;
//   - lead's error when ctx ends while it leads: lead's context is
//     cancelled, RunLeading waits for lead to return, and only then clears
//     the Lease's holder, so that another candidate takes over at once
//     (never while this one still runs);
//   - lead's error when lead returns with one before ctx ends (the Lease is
//     released as above);
//   - an error wrapping ErrLeaderElectionLost when renewing fails for
//     RenewDeadline (lead's context is cancelled and RunLeading waits for
//     lead), or when lead returns nil on its own: a component that lost
//     its Lease exits, so that it starts afresh under the next leader.
func RunLeading(ctx context.Context, cfg RunConfig, lead func(ctx context.Context) error) error {
	lease := cfg.Namespace + "/" + cfg.LeaseName
	logger := klog.FromContext(ctx).WithValues("lease", lease, "identity", cfg.Identity)
	// The election outlives ctx while lead runs, so that the Lease is
	// released only once nothing runs under it.
	electCtx, stopElection := context.WithCancel(context.WithoutCancel(ctx))
	defer stopElection()

	var mu sync.Mutex
	leading := false
	stopWithCtx := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !leading {
			stopElection()
		}
	})
	defer stopWithCtx()

	leadErr := make(chan error, 1)
	elector, err := New(Config{
		Client:          cfg.Client,
		LeaseName:       cfg.LeaseName,
		Identity:        cfg.Identity,
		LeaseDuration:   cfg.LeaseDuration,
		RenewDeadline:   cfg.RenewDeadline,
		RetryPeriod:     cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Clock:           cfg.Clock,
		Callbacks: Callbacks{
			OnStartedLeading: func(leadCtx context.Context) {
				mu.Lock()
				if ctx.Err() != nil {
					// Stopped while acquiring: release without running.
					mu.Unlock()
					stopElection()
					return
				}
				leading = true
				mu.Unlock()
				logger.Info("Started leading")
				runCtx, cancel := context.WithCancel(leadCtx)
				defer cancel()
				stopRun := context.AfterFunc(ctx, cancel)
				defer stopRun()
				leadErr <- lead(runCtx)
				stopElection()
			},
			OnStoppedLeading: func() {},
			OnNewLeader: func(id string) {
				if id != cfg.Identity {
					logger.Info("New leader elected", "leader", id)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election on lease %s: %w", lease, err)
	}
	elector.Run(electCtx)
	// The election stops on its own only when renewing failed.
	lost := electCtx.Err() == nil

	mu.Lock()
	led := leading
	mu.Unlock()
	if !led {
		return nil
	}
	err = <-leadErr
	switch {
	case lost && ctx.Err() == nil:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("%w: lease %s: %w", ErrLeaderElectionLost, lease, err)
		}
		return fmt.Errorf("%w: lease %s", ErrLeaderElectionLost, lease)
	case err != nil || ctx.Err() != nil:
		return err
	default:
		return fmt.Errorf("%w: lease %s", ErrLeaderElectionLost, lease)
	}
}

// DefaultIdentity is hostname_random: unique among the replicas of a component.
func DefaultIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return host + "_" + hex.EncodeToString(b), nil
}
