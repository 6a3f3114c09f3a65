package flowcontrol

import (
	"math"
	"slices"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
)

// level is the state of one priority level; the Controller's mutex
// guards it.
type level struct {
	name string
	// removed: the level left the configuration; it is forgotten once
	// idle.
	removed bool
	// reject: a Limited level that rejects rather than queues.
	reject bool
	// nominal seats; own of them are the level's alone, lendable are in
	// the pool; borrowLimit is how many pool seats it may hold (-1: no
	// limit).
	nominal, own, lendable, borrowLimit int
	// executing requests, borrowed of them on pool seats.
	executing, borrowed int

	queues           []*queue
	handSize         int
	queueLengthLimit int
	// waiting is the number of queued requests; next the queue the
	// round robin looks at first.
	waiting, next int
}

// queue is one FIFO of a level.
type queue struct {
	waiters []*waiter
}

// waiter is a queued request.
type waiter struct {
	ready      chan struct{}
	queue      *queue
	schema     *schema
	hash       uint64
	dispatched bool
	borrowed   bool
}

// configure applies pl, given its nominal seats, keeping the queued
// requests: when the number of queues changes they are dealt into the
// new queues in their order.
func (l *level) configure(pl *flowcontrolv1.PriorityLevelConfiguration, nominal int) {
	l.removed = false
	l.reject = false
	l.nominal, l.lendable, l.borrowLimit = nominal, 0, -1
	queues, hand, length := 1, 1, 0
	switch spec := pl.Spec; {
	case spec.Type == flowcontrolv1.PriorityLevelEnablementExempt:
		l.own = math.MaxInt
		l.nominal = 0
	case spec.Limited != nil:
		lim := spec.Limited
		if lim.LendablePercent != nil {
			l.lendable = int(math.Round(float64(nominal) * float64(*lim.LendablePercent) / 100))
		}
		if lim.BorrowingLimitPercent != nil {
			l.borrowLimit = l.lendable + int(math.Round(float64(nominal)*float64(*lim.BorrowingLimitPercent)/100))
		}
		l.own = nominal - l.lendable
		switch {
		case lim.LimitResponse.Type == flowcontrolv1.LimitResponseTypeReject:
			l.reject = true
		case lim.LimitResponse.Queuing != nil:
			q := lim.LimitResponse.Queuing
			queues, hand, length = int(max(1, q.Queues)), int(max(1, q.HandSize)), int(max(0, q.QueueLengthLimit))
		}
	default:
		l.own = nominal
	}
	l.handSize, l.queueLengthLimit = min(hand, queues), length
	if len(l.queues) == queues {
		return
	}
	var old []*waiter
	for _, q := range l.queues {
		old = append(old, q.waiters...)
	}
	l.queues = make([]*queue, queues)
	for i := range l.queues {
		l.queues[i] = &queue{}
	}
	l.next = 0
	for _, w := range old {
		q := l.choose(w.hash)
		w.queue = q
		q.waiters = append(q.waiters, w)
	}
}

// idle reports whether no request of l executes or waits.
func (l *level) idle() bool { return l.executing == 0 && l.waiting == 0 }

// choose deals a hand of handSize distinct queues from h (shuffle
// sharding: h read as a number in a mixed radix, each digit picking one
// of the cards left) and returns the shortest, the first dealt on a tie.
func (l *level) choose(h uint64) *queue {
	n := uint64(len(l.queues))
	var dealt [16]int
	hand := dealt[:0]
	if l.handSize > len(dealt) {
		hand = make([]int, 0, l.handSize)
	}
	var best *queue
	for i := 0; i < l.handSize; i++ {
		left := n - uint64(i)
		card := int(h % left)
		h /= left
		// The card-th queue not dealt yet, in index order.
		for _, d := range sortedCopy(hand) {
			if d <= card {
				card++
			}
		}
		hand = append(hand, card)
		if q := l.queues[card]; best == nil || len(q.waiters) < len(best.waiters) {
			best = q
		}
	}
	return best
}

// sortedCopy returns the dealt cards in increasing order (hands are
// small).
func sortedCopy(hand []int) []int {
	var buf [16]int
	out := append(buf[:0], hand...)
	slices.Sort(out)
	return out
}

// pop takes the head of the next non-empty queue in round-robin order.
func (l *level) pop() *waiter {
	for i := range l.queues {
		idx := (l.next + i) % len(l.queues)
		q := l.queues[idx]
		if len(q.waiters) == 0 {
			continue
		}
		w := q.waiters[0]
		q.waiters[0] = nil
		q.waiters = q.waiters[1:]
		l.next = (idx + 1) % len(l.queues)
		l.waiting--
		return w
	}
	panic("flowcontrol: pop from a level without waiting requests")
}

// remove takes w out of q.
func (q *queue) remove(w *waiter) {
	q.waiters = slices.DeleteFunc(q.waiters, func(o *waiter) bool { return o == w })
}
