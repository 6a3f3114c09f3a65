package flowcontrol

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/flowcontrol/match"
)

// The reasons a request is rejected, as the rejected_requests_total
// metric's reason label says them in Kubernetes.
const (
	ReasonQueueFull        = "queue-full"
	ReasonTimeout          = "time-out"
	ReasonConcurrencyLimit = "concurrency-limit"
	ReasonCancelled        = "cancelled"
)

// Options configure a Controller.
type Options struct {
	// Seats is the server's total concurrency limit; at least 1.
	Seats int
	// QueueWait is how long a request may wait in a queue before it is
	// rejected; at least a millisecond.
	QueueWait time.Duration
}

// Controller classifies and dispatches requests. Its zero value is not
// usable: build it with New.
type Controller struct {
	seats     int
	queueWait time.Duration
	metrics   *Metrics

	// snap is the configuration classification reads, without a lock.
	snap atomic.Pointer[snapshot]
	// configured is closed by the first Configure.
	configured chan struct{}

	mu sync.Mutex
	// levels by name; a level removed from the configuration stays here
	// until its last request ends.
	levels map[string]*level
	// poolSize is the number of seats lent to the pool, poolUsed those
	// borrowed from it now.
	poolSize, poolUsed int
	// order is the levels with waiting requests are offered free pool
	// seats in, and next where the next round starts.
	order []*level
	next  int
}

// snapshot is one configuration: the schemas in matching order (only
// those whose level exists) and the levels.
type snapshot struct {
	schemas []*schema
}

// schema is a FlowSchema of the configuration, with its level.
type schema struct {
	fs    *flowcontrolv1.FlowSchema
	pl    *flowcontrolv1.PriorityLevelConfiguration
	level *level
	// exempt: the level is never limited.
	exempt bool
	// method is the flow distinguisher (ByUser, ByNamespace, or "").
	method flowcontrolv1.FlowDistinguisherMethodType
	m      *flowMetrics
}

// New returns a Controller that serves every request until it is
// configured.
func New(opts Options) *Controller {
	return &Controller{
		seats:     max(1, opts.Seats),
		queueWait: max(time.Millisecond, opts.QueueWait),
		metrics:   newMetrics(),
		levels:    map[string]*level{},

		configured: make(chan struct{}),
	}
}

// Configured reports whether Configure was called.
func (c *Controller) Configured() bool { return c.snap.Load() != nil }

// ConfiguredNotify is closed once Configure was called.
func (c *Controller) ConfiguredNotify() <-chan struct{} { return c.configured }

// Metrics returns the controller's collectors, for the server's registry.
func (c *Controller) Metrics() *Metrics { return c.metrics }

// Configure replaces the configuration with schemas and levels, which
// the controller keeps and only reads.
func (c *Controller) Configure(schemas []*flowcontrolv1.FlowSchema, levels []*flowcontrolv1.PriorityLevelConfiguration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	shares := 0
	for _, pl := range levels {
		shares += nominalShares(pl)
	}
	shares = max(shares, 1)
	byName := map[string]*level{}
	c.poolSize = 0
	c.order = c.order[:0]
	for _, pl := range levels {
		l := c.levels[pl.Name]
		if l == nil {
			l = &level{name: pl.Name}
			c.levels[pl.Name] = l
		}
		nominal := int(math.Ceil(float64(c.seats) * float64(nominalShares(pl)) / float64(shares)))
		l.configure(pl, nominal)
		c.metrics.nominal.WithLabelValues(pl.Name).Set(float64(nominal))
		c.poolSize += l.lendable
		byName[pl.Name] = l
		c.order = append(c.order, l)
	}
	for name, l := range c.levels {
		if byName[name] == nil {
			l.removed = true
			if l.idle() {
				delete(c.levels, name)
				c.metrics.nominal.DeleteLabelValues(name)
			} else {
				c.order = append(c.order, l)
			}
		}
	}
	slices.SortFunc(c.order, func(a, b *level) int { return strings.Compare(a.name, b.name) })
	c.next = 0

	plByName := map[string]*flowcontrolv1.PriorityLevelConfiguration{}
	for _, pl := range levels {
		plByName[pl.Name] = pl
	}
	snap := &snapshot{}
	for _, fs := range schemas {
		pl := plByName[fs.Spec.PriorityLevelConfiguration.Name]
		if pl == nil {
			continue
		}
		s := &schema{fs: fs, pl: pl, level: byName[pl.Name], exempt: pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt,
			m: c.metrics.flow(pl.Name, fs.Name)}
		if fs.Spec.DistinguisherMethod != nil {
			s.method = fs.Spec.DistinguisherMethod.Type
		}
		snap.schemas = append(snap.schemas, s)
	}
	slices.SortFunc(snap.schemas, func(a, b *schema) int {
		return cmp.Or(cmp.Compare(a.fs.Spec.MatchingPrecedence, b.fs.Spec.MatchingPrecedence), strings.Compare(a.fs.Name, b.fs.Name))
	})
	if c.snap.Swap(snap) == nil {
		close(c.configured)
	}
	// New seats may let waiting requests go.
	c.dispatchLocked()
}

