package etcd3

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"
)

// DefaultCompactionInterval is how often the apiserver compacts etcd, as
// Kubernetes does (--etcd-compaction-interval).
const DefaultCompactionInterval = 5 * time.Minute

// CompactRevisionKey is the etcd key through which the compactors of every
// apiserver of a cluster agree on who compacts in an interval: its value is
// the revision last compacted to, its version the number of compactions
// claimed. Kubernetes uses the same key, so that kubecore and Kubernetes
// apiservers sharing an etcd would not compact twice.
const CompactRevisionKey = "compact_rev_key"

// Results of a compactor tick, the result label of
// apiserver_storage_compactions_total.
const (
	// CompactionCompacted: this apiserver claimed the interval and
	// compacted (or found the revision already compacted).
	CompactionCompacted = "compacted"
	// CompactionSkipped: another apiserver claimed the interval first, or
	// there was nothing to compact yet.
	CompactionSkipped = "skipped"
	// CompactionFailed: etcd did not answer or refused the compaction.
	CompactionFailed = "failed"
)

// Compactor compacts etcd's history at every interval to the revision it
// saw one interval earlier, so that history stays available for at least
// one interval (continue tokens and watches younger than that never see
// 410 Gone) and no older. Several apiservers may each run one against a
// cluster: a compare-and-swap on the version of CompactRevisionKey lets
// only one of them compact per interval.
type Compactor struct {
	client   *clientv3.Client
	interval time.Duration

	// version is the version of CompactRevisionKey this compactor last
	// saw; its compare-and-swap succeeds only when nobody wrote since.
	version int64
	// rev is the revision seen at the previous tick, the target of the
	// next compaction.
	rev int64

	compactions *prometheus.CounterVec
	compacted   prometheus.Gauge
}

// NewCompactor returns a compactor of client's cluster; interval 0 (or
// less) means DefaultCompactionInterval.
func NewCompactor(client *clientv3.Client, interval time.Duration) *Compactor {
	if interval <= 0 {
		interval = DefaultCompactionInterval
	}
	c := &Compactor{
		client:   client,
		interval: interval,
		compactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_compactions_total",
			Help: "Compactor ticks of this apiserver by result: compacted (it compacted etcd for the interval), skipped (another apiserver did, or nothing to compact yet), failed.",
		}, []string{"result"}),
		compacted: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "apiserver_storage_compacted_revision",
			Help: "The etcd revision this apiserver last compacted to (0: none yet).",
		}),
	}
	for _, r := range []string{CompactionCompacted, CompactionSkipped, CompactionFailed} {
		c.compactions.WithLabelValues(r)
	}
	return c
}

// Collectors are the compactor's metrics, for the apiserver's /metrics.
func (c *Compactor) Collectors() []prometheus.Collector {
	return []prometheus.Collector{c.compactions, c.compacted}
}

// Run compacts at every interval until ctx ends, then returns nil. A
// failed tick is logged, counted and retried at the next one: an etcd that
// does not answer is the etcd health check's business, not a reason to
// stop the server.
func (c *Compactor) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("interval", c.interval)
	// The history from now on is kept for at least one interval: the
	// first claimed tick compacts up to here. Knowing the claim key's
	// version already, that first tick can claim: a server restarted more
	// often than every second interval still compacts.
	if err := c.start(ctx); err != nil {
		logger.Error(err, "Reading etcd's revision for the first compaction")
	}
	ticker := time.NewTicker(c.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		target := c.rev
		result, err := c.tick(ctx)
		c.compactions.WithLabelValues(result).Inc()
		switch {
		case err != nil:
			logger.Error(err, "Compacting etcd", "revision", target)
		case result == CompactionCompacted:
			logger.V(2).Info("Compacted etcd", "revision", target)
		default:
			logger.V(4).Info("Skipped compacting etcd", "version", c.version)
		}
	}
}

// start reads the current revision, the target of the first compaction,
// and the version of CompactRevisionKey, which the first tick's claim
// compares against.
func (c *Compactor) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(c.interval, DefaultRequestTimeout))
	defer cancel()
	resp, err := c.client.Get(ctx, CompactRevisionKey)
	if err != nil {
		return err
	}
	c.rev, c.version = resp.Header.Revision, 0
	if len(resp.Kvs) > 0 {
		c.version = resp.Kvs[0].Version
	}
	return nil
}

// tick claims the interval with a compare-and-swap on the version of
// CompactRevisionKey and, when it wins, compacts to the revision seen at
// the previous tick. Either way the current revision becomes the next
// target: history written since is kept for one more interval.
func (c *Compactor) tick(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(c.interval, DefaultRequestTimeout))
	defer cancel()
	target := c.rev
	resp, err := c.client.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(CompactRevisionKey), "=", c.version)).
		Then(clientv3.OpPut(CompactRevisionKey, strconv.FormatInt(target, 10))).
		Else(clientv3.OpGet(CompactRevisionKey)).
		Commit()
	if err != nil {
		return CompactionFailed, fmt.Errorf("claim the compaction: %w", err)
	}
	c.rev = resp.Header.Revision
	if !resp.Succeeded {
		// Another apiserver compacted since this one last looked: learn
		// the key's version, to claim the next interval.
		c.version = 0
		if kvs := resp.Responses[0].GetResponseRange().GetKvs(); len(kvs) > 0 {
			c.version = kvs[0].Version
		}
		return CompactionSkipped, nil
	}
	c.version++
	if target <= 0 {
		return CompactionSkipped, nil
	}
	if _, err := c.client.Compact(ctx, target); err != nil && !isCompacted(err) {
		return CompactionFailed, fmt.Errorf("compact to revision %d: %w", target, err)
	}
	c.compacted.Set(float64(target))
	return CompactionCompacted, nil
}
