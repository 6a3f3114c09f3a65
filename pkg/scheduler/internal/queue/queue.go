// Package queue is the scheduling queue: pods waiting to be scheduled, by
// priority then arrival, with per-pod back-off and an unschedulable set
// that cluster events (never a timer) move back.
package queue

import (
	"errors"
	"maps"
	"reflect"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// Defaults of the per-pod back-off: 1s, doubling per attempt, up to 10s.
const (
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 10 * time.Second
)

// ErrClosed is returned by Pop once the queue is closed.
var ErrClosed = errors.New("scheduling queue is closed")

// QueuedPodInfo is a pod in the queue with its scheduling history.
type QueuedPodInfo struct {
	*framework.PodInfo
	// Timestamp is when the pod was last added to the queue.
	Timestamp time.Time
	// InitialAttemptTimestamp is when the pod was first popped.
	InitialAttemptTimestamp time.Time
	// Attempts counts the scheduling attempts.
	Attempts int
	// UnschedulablePlugins rejected the pod in its last attempt.
	UnschedulablePlugins map[string]struct{}
	// popSeq is the event sequence number when the pod was popped.
	popSeq int64
}

// Options tune a PriorityQueue.
type Options struct {
	InitialBackoff, MaxBackoff time.Duration
	Clock                      workqueue.Clock
	// EventMatters reports whether a cluster event may help a pod that the
	// given plugins rejected; nil means every event does.
	EventMatters func(ev framework.ClusterEvent, plugins map[string]struct{}) bool
}

type recordedEvent struct {
	seq int64
	ev  framework.ClusterEvent
}

// PriorityQueue is the scheduling queue. It also records which pods
// preemption nominated to which nodes.
type PriorityQueue struct {
	opts Options

	mu            sync.Mutex
	cond          *sync.Cond
	active        *keyedHeap[*QueuedPodInfo]
	backoff       *keyedHeap[*QueuedPodInfo]
	unschedulable map[string]*QueuedPodInfo
	// inFlight holds popped pods not yet done, with their latest object.
	inFlight map[types.UID]*corev1.Pod
	events   []recordedEvent
	eventSeq int64
	closed   bool

	timer   workqueue.Timer
	timerAt time.Time

	nominated      map[string][]*framework.PodInfo
	nominatedNodes map[types.UID]string
}

var _ framework.PodNominator = (*PriorityQueue)(nil)

// New returns an empty queue.
func New(opts Options) *PriorityQueue {
	if opts.InitialBackoff <= 0 {
		opts.InitialBackoff = DefaultInitialBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxBackoff < opts.InitialBackoff {
		opts.MaxBackoff = opts.InitialBackoff
	}
	if opts.Clock == nil {
		opts.Clock = workqueue.RealClock{}
	}
	key := func(p *QueuedPodInfo) string { return framework.PodKey(p.Pod) }
	q := &PriorityQueue{
		opts: opts,
		active: newKeyedHeap(key, func(a, b *QueuedPodInfo) bool {
			pa, pb := framework.PodPriority(a.Pod), framework.PodPriority(b.Pod)
			if pa != pb {
				return pa > pb
			}
			return a.Timestamp.Before(b.Timestamp)
		}),
		unschedulable:  map[string]*QueuedPodInfo{},
		inFlight:       map[types.UID]*corev1.Pod{},
		nominated:      map[string][]*framework.PodInfo{},
		nominatedNodes: map[types.UID]string{},
	}
	q.backoff = newKeyedHeap(key, func(a, b *QueuedPodInfo) bool {
		return q.backoffExpiry(a).Before(q.backoffExpiry(b))
	})
	q.cond = sync.NewCond(&q.mu)
	return q
}

// backoffDuration is the pod's back-off after its attempts so far.
func (q *PriorityQueue) backoffDuration(p *QueuedPodInfo) time.Duration {
	d := q.opts.InitialBackoff
	for i := 1; i < p.Attempts; i++ {
		d *= 2
		if d >= q.opts.MaxBackoff {
			return q.opts.MaxBackoff
		}
	}
	return d
}

func (q *PriorityQueue) backoffExpiry(p *QueuedPodInfo) time.Time {
	return p.Timestamp.Add(q.backoffDuration(p))
}

func newPodInfo(pod *corev1.Pod) *framework.PodInfo {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		// The scheduling cycle parses it again and reports the error.
		pi = &framework.PodInfo{Pod: pod}
		pi.Requests, pi.NonZeroRequests = framework.PodRequests(pod)
	}
	return pi
}

// Add queues a new pending pod.
func (q *PriorityQueue) Add(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(pod)
}

func (q *PriorityQueue) addLocked(pod *corev1.Pod) {
	key := framework.PodKey(pod)
	if _, ok := q.inFlight[pod.UID]; ok {
		q.inFlight[pod.UID] = pod
		return
	}
	delete(q.unschedulable, key)
	q.backoff.Delete(key)
	pi := newPodInfo(pod)
	q.active.AddOrUpdate(&QueuedPodInfo{PodInfo: pi, Timestamp: q.opts.Clock.Now()})
	q.nominateFromStatusLocked(pi)
	q.cond.Broadcast()
}

// nominateFromStatusLocked records a nomination the pod's status carries.
func (q *PriorityQueue) nominateFromStatusLocked(pi *framework.PodInfo) {
	if n := pi.Pod.Status.NominatedNodeName; n != "" {
		q.addNominatedLocked(pi, n)
	}
}

// Update replaces a pending pod. A pod in the unschedulable set whose spec,
// labels or annotations changed gets another try.
func (q *PriorityQueue) Update(old, pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := framework.PodKey(pod)
	if _, ok := q.inFlight[pod.UID]; ok {
		q.inFlight[pod.UID] = pod
		return
	}
	if p, ok := q.active.Get(key); ok {
		p.PodInfo = newPodInfo(pod)
		q.active.AddOrUpdate(p)
		q.updateNominatedLocked(p.PodInfo)
		return
	}
	if p, ok := q.backoff.Get(key); ok {
		p.PodInfo = newPodInfo(pod)
		q.backoff.AddOrUpdate(p)
		q.updateNominatedLocked(p.PodInfo)
		return
	}
	if p, ok := q.unschedulable[key]; ok {
		changed := old == nil || podUpdated(old, pod)
		p.PodInfo = newPodInfo(pod)
		q.updateNominatedLocked(p.PodInfo)
		if changed {
			delete(q.unschedulable, key)
			q.requeueLocked(p)
		}
		return
	}
	q.addLocked(pod)
}

// podUpdated reports a change that may change where the pod fits: not
// its status or metadata bookkeeping.
func podUpdated(old, pod *corev1.Pod) bool {
	return !reflect.DeepEqual(old.Spec, pod.Spec) || !maps.Equal(old.Labels, pod.Labels) || !maps.Equal(old.Annotations, pod.Annotations)
}

// Delete removes a pod from the queue and its nomination.
func (q *PriorityQueue) Delete(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := framework.PodKey(pod)
	q.active.Delete(key)
	q.backoff.Delete(key)
	delete(q.unschedulable, key)
	q.deleteNominatedLocked(pod)
}

// Pop blocks until a pod is active or the queue closes, and returns it.
// The pod is in flight until Done or AddUnschedulableIfNotPresent.
func (q *PriorityQueue) Pop() (*QueuedPodInfo, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.active.Len() == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, ErrClosed
	}
	p, _ := q.active.Pop()
	p.Attempts++
	if p.InitialAttemptTimestamp.IsZero() {
		p.InitialAttemptTimestamp = q.opts.Clock.Now()
	}
	p.popSeq = q.eventSeq
	q.inFlight[p.Pod.UID] = p.Pod
	return p, nil
}

