package etcd3

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"
)

// DefaultCompactionInterval is how often the apiserver compacts etcd, as
// Kubernetes does.
const DefaultCompactionInterval = 5 * time.Minute

// StartCompactor compacts etcd's history in the background until ctx ends:
// at every tick it compacts to the revision it saw one tick earlier, so that
// history stays available for at least one interval (continue tokens and
// watches younger than that never see 410). Several apiservers may run it
// against one cluster: compacting to a revision already compacted is a
// no-op.
func StartCompactor(ctx context.Context, client *clientv3.Client, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultCompactionInterval
	}
	go runCompactor(ctx, client, interval)
}

func runCompactor(ctx context.Context, client *clientv3.Client, interval time.Duration) {
	logger := klog.FromContext(ctx)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var seen int64 // the revision seen at the previous tick
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		next, err := compactOnce(ctx, client, seen, interval)
		if err != nil {
			logger.Error(err, "Compacting etcd failed", "revision", seen)
			continue
		}
		seen = next
	}
}

// compactOnce compacts to rev (when positive) and returns the current
// revision, the target of the next tick.
func compactOnce(ctx context.Context, client *clientv3.Client, rev int64, timeout time.Duration) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, DefaultRequestTimeout))
	defer cancel()
	resp, err := client.Get(ctx, "compact_rev_key", clientv3.WithCountOnly())
	if err != nil {
		return rev, err
	}
	if rev > 0 {
		if _, err := client.Compact(ctx, rev); err != nil && !isCompacted(err) {
			return rev, err
		}
		klog.FromContext(ctx).V(4).Info("Compacted etcd", "revision", rev)
	}
	return resp.Header.Revision, nil
}
