package leaderelection

import (
	"fmt"

	"kubecore.io/client/rest"
	"kubecore.io/client/typed"
)

// The client-side limits of the Lease client NewLeaseClient makes. A leader
// sends one renewal (a GET and an UPDATE) every RetryPeriod at most, so these
// never delay one; they only keep a runaway caller from flooding the server.
const (
	LeaseClientQPS   float32 = 5
	LeaseClientBurst int     = 10
)

// NewLeaseClient returns a client for the Leases of namespace that shares
// nothing with the component's own client but the credentials of config: it
// has its own transport (so its own HTTP connections) and its own rate
// limiter, so that renewals are never queued behind the component's
// requests when they exhaust its QPS, its connections or its HTTP/2 streams.
// Its User-Agent ends in "/leader-election".
func NewLeaseClient(config *rest.Config, namespace string) (LeaseClient, error) {
	if config == nil {
		return nil, fmt.Errorf("lease client: nil REST config")
	}
	c := rest.CopyConfig(config)
	c.QPS, c.Burst = LeaseClientQPS, LeaseClientBurst
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultUserAgent()
	}
	c.UserAgent += "/leader-election"
	cs, err := typed.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("lease client: %w", err)
	}
	return cs.CoordinationV1().Leases(namespace), nil
}