// Done ends a pod's flight after a successful scheduling cycle.
func (q *PriorityQueue) Done(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.doneLocked(uid)
}

func (q *PriorityQueue) doneLocked(uid types.UID) {
	delete(q.inFlight, uid)
	if len(q.inFlight) == 0 {
		q.events = q.events[:0]
	}
}

// AddUnschedulableIfNotPresent returns a pod whose attempt failed. A pod
// rejected by plugins waits in the unschedulable set for an event that may
// help it, unless such an event came while it was in flight; a pod that
// failed with an error (no plugins) backs off.
func (q *PriorityQueue) AddUnschedulableIfNotPresent(p *QueuedPodInfo, plugins map[string]struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	latest, inFlight := q.inFlight[p.Pod.UID]
	// The events seen during the flight are forgotten once no pod is in
	// flight: look at them first.
	var seen []framework.ClusterEvent
	for _, e := range q.events {
		if e.seq > p.popSeq {
			seen = append(seen, e.ev)
		}
	}
	q.doneLocked(p.Pod.UID)
	if !inFlight {
		// Deleted while in flight.
		return
	}
	key := framework.PodKey(p.Pod)
	if _, ok := q.active.Get(key); ok {
		return
	}
	if latest != p.Pod {
		changed := podUpdated(p.Pod, latest)
		p.PodInfo = newPodInfo(latest)
		if changed {
			plugins = nil
		}
	}
	p.UnschedulablePlugins = plugins
	p.Timestamp = q.opts.Clock.Now()
	if len(plugins) == 0 {
		q.backoff.AddOrUpdate(p)
		q.armTimerLocked()
		return
	}
	for _, ev := range seen {
		if q.matters(ev, plugins) {
			q.backoff.AddOrUpdate(p)
			q.armTimerLocked()
			return
		}
	}
	q.unschedulable[key] = p
}

func (q *PriorityQueue) matters(ev framework.ClusterEvent, plugins map[string]struct{}) bool {
	if q.opts.EventMatters == nil {
		return true
	}
	return q.opts.EventMatters(ev, plugins)
}