// nominalShares is pl's nominalConcurrencyShares.
func nominalShares(pl *flowcontrolv1.PriorityLevelConfiguration) int {
	switch {
	case pl.Spec.Limited != nil && pl.Spec.Limited.NominalConcurrencyShares != nil:
		return int(*pl.Spec.Limited.NominalConcurrencyShares)
	case pl.Spec.Exempt != nil && pl.Spec.Exempt.NominalConcurrencyShares != nil:
		return int(*pl.Spec.Exempt.NominalConcurrencyShares)
	case pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementLimited:
		return 30 // Kubernetes' default
	}
	return 0
}

// Classification is where a request belongs: its FlowSchema, priority
// level and flow.
type Classification struct {
	FlowSchema    *flowcontrolv1.FlowSchema
	PriorityLevel *flowcontrolv1.PriorityLevelConfiguration
	// Flow distinguishes the request's flow within the schema.
	Flow   string
	schema *schema
}

// StoragePriority is the priority of the request's writes to storage:
// PriorityLeader for the exempt levels and the leader-election level
// (the Leases of leader-elected components), PriorityNode for the
// node-high level (node Leases and status), both levels of Kubernetes'
// suggested configuration; PriorityNormal for the others. Thousands of
// nodes joining at once must not delay a leader's renewal.
func (c *Classification) StoragePriority() apirequest.Priority {
	switch {
	case c.schema.exempt, c.PriorityLevel.Name == "leader-election":
		return apirequest.PriorityLeader
	case c.PriorityLevel.Name == "node-high":
		return apirequest.PriorityNode
	}
	return apirequest.PriorityNormal
}

// Classify returns the classification of a request of user, described
// by info; nil when the controller has no configuration or no schema
// matches.
func (c *Controller) Classify(user *apirequest.UserInfo, info *apirequest.RequestInfo) *Classification {
	snap := c.snap.Load()
	if snap == nil {
		return nil
	}
	for _, s := range snap.schemas {
		if !match.Matches(s.fs, user, info) {
			continue
		}
		cl := &Classification{FlowSchema: s.fs, PriorityLevel: s.pl, schema: s}
		switch s.method {
		case flowcontrolv1.FlowDistinguisherMethodByUserType:
			cl.Flow = user.Name
		case flowcontrolv1.FlowDistinguisherMethodByNamespaceType:
			cl.Flow = info.Namespace
		}
		return cl
	}
	return nil
}

// Rejected is why a request was not served.
type Rejected struct {
	Reason string
}

func (r *Rejected) Error() string { return "request rejected by priority and fairness: " + r.Reason }

