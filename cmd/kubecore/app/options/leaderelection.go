package options

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/leaderelection"
)

// LeaderElection are the --leader-elect flags of the scheduler and the
// controller-manager: whether a replica runs only while it holds the Lease
// LeaseNamespace/LeaseName, and the election's timing.
type LeaderElection struct {
	LeaderElect                               bool
	LeaseNamespace, LeaseName                 string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Identity of this replica; hostname_random when empty (set by Complete).
	Identity string
}

// NewLeaderElection returns Kubernetes' election timing on the Lease
// kube-system/name, enabled or not.
func NewLeaderElection(enabled bool, name string) LeaderElection {
	return LeaderElection{
		LeaderElect:    enabled,
		LeaseNamespace: metav1.NamespaceSystem,
		LeaseName:      name,
		LeaseDuration:  15 * time.Second,
		RenewDeadline:  10 * time.Second,
		RetryPeriod:    2 * time.Second,
	}
}

// AddFlags adds --leader-elect (described by what) and the timing flags to
// fs; with resourceFlags, also --leader-elect-resource-namespace and
// --leader-elect-resource-name.
func (o *LeaderElection) AddFlags(fs *pflag.FlagSet, what string, resourceFlags bool) {
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, what)
	if resourceFlags {
		fs.StringVar(&o.LeaseNamespace, "leader-elect-resource-namespace", o.LeaseNamespace, "Namespace of the leader election Lease")
		fs.StringVar(&o.LeaseName, "leader-elect-resource-name", o.LeaseName, "Name of the leader election Lease")
	}
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration, "How long non-leaders wait before taking over an unrenewed Lease")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline, "How long the leader tries to renew before it stops leading")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod, "Pause between attempts to acquire or renew the Lease")
}

// Validate returns every problem with the election flags; none when it is off.
func (o *LeaderElection) Validate() []error {
	if !o.LeaderElect {
		return nil
	}
	var errs []error
	if o.LeaseName == "" || o.LeaseNamespace == "" {
		errs = append(errs, fmt.Errorf("--leader-elect-resource-name and --leader-elect-resource-namespace must not be empty"))
	}
	if o.LeaseDuration <= 0 || o.RenewDeadline <= 0 || o.RetryPeriod <= 0 {
		return append(errs, fmt.Errorf("--leader-elect-lease-duration, --leader-elect-renew-deadline and --leader-elect-retry-period must be positive"))
	}
	if o.RenewDeadline >= o.LeaseDuration {
		errs = append(errs, fmt.Errorf("--leader-elect-lease-duration %s must be greater than --leader-elect-renew-deadline %s", o.LeaseDuration, o.RenewDeadline))
	}
	if o.RetryPeriod >= o.RenewDeadline {
		errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline %s must be greater than --leader-elect-retry-period %s", o.RenewDeadline, o.RetryPeriod))
	}
	return errs
}

// Complete fills in the identity when it is empty.
func (o *LeaderElection) Complete() error {
	if !o.LeaderElect || o.Identity != "" {
		return nil
	}
	id, err := leaderelection.DefaultIdentity()
	if err != nil {
		return err
	}
	o.Identity = id
	return nil
}

// Run runs lead under leader election when it is on (see
// leaderelection.RunLeading), and at once otherwise. The Lease is renewed
// through a client of its own made from config (leaderelection.NewLeaseClient),
// never through the component's client, whose rate limiter and connections
// its work may exhaust.
func (o *LeaderElection) Run(ctx context.Context, config *rest.Config, lead func(ctx context.Context) error) error {
	if !o.LeaderElect {
		return lead(ctx)
	}
	client, err := leaderelection.NewLeaseClient(config, o.LeaseNamespace)
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	return leaderelection.RunLeading(ctx, leaderelection.RunConfig{
		Client:        client,
		Namespace:     o.LeaseNamespace,
		LeaseName:     o.LeaseName,
		Identity:      o.Identity,
		LeaseDuration: o.LeaseDuration,
		RenewDeadline: o.RenewDeadline,
		RetryPeriod:   o.RetryPeriod,
	}, lead)
}