// MoveAllToActiveOrBackoffQueue moves the unschedulable pods that ev may
// help to the active queue, or to back-off while theirs lasts. preCheck,
// when not nil, must also accept the pod.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueue(ev framework.ClusterEvent, preCheck func(*corev1.Pod) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.inFlight) > 0 {
		q.eventSeq++
		q.events = append(q.events, recordedEvent{seq: q.eventSeq, ev: ev})
	}
	moved := false
	for key, p := range q.unschedulable {
		if !q.matters(ev, p.UnschedulablePlugins) || (preCheck != nil && !preCheck(p.Pod)) {
			continue
		}
		delete(q.unschedulable, key)
		q.requeueLocked(p)
		moved = true
	}
	if moved {
		q.cond.Broadcast()
	}
}

// requeueLocked puts p in back-off while it lasts, else in the active queue.
func (q *PriorityQueue) requeueLocked(p *QueuedPodInfo) {
	if q.opts.Clock.Now().Before(q.backoffExpiry(p)) {
		q.backoff.AddOrUpdate(p)
		q.armTimerLocked()
		return
	}
	q.active.AddOrUpdate(p)
	q.cond.Broadcast()
}

// armTimerLocked makes sure a timer fires when the earliest back-off ends.
func (q *PriorityQueue) armTimerLocked() {
	head, ok := q.backoff.Peek()
	if !ok || q.closed {
		return
	}
	at := q.backoffExpiry(head)
	if q.timer != nil && !q.timerAt.After(at) {
		return
	}
	if q.timer != nil {
		q.timer.Stop()
	}
	q.timerAt = at
	q.timer = q.opts.Clock.AfterFunc(max(0, at.Sub(q.opts.Clock.Now())), q.flushBackoff)
}

// flushBackoff moves the pods whose back-off ended to the active queue.
func (q *PriorityQueue) flushBackoff() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.timer = nil
	now := q.opts.Clock.Now()
	moved := false
	for {
		head, ok := q.backoff.Peek()
		if !ok || now.Before(q.backoffExpiry(head)) {
			break
		}
		q.backoff.Pop()
		q.active.AddOrUpdate(head)
		moved = true
	}
	if moved {
		q.cond.Broadcast()
	}
	q.armTimerLocked()
}

// Close wakes Pop, which then returns ErrClosed.
func (q *PriorityQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
	q.cond.Broadcast()
}

// Lengths returns the sizes of the active, back-off and unschedulable
// queues.
func (q *PriorityQueue) Lengths() (active, backoff, unschedulable int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active.Len(), q.backoff.Len(), len(q.unschedulable)
}

// Has reports where the pod is: "active", "backoff", "unschedulable" or "".
func (q *PriorityQueue) Has(pod *corev1.Pod) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := framework.PodKey(pod)
	if _, ok := q.active.Get(key); ok {
		return "active"
	}
	if _, ok := q.backoff.Get(key); ok {
		return "backoff"
	}
	if _, ok := q.unschedulable[key]; ok {
		return "unschedulable"
	}
	return ""
}

// NominatedPodsForNode implements framework.PodNominator.
func (q *PriorityQueue) NominatedPodsForNode(nodeName string) []*framework.PodInfo {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]*framework.PodInfo(nil), q.nominated[nodeName]...)
}

// AddNominatedPod implements framework.PodNominator.
func (q *PriorityQueue) AddNominatedPod(pi *framework.PodInfo, nodeName string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addNominatedLocked(pi, nodeName)
}

// DeleteNominatedPodIfExists drops the pod's nomination.
func (q *PriorityQueue) DeleteNominatedPodIfExists(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deleteNominatedLocked(pod)
}

func (q *PriorityQueue) addNominatedLocked(pi *framework.PodInfo, nodeName string) {
	q.deleteNominatedLocked(pi.Pod)
	if nodeName == "" {
		return
	}
	q.nominatedNodes[pi.Pod.UID] = nodeName
	q.nominated[nodeName] = append(q.nominated[nodeName], pi)
}

func (q *PriorityQueue) updateNominatedLocked(pi *framework.PodInfo) {
	node, ok := q.nominatedNodes[pi.Pod.UID]
	if n := pi.Pod.Status.NominatedNodeName; n != "" {
		node, ok = n, true
	}
	if ok {
		q.addNominatedLocked(pi, node)
	}
}

func (q *PriorityQueue) deleteNominatedLocked(pod *corev1.Pod) {
	node, ok := q.nominatedNodes[pod.UID]
	if !ok {
		return
	}
	delete(q.nominatedNodes, pod.UID)
	list := q.nominated[node]
	for i, p := range list {
		if p.Pod.UID == pod.UID {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(q.nominated, node)
	} else {
		q.nominated[node] = list
	}
}

// Readd puts a pod whose binding failed back in flight, so that
// AddUnschedulableIfNotPresent can requeue it.
func (q *PriorityQueue) Readd(p *QueuedPodInfo) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p.popSeq = q.eventSeq
	q.inFlight[p.Pod.UID] = p.Pod
}