// Admit waits until cl's request may be served and returns the function
// that ends it, which must be called once; or it returns why the
// request is rejected.
func (c *Controller) Admit(ctx context.Context, cl *Classification) (release func(), rejected *Rejected) {
	s := cl.schema
	l := s.level
	if s.exempt {
		s.m.dispatched.Inc()
		s.m.executing.Inc()
		return s.m.executing.Dec, nil
	}
	c.mu.Lock()
	if l.waiting == 0 {
		if borrowed, ok := c.seatLocked(l); ok {
			c.mu.Unlock()
			return c.started(s, l, borrowed), nil
		}
	}
	if l.reject || l.removed {
		// A level removed since the request was classified queues no
		// more: it may already be forgotten, out of the dispatch order.
		c.mu.Unlock()
		return nil, c.rejected(s, ReasonConcurrencyLimit)
	}
	h := flowHash(cl.FlowSchema.Name, cl.Flow)
	q := l.choose(h)
	if len(q.waiters) >= l.queueLengthLimit {
		c.mu.Unlock()
		return nil, c.rejected(s, ReasonQueueFull)
	}
	w := &waiter{ready: make(chan struct{}), queue: q, schema: s, hash: h}
	q.waiters = append(q.waiters, w)
	l.waiting++
	s.m.inQueue.Inc()
	c.dispatchLocked()
	c.mu.Unlock()

	timer := time.NewTimer(c.queueWait)
	defer timer.Stop()
	reason := ""
	select {
	case <-w.ready:
		return c.started(s, l, w.borrowed), nil
	case <-ctx.Done():
		reason = ReasonCancelled
	case <-timer.C:
		reason = ReasonTimeout
	}
	c.mu.Lock()
	if w.dispatched {
		// A seat came as the wait ended: take it rather than waste it.
		c.mu.Unlock()
		return c.started(s, l, w.borrowed), nil
	}
	w.queue.remove(w)
	l.waiting--
	s.m.inQueue.Dec()
	if l.removed && l.idle() {
		c.forgetLocked(l)
	}
	c.mu.Unlock()
	return nil, c.rejected(s, reason)
}

// started counts a request that got a seat and returns the function
// that gives the seat back.
func (c *Controller) started(s *schema, l *level, borrowed bool) func() {
	s.m.dispatched.Inc()
	s.m.executing.Inc()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.m.executing.Dec()
			c.mu.Lock()
			defer c.mu.Unlock()
			l.executing--
			if borrowed {
				l.borrowed--
				c.poolUsed--
			}
			c.dispatchLocked()
			if l.removed && l.idle() {
				c.forgetLocked(l)
			}
		})
	}
}

func (c *Controller) rejected(s *schema, reason string) *Rejected {
	s.m.rejected(reason).Inc()
	return &Rejected{Reason: reason}
}

// forgetLocked drops a removed level once it has no request left.
func (c *Controller) forgetLocked(l *level) {
	if c.levels[l.name] == l {
		delete(c.levels, l.name)
		c.metrics.nominal.DeleteLabelValues(l.name)
	}
	c.order = slices.DeleteFunc(c.order, func(o *level) bool { return o == l })
}

// seatLocked takes a seat of l if one is free: its own, or one borrowed
// from the pool.
func (c *Controller) seatLocked(l *level) (borrowed, ok bool) {
	if l.executing-l.borrowed < l.own {
		l.executing++
		return false, true
	}
	if c.poolUsed < c.poolSize && (l.borrowLimit < 0 || l.borrowed < l.borrowLimit) {
		l.executing++
		l.borrowed++
		c.poolUsed++
		return true, true
	}
	return false, false
}

// dispatchLocked gives free seats to waiting requests, the levels taking
// turns so that pool seats are shared.
func (c *Controller) dispatchLocked() {
	for progress := true; progress; {
		progress = false
		for i := range c.order {
			l := c.order[(c.next+i)%len(c.order)]
			if l.waiting == 0 {
				continue
			}
			borrowed, ok := c.seatLocked(l)
			if !ok {
				continue
			}
			w := l.pop()
			w.dispatched, w.borrowed = true, borrowed
			w.schema.m.inQueue.Dec()
			close(w.ready)
			c.next = (c.next + i + 1) % len(c.order)
			progress = true
			break
		}
	}
}

// Stats are a level's counts, for tests.
type Stats struct {
	Nominal, Own, Lendable, Executing, Borrowed, Waiting int
}

// LevelStats returns the counts of the level named name.
func (c *Controller) LevelStats(name string) (Stats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.levels[name]
	if l == nil {
		return Stats{}, false
	}
	return Stats{Nominal: l.nominal, Own: l.own, Lendable: l.lendable, Executing: l.executing, Borrowed: l.borrowed, Waiting: l.waiting}, true
}

// flowHash is the 64-bit FNV-1a hash of the flow's schema and
// distinguisher, which shuffle sharding deals the flow's hand from.
func flowHash(schema, flow string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(schema); i++ {
		h = (h ^ uint64(schema[i])) * prime
	}
	h = (h ^ ',') * prime
	for i := 0; i < len(flow); i++ {
		h = (h ^ uint64(flow[i])) * prime
	}
	return h
}
