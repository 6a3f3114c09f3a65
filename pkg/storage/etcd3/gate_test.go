package etcd3

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/apirequest"
)

// acquired reports whether ch delivered within wait: a short wait to see
// that a write still blocks (a slow machine can only hide a failure), a
// long one to see that it passes.
func acquired(ch <-chan func(), wait time.Duration) (func(), bool) {
	select {
	case release := <-ch:
		return release, true
	case <-time.After(wait):
		return nil, false
	}
}

// waitQueued waits until the gate holds leader, node and normal waiters.
func waitQueued(t *testing.T, g *WriteGate, leader, node, normal int) {
	t.Helper()
	deadline := time.Now().Add(passes)
	for {
		g.mu.Lock()
		l, n, o := g.waiting[apirequest.PriorityLeader].Len(), g.waiting[apirequest.PriorityNode].Len(), g.waiting[apirequest.PriorityNormal].Len()
		g.mu.Unlock()
		if l == leader && n == node && o == normal {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queued: %d leader, %d node, %d normal; want %d, %d, %d", l, n, o, leader, node, normal)
		}
		time.Sleep(time.Millisecond)
	}
}

const (
	blocks = 50 * time.Millisecond
	passes = 10 * time.Second
)

func acquireAsync(t *testing.T, g *WriteGate, ctx context.Context) <-chan func() {
	t.Helper()
	ch := make(chan func(), 1)
	go func() {
		release, err := g.Acquire(ctx)
		if err != nil {
			close(ch)
			return
		}
		ch <- release
	}()
	return ch
}

// TestWriteGateOrder: the gate holds writes beyond its slots, hands a freed
// slot to the oldest write of the highest priority waiting (leader, then
// node, then normal), and a write whose context ends leaves the queue
// without taking a slot.
func TestWriteGateOrder(t *testing.T) {
	g := NewWriteGate(1)
	ctx := context.Background()
	leader := apirequest.WithPriority(ctx, apirequest.PriorityLeader)
	node := apirequest.WithPriority(ctx, apirequest.PriorityNode)
	first, err := g.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	normal := acquireAsync(t, g, ctx)
	if _, ok := acquired(normal, blocks); ok {
		t.Fatal("a second write passed a gate of one slot")
	}
	waitQueued(t, g, 0, 0, 1)
	n := acquireAsync(t, g, node)
	waitQueued(t, g, 0, 1, 1)
	gone, cancel := context.WithCancel(leader)
	cancelled := acquireAsync(t, g, gone)
	l := acquireAsync(t, g, leader)
	if _, ok := acquired(l, blocks); ok {
		t.Fatal("a leader's write passed a full gate")
	}
	waitQueued(t, g, 2, 1, 1)
	cancel()
	if _, ok := <-cancelled; ok {
		t.Fatal("a write whose context ended got a slot")
	}
	waitQueued(t, g, 1, 1, 1)
	first()
	// The slot goes down the priorities: each holder passes it on to the
	// next only when it releases it.
	order := []struct {
		name string
		ch   <-chan func()
	}{{"leader's", l}, {"node's", n}, {"normal", normal}}
	for i, w := range order {
		release, ok := acquired(w.ch, passes)
		if !ok {
			t.Fatalf("the freed slot did not go to the %s write", w.name)
		}
		if i+1 < len(order) {
			if _, ok := acquired(order[i+1].ch, blocks); ok {
				t.Fatalf("the %s write passed while the %s one holds the only slot", order[i+1].name, w.name)
			}
		}
		release()
	}
	// The slot is free again: a write passes at once.
	release, err := g.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release()
}

// TestGatedKV: writes through a gated client wait for a slot, reads and
// read-only transactions do not.
func TestGatedKV(t *testing.T) {
	g := NewWriteGate(1)
	kv := &gatedKV{KV: testClient.KV, gate: g}
	ctx := context.Background()
	hold, err := g.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key := "/gate-test/" + t.Name()
	if _, err := kv.Get(ctx, key); err != nil {
		t.Fatalf("a read waited for the full gate: %v", err)
	}
	if _, err := kv.Txn(ctx).If(clientv3.Compare(clientv3.Version(key), "=", 0)).Then(clientv3.OpGet(key)).Commit(); err != nil {
		t.Fatalf("a read-only txn waited for the full gate: %v", err)
	}
	for name, write := range map[string]func(context.Context) error{
		"put":    func(ctx context.Context) error { _, err := kv.Put(ctx, key, "v"); return err },
		"delete": func(ctx context.Context) error { _, err := kv.Delete(ctx, key); return err },
		"txn put": func(ctx context.Context) error {
			_, err := kv.Txn(ctx).If().Then(clientv3.OpGet(key)).Else(clientv3.OpPut(key, "v")).Commit()
			return err
		},
		"do put": func(ctx context.Context) error { _, err := kv.Do(ctx, clientv3.OpPut(key, "v")); return err },
	} {
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		err := write(short)
		cancel()
		if err == nil {
			t.Errorf("%s passed a full gate", name)
		}
	}
	hold()
	done := make(chan error, 1)
	go func() { _, err := kv.Put(ctx, key, "v"); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a put did not pass a free gate")
	}
	resp, err := testClient.Get(ctx, key)
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("stored %v, %v", resp, err)
	}
	// Counted: the slot held and the put; not the reads nor the writes
	// that gave up.
	if n := testutil.ToFloat64(g.writes.WithLabelValues("normal")); n != 2 {
		t.Errorf("kubecore_etcd_writes_total{priority=normal} = %v, want 2", n)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(g.held)
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 1 || len(mfs[0].GetMetric()) != 1 {
		t.Fatalf("gather the slot histogram: %v, %v", mfs, err)
	}
	if n := mfs[0].GetMetric()[0].GetHistogram().GetSampleCount(); n != 2 {
		t.Errorf("kubecore_etcd_write_duration_seconds counts %d slots held, want 2", n)
	}
}
