package compaction

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/storage/etcd3"
	"kubecore.io/kubecore/test/integration/framework"
)

const updates = 5000

func isCompacted(err error) bool {
	return errors.Is(err, rpctypes.ErrCompacted) || rpctypes.ErrorDesc(err) == rpctypes.ErrCompacted.Error()
}

// TestCompactionRemovesHistory: 5,000 updates of one ConfigMap, then the
// API server's own compactor (1 s interval) compacts past them: etcd has no
// revision of the object below the compacted one, a watch from before
// answers 410 Gone, and an informer whose watch was held back meanwhile is
// told its resourceVersion expired, lists again and converges.
func TestCompactionRemovesHistory(t *testing.T) {
	ctx := context.Background()
	e := startEtcd(t)
	s := framework.StartAPIServer(t, framework.APIServerOptions{EtcdServers: e.URLs(), CompactionInterval: time.Second})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "compaction")
	client := cs.CoreV1().ConfigMaps(ns)
	cm, err := client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hot"}, Data: map[string]string{"n": "0"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	firstRV := cm.ResourceVersion

	lw, err := cs.ListWatch(corev1.SchemeGroupVersion.WithResource("configmaps"), ns)
	if err != nil {
		t.Fatal(err)
	}
	gate := framework.NewGatedListWatch(lw)
	var errMu sync.Mutex
	var reflectorErrs []error
	inf := cache.NewInformer[*corev1.ConfigMap](gate, cache.InformerOptions{
		Resource: corev1.Resource("configmaps"),
		Reflector: cache.ReflectorOptions{InitialBackoff: 20 * time.Millisecond, OnError: func(err error) {
			errMu.Lock()
			reflectorErrs = append(reflectorErrs, err)
			errMu.Unlock()
		}},
	})
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { inf.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if !cache.WaitForCacheSync(ctx, inf.HasSynced) {
		t.Fatal("informer never synced")
	}
	gate.Pause()

	start := time.Now()
	for i := 1; i <= updates; i++ {
		cm.Data = map[string]string{"n": strconv.Itoa(i)}
		if cm, err = client.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	lastRV, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	t.Logf("%d updates in %v, resourceVersion %s -> %d", updates, time.Since(start).Round(time.Millisecond), firstRV, lastRV)

	// The compactor compacts to what it saw one interval earlier: two
	// intervals after the last update it has compacted past it.
	var compacted int64
	framework.WaitUntil(t, time.Minute, "a compaction past the last update", func() bool {
		compacted = int64(metric(t, s, "apiserver_storage_compacted_revision", nil))
		return compacted >= lastRV
	})
	t.Logf("compacted to revision %d; %v compactions", compacted, compactions(t, s, etcd3.CompactionCompacted))

	key := "/registry/configmaps/" + ns + "/hot"
	for _, rev := range []int64{mustParse(t, firstRV), lastRV - 1, compacted - 1} {
		if _, err := e.Client().Get(ctx, key, clientv3.WithRev(rev)); !isCompacted(err) {
			t.Errorf("etcd read at revision %d below the compacted %d: %v, want compacted", rev, compacted, err)
		}
	}
	// Only history went: the object is there as last written.
	got, err := e.Client().Get(ctx, key)
	if err != nil || len(got.Kvs) != 1 || got.Kvs[0].ModRevision != lastRV {
		t.Fatalf("etcd read after compaction to %d: %v %v, want the last update", compacted, got, err)
	}

	w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: firstRV})
	if err != nil {
		t.Fatalf("watch from %s: %v", firstRV, err)
	}
	select {
	case ev, ok := <-w.ResultChan():
		status, isStatus := ev.Object.(*metav1.Status)
		if !ok || ev.Type != watch.Error || !isStatus || status.Code != 410 {
			t.Errorf("watch from %s: first event %v %#v, want an ERROR 410 Gone", firstRV, ev.Type, ev.Object)
		}
	case <-time.After(30 * time.Second):
		t.Error("watch from a compacted resourceVersion: no event in 30s")
	}
	w.Stop()
	_, err = client.List(ctx, metav1.ListOptions{ResourceVersion: firstRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("list at compacted resourceVersion %s: %v, want 410", firstRV, err)
	}

	gate.Resume()
	framework.WaitUntil(t, time.Minute, "the informer to converge on the last update", func() bool {
		obj, ok := inf.GetIndexer().GetByKey(cache.ObjectKey(ns, "hot"))
		return ok && obj.ResourceVersion == cm.ResourceVersion && obj.Data["n"] == strconv.Itoa(updates)
	})
	if inf.Lists() != 2 {
		t.Errorf("informer listed %d times, want 2 (one relist after 410)", inf.Lists())
	}
	errMu.Lock()
	defer errMu.Unlock()
	expired := false
	for _, err := range reflectorErrs {
		expired = expired || apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
	}
	if !expired {
		t.Errorf("the reflector was never told its resourceVersion expired; errors: %v", reflectorErrs)
	}
}

