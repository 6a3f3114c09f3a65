// Package watch defines the stream of change events a WATCH request returns
// and small channel-backed implementations: fake, proxy, filter and decoder.
package watch

import (
	"sync"

	"kubecore.io/apimachinery/pkg/runtime"
)

// EventType is the type of a watch event, as sent on the wire.
type EventType string

// The event types.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	// Bookmark carries only a resourceVersion: everything up to it was sent.
	Bookmark EventType = "BOOKMARK"
	// Error carries a *metav1.Status, e.g. 410 Expired.
	Error EventType = "ERROR"
)

// Event is one change: the object as it is after the change (before it, for
// Deleted), or a Status for Error.
type Event struct {
	Type   EventType
	Object runtime.Object
}

// Interface is a running watch. ResultChan is closed when the watch ends,
// whether the server ended it or Stop was called.
type Interface interface {
	// Stop ends the watch; it may be called more than once.
	Stop()
	// ResultChan returns the events.
	ResultChan() <-chan Event
}

// FakeWatcher is a watch whose events a test sends by hand. The zero value
// is an unbuffered FakeWatcher.
type FakeWatcher struct {
	mu      sync.Mutex
	result  chan Event
	done    chan struct{}
	sending sync.WaitGroup
	stopped bool
}

var _ Interface = (*FakeWatcher)(nil)

// NewFake returns a FakeWatcher whose sends block until the event is read.
func NewFake() *FakeWatcher { return NewFakeWithChanSize(0) }

// NewFakeWithChanSize returns a FakeWatcher buffering size events.
func NewFakeWithChanSize(size int) *FakeWatcher {
	return &FakeWatcher{result: make(chan Event, size), done: make(chan struct{})}
}

// Stop ends the watch: pending and later sends are dropped and ResultChan
// is closed.
func (f *FakeWatcher) Stop() {
	f.mu.Lock()
	f.init()
	if f.stopped {
		f.mu.Unlock()
		return
	}
	f.stopped = true
	close(f.done)
	result := f.result
	f.mu.Unlock()
	f.sending.Wait()
	close(result)
}

// IsStopped reports whether Stop was called.
func (f *FakeWatcher) IsStopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped
}

// Reset makes a stopped watcher usable again with new channels.
func (f *FakeWatcher) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	if !f.stopped {
		return
	}
	f.stopped = false
	f.result = make(chan Event, cap(f.result))
	f.done = make(chan struct{})
}

// ResultChan returns the events.
func (f *FakeWatcher) ResultChan() <-chan Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	return f.result
}

// init makes the channels of a zero FakeWatcher; f.mu is held.
func (f *FakeWatcher) init() {
	if f.result == nil {
		f.result = make(chan Event)
		f.done = make(chan struct{})
	}
}

// Add sends an Added event.
func (f *FakeWatcher) Add(obj runtime.Object) bool { return f.Action(Added, obj) }

// Modify sends a Modified event.
func (f *FakeWatcher) Modify(obj runtime.Object) bool { return f.Action(Modified, obj) }

// Delete sends a Deleted event.
func (f *FakeWatcher) Delete(lastValue runtime.Object) bool { return f.Action(Deleted, lastValue) }

// Error sends an Error event.
func (f *FakeWatcher) Error(errValue runtime.Object) bool { return f.Action(Error, errValue) }

// Action sends an event of any type. It blocks until the event is read (or
// buffered) and reports false, dropping the event, if the watch is stopped.
func (f *FakeWatcher) Action(action EventType, obj runtime.Object) bool {
	f.mu.Lock()
	f.init()
	if f.stopped {
		f.mu.Unlock()
		return false
	}
	f.sending.Add(1)
	result, done := f.result, f.done
	f.mu.Unlock()
	defer f.sending.Done()
	select {
	case result <- Event{Type: action, Object: obj}:
		return true
	case <-done:
		return false
	}
}

// ProxyWatcher turns a channel fed by the caller into an Interface. The
// producer sends on the channel, closes it when done, and stops sending
// once StopChan is closed.
type ProxyWatcher struct {
	result chan Event
	stopCh chan struct{}
	once   sync.Once
}

var _ Interface = (*ProxyWatcher)(nil)

// NewProxyWatcher wraps ch.
func NewProxyWatcher(ch chan Event) *ProxyWatcher {
	return &ProxyWatcher{result: ch, stopCh: make(chan struct{})}
}

// Stop closes StopChan; the producer is expected to close the result channel.
func (pw *ProxyWatcher) Stop() { pw.once.Do(func() { close(pw.stopCh) }) }

// Stopping reports whether Stop was called.
func (pw *ProxyWatcher) Stopping() bool {
	select {
	case <-pw.stopCh:
		return true
	default:
		return false
	}
}

// ResultChan returns the events.
func (pw *ProxyWatcher) ResultChan() <-chan Event { return pw.result }

// StopChan is closed by Stop; the producer selects on it.
func (pw *ProxyWatcher) StopChan() <-chan struct{} { return pw.stopCh }
