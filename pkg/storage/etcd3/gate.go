package etcd3

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/apirequest"
)

// DefaultWritesInflight is the API server's bound on its writes in flight
// to etcd: enough to keep etcd's batches full, few enough that an urgent
// write never waits long behind them.
const DefaultWritesInflight = 32

// WriteGate bounds the writes one API server has in flight to etcd, and
// lets the writes of a higher apirequest.Priority (leaders' Leases, then
// nodes' Leases and status) pass the queue of the others.
//
// etcd applies writes one after the other; every write admitted beyond
// what it applies at once only waits inside it, in arrival order. Under a
// flood of workload writes that queue is where a leader's Lease renewal
// used to spend its renew deadline. Holding the surplus here instead, in
// two queues, keeps etcd's own queue short and puts the urgent writes at
// its head: a leader's write waits for at most the writes in flight.
type WriteGate struct {
	mu   sync.Mutex
	free int
	// waiting holds the *gateWaiter of each priority, oldest first.
	waiting [apirequest.PriorityLeader + 1]list.List

	inflight prometheus.Gauge
	queued   *prometheus.GaugeVec
	wait     *prometheus.HistogramVec
	writes   *prometheus.CounterVec
	held     prometheus.Histogram
}

type gateWaiter struct {
	ready   chan struct{}
	granted bool
}

// NewWriteGate returns a gate of slots writes in flight (at least 1).
func NewWriteGate(slots int) *WriteGate {
	return &WriteGate{
		free: max(slots, 1),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kubecore_etcd_writes_inflight",
			Help: "Writes this API server has in flight to etcd."}),
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kubecore_etcd_write_gate_queued",
			Help: "Writes waiting for a slot of the etcd write gate, by priority (leader, node, normal)."}, []string{"priority"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kubecore_etcd_write_gate_wait_seconds",
			Help:    "Time a write waited for a slot of the etcd write gate, by priority (leader, node, normal).",
			Buckets: []float64{0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 5, 10}}, []string{"priority"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kubecore_etcd_writes_total",
			Help: "Writes this API server sent to etcd through the write gate, by priority (leader, node, normal)."}, []string{"priority"}),
		held: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kubecore_etcd_write_duration_seconds",
			Help:    "Time a write held its slot of the etcd write gate: from sending it to etcd to etcd's answer.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5}}),
	}
}

// Collectors returns the gate's metrics.
func (g *WriteGate) Collectors() []prometheus.Collector {
	return []prometheus.Collector{g.inflight, g.queued, g.wait, g.writes, g.held}
}

func priorityLabel(p apirequest.Priority) string {
	switch p {
	case apirequest.PriorityLeader:
		return "leader"
	case apirequest.PriorityNode:
		return "node"
	}
	return "normal"
}

// Acquire waits for a slot, the writes of a higher priority first and each
// priority in arrival order; release gives it back. It fails when ctx ends
// first.
func (g *WriteGate) Acquire(ctx context.Context) (release func(), err error) {
	p := min(max(apirequest.PriorityFrom(ctx), apirequest.PriorityNormal), apirequest.PriorityLeader)
	label := priorityLabel(p)
	g.mu.Lock()
	if g.free > 0 && !g.waitingFrom(p) {
		g.free--
		g.mu.Unlock()
		g.inflight.Inc()
		g.writes.WithLabelValues(label).Inc()
		return g.releaser(), nil
	}
	w := &gateWaiter{ready: make(chan struct{})}
	e := g.waiting[p].PushBack(w)
	g.mu.Unlock()
	g.queued.WithLabelValues(label).Inc()
	defer g.queued.WithLabelValues(label).Dec()
	start := time.Now()
	select {
	case <-w.ready:
		g.wait.WithLabelValues(label).Observe(time.Since(start).Seconds())
		g.writes.WithLabelValues(label).Inc()
		return g.releaser(), nil
	case <-ctx.Done():
		g.mu.Lock()
		granted := w.granted
		if !granted {
			g.waiting[p].Remove(e)
		}
		g.mu.Unlock()
		if granted {
			g.release()
		}
		return nil, ctx.Err()
	}
}

// waitingFrom reports whether writes of priority p or higher wait.
// Called with mu held.
func (g *WriteGate) waitingFrom(p apirequest.Priority) bool {
	for q := p; int(q) < len(g.waiting); q++ {
		if g.waiting[q].Len() > 0 {
			return true
		}
	}
	return false
}

// releaser returns the release of a slot granted now, which observes how
// long the slot was held.
func (g *WriteGate) releaser() func() {
	granted := time.Now()
	return func() {
		g.held.Observe(time.Since(granted).Seconds())
		g.release()
	}
}

// release hands the slot to the oldest waiter of the highest priority
// that has one, else frees it.
func (g *WriteGate) release() {
	g.mu.Lock()
	for q := len(g.waiting) - 1; q >= 0; q-- {
		if e := g.waiting[q].Front(); e != nil {
			w := g.waiting[q].Remove(e).(*gateWaiter)
			w.granted = true
			g.mu.Unlock()
			close(w.ready)
			return
		}
	}
	g.free++
	g.mu.Unlock()
	g.inflight.Dec()
}

// GateWrites makes every write of c (Put, Delete, and a Txn or Do with a
// write in it) pass g first; reads and compactions do not wait.
func GateWrites(c *clientv3.Client, g *WriteGate) {
	c.KV = &gatedKV{KV: c.KV, gate: g}
}

// gatedKV is a clientv3.KV whose writes pass a WriteGate.
type gatedKV struct {
	clientv3.KV
	gate *WriteGate
}

var _ clientv3.KV = (*gatedKV)(nil)

func (kv *gatedKV) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	release, err := kv.gate.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return kv.KV.Put(ctx, key, val, opts...)
}

func (kv *gatedKV) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	release, err := kv.gate.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return kv.KV.Delete(ctx, key, opts...)
}

func (kv *gatedKV) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	if !writes(op) {
		return kv.KV.Do(ctx, op)
	}
	release, err := kv.gate.Acquire(ctx)
	if err != nil {
		return clientv3.OpResponse{}, err
	}
	defer release()
	return kv.KV.Do(ctx, op)
}

func (kv *gatedKV) Txn(ctx context.Context) clientv3.Txn {
	return &gatedTxn{Txn: kv.KV.Txn(ctx), ctx: ctx, gate: kv.gate}
}

// gatedTxn notes whether its branches write, and if so passes the gate
// on Commit.
type gatedTxn struct {
	clientv3.Txn
	ctx    context.Context
	gate   *WriteGate
	writes bool
}

func (t *gatedTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *gatedTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.note(ops)
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *gatedTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.note(ops)
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *gatedTxn) note(ops []clientv3.Op) {
	for _, op := range ops {
		t.writes = t.writes || writes(op)
	}
}

func (t *gatedTxn) Commit() (*clientv3.TxnResponse, error) {
	if !t.writes {
		return t.Txn.Commit()
	}
	release, err := t.gate.Acquire(t.ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return t.Txn.Commit()
}

// writes reports whether op changes etcd.
func writes(op clientv3.Op) bool {
	if op.IsTxn() {
		_, thenOps, elseOps := op.Txn()
		for _, o := range append(thenOps, elseOps...) {
			if writes(o) {
				return true
			}
		}
		return false
	}
	return op.IsPut() || op.IsDelete()
}