func mustParse(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTwoAPIServersCompactOncePerInterval: two API servers on one etcd,
// each with a compactor of the same interval, compact once per interval
// between them: the version of the shared key (one per claimed interval)
// equals the compactions counted in the two servers' metrics, and there
// are no more of them than intervals elapsed.
func TestTwoAPIServersCompactOncePerInterval(t *testing.T) {
	ctx := context.Background()
	const interval = 500 * time.Millisecond
	e := startEtcd(t)
	start := time.Now()
	servers := []*framework.APIServer{
		framework.StartAPIServer(t, framework.APIServerOptions{EtcdServers: e.URLs(), CompactionInterval: interval}),
		framework.StartAPIServer(t, framework.APIServerOptions{EtcdServers: e.URLs(), CompactionInterval: interval}),
	}
	count := func(result string) (total float64, each []float64) {
		for _, s := range servers {
			n := compactions(t, s, result)
			if n < 0 {
				t.Fatalf("%s: no apiserver_storage_compactions_total{result=%q} on /metrics", s.URL, result)
			}
			each = append(each, n)
			total += n
		}
		return total, each
	}
	// Writes between the ticks, so that each compaction has history to remove.
	ns := servers[0].CreateNamespace(t, "twoservers")
	for i := 0; ; i++ {
		if _, err := servers[i%2].Clientset(t).CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if n, _ := count(etcd3.CompactionCompacted); n >= 6 {
			break
		}
		time.Sleep(50 * time.Millisecond)
		if time.Since(start) > 2*time.Minute {
			t.Fatal("fewer than 6 compactions in 2 minutes")
		}
	}
	// The key's version sits between two readings of the counters. A tick
	// may be between its claim and its count at a reading: read again.
	var before, after, version float64
	var each []float64
	var value string
	for try := 0; ; try++ {
		before, _ = count(etcd3.CompactionCompacted)
		resp, err := e.Client().Get(ctx, etcd3.CompactRevisionKey)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("get %s: %v %v", etcd3.CompactRevisionKey, resp, err)
		}
		after, each = count(etcd3.CompactionCompacted)
		version, value = float64(resp.Kvs[0].Version), string(resp.Kvs[0].Value)
		if before <= version && version <= after {
			break
		}
		if try == 10 {
			t.Fatalf("%s version %v, compactions counted by both servers %v..%v: want one compaction per claimed interval", etcd3.CompactRevisionKey, version, before, after)
		}
		time.Sleep(interval / 5)
	}
	elapsed := time.Since(start)
	skipped, skippedEach := count(etcd3.CompactionSkipped)
	failed, _ := count(etcd3.CompactionFailed)
	t.Logf("in %v: %s at version %v (value %s); compacted %v, skipped %v, failed %v", elapsed.Round(time.Millisecond), etcd3.CompactRevisionKey, version, value, each, skippedEach, failed)
	if limit := float64(elapsed/interval) + 2; after > limit {
		t.Errorf("%v compactions in %v with an interval of %v: more than one per interval", after, elapsed, interval)
	}
	if failed != 0 {
		t.Errorf("%v failed compactions", failed)
	}
	// Both tick; one of them mostly loses the claim to the other.
	for i := range servers {
		if each[i]+skippedEach[i] == 0 {
			t.Errorf("server %d never ticked", i)
		}
	}
	if skipped == 0 {
		t.Error("no server ever skipped a tick: both compacted every interval")
	}
}
