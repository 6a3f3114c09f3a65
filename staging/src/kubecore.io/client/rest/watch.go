package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/watch"
)

// ObjectDecoder turns the JSON of one watch event's object into a typed
// object.
type ObjectDecoder func(data []byte) (runtime.Object, error)

// NewFuncDecoder decodes each object into a fresh newObject().
func NewFuncDecoder(newObject func() runtime.Object) ObjectDecoder {
	return func(data []byte) (runtime.Object, error) {
		obj := newObject()
		if err := json.Unmarshal(data, obj); err != nil {
			return nil, fmt.Errorf("decode %T: %w", obj, err)
		}
		return obj, nil
	}
}

// SchemeDecoder decodes each object into the Go type its kind is
// registered as in d's scheme (e.g. a runtime.Serializer).
func SchemeDecoder(d runtime.Decoder) ObjectDecoder {
	return func(data []byte) (runtime.Object, error) { return runtime.Decode(d, data) }
}

// WatchObject says how Watch decodes event objects: into fresh
// newObject() values. Without it the client's ClientOptions.Decoder is
// used.
func (r *Request) WatchObject(newObject func() runtime.Object) *Request {
	r.decoder = NewFuncDecoder(newObject)
	r.newObject = newObject
	return r
}

// protobufDecoder decodes enveloped protobuf objects into fresh
// newObject() values or, without newObject, into the types s's scheme
// registers for their kinds.
func protobufDecoder(s *protobuf.Serializer, newObject func() runtime.Object) ObjectDecoder {
	return func(data []byte) (runtime.Object, error) {
		if newObject == nil {
			obj, _, err := s.Decode(data, nil, nil)
			return obj, err
		}
		obj := newObject()
		if err := runtime.DecodeInto(s, data, obj); err != nil {
			return nil, err
		}
		return obj, nil
	}
}

// Watch sends the request as a watch (watch=true is added unless a
// parameter already says it) and returns the stream of events. ERROR events
// carry a *metav1.Status (apierrors.FromObject turns it into an error for
// errors.IsResourceExpired and the like). A stream that ends cleanly between
// events closes ResultChan quietly; a broken one (cut mid-event, reset,
// undecodable) first sends one ERROR event, a 500 Status with reason
// InternalError, and Err then returns the cause.
func (r *Request) Watch(ctx context.Context) (*StreamWatcher, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	decode := r.decoder
	if decode == nil {
		decode = r.c.decoder
	}
	if decode == nil {
		return nil, errors.New("watch: no decoder for the event objects: call WatchObject or set ClientOptions.Decoder")
	}
	if r.params.Get("watch") == "" {
		r.params.Set("watch", "true")
	}
	ctx, cancel := context.WithCancel(ctx)
	resp, err := r.openStream(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	w := &StreamWatcher{
		body:   resp.Body,
		cancel: cancel,
		ctx:    ctx,
		decode: decode,
		where:  r.verb + " " + r.URL().Path,
		result: make(chan watch.Event),
		done:   make(chan struct{}),
	}
	if r.c.protobuf != nil && isProtobuf(resp.Header.Get("Content-Type")) {
		w.protobuf = r.c.protobuf
		w.decode = protobufDecoder(r.c.protobuf, r.newObject)
	}
	go w.receive()
	return w, nil
}

// StreamWatcher is a watch decoding a stream of metav1.WatchEvents: chunked
// JSON, or Kubernetes' length-prefixed protobuf frames.
type StreamWatcher struct {
	body     io.ReadCloser
	cancel   context.CancelFunc
	ctx      context.Context
	decode   ObjectDecoder
	protobuf *protobuf.Serializer // set for a protobuf stream
	where    string
	result   chan watch.Event
	done     chan struct{}
	once     sync.Once

	mu  sync.Mutex
	err error
}

var _ watch.Interface = (*StreamWatcher)(nil)

// NewStreamWatcher decodes the watch stream in body with decode; Stop
// closes body. Watch is the usual way to get one.
func NewStreamWatcher(body io.ReadCloser, decode ObjectDecoder) *StreamWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &StreamWatcher{
		body: body, cancel: cancel, ctx: ctx, decode: decode, where: "watch stream",
		result: make(chan watch.Event), done: make(chan struct{}),
	}
	go w.receive()
	return w
}

// ResultChan returns the events; it is closed when the watch ends.
func (w *StreamWatcher) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the watch and closes the connection. It may be called more
// than once.
func (w *StreamWatcher) Stop() {
	w.once.Do(func() {
		close(w.done)
		w.cancel()
		_ = w.body.Close()
	})
}

// Err returns why the stream broke, once ResultChan is closed; nil when it
// ended cleanly or was stopped.
func (w *StreamWatcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *StreamWatcher) stopping() bool {
	select {
	case <-w.done:
		return true
	default:
		return w.ctx.Err() != nil
	}
}

func (w *StreamWatcher) receive() {
	defer close(w.result)
	defer w.Stop()
	next := w.jsonEvents()
	if w.protobuf != nil {
		next = w.protobufEvents()
	}
	for {
		wire, err := next()
		if err != nil {
			if w.stopping() || errors.Is(err, io.EOF) {
				return
			}
			w.fail(fmt.Errorf("%s: watch stream broken: %w", w.where, err))
			return
		}
		ev, err := w.event(&wire)
		if err != nil {
			w.fail(fmt.Errorf("%s: %w", w.where, err))
			return
		}
		select {
		case w.result <- ev:
		case <-w.done:
			return
		}
	}
}

// protobufEvents returns the reader of a protobuf stream's events.
func (w *StreamWatcher) protobufEvents() func() (metav1.WatchEvent, error) {
	r := bufio.NewReader(w.body)
	return func() (metav1.WatchEvent, error) { return w.protobuf.ReadWatchEvent(r) }
}

// jsonEvents returns the reader of a JSON stream's events.
func (w *StreamWatcher) jsonEvents() func() (metav1.WatchEvent, error) {
	dec := json.NewDecoder(w.body)
	return func() (metav1.WatchEvent, error) {
		var wire metav1.WatchEvent
		err := dec.Decode(&wire)
		return wire, err
	}
}

// event decodes one wire event.
func (w *StreamWatcher) event(wire *metav1.WatchEvent) (watch.Event, error) {
	t := watch.EventType(wire.Type)
	switch t {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
		obj, err := w.decode(wire.Object)
		if err != nil {
			return watch.Event{}, fmt.Errorf("decode %s event: %w", t, err)
		}
		return watch.Event{Type: t, Object: obj}, nil
	case watch.Error:
		status := &metav1.Status{}
		var err error
		if w.protobuf != nil {
			err = runtime.DecodeInto(w.protobuf, wire.Object, status)
		} else {
			err = json.Unmarshal(wire.Object, status)
		}
		if err != nil {
			return watch.Event{}, fmt.Errorf("decode ERROR event: %w", err)
		}
		return watch.Event{Type: t, Object: status}, nil
	}
	return watch.Event{}, fmt.Errorf("unknown watch event type %q", wire.Type)
}

// fail records err and sends it as an ERROR event unless the watch is
// stopped first.
func (w *StreamWatcher) fail(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
	status := apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding").AsObject(err)
	select {
	case w.result <- watch.Event{Type: watch.Error, Object: status}:
	case <-w.done:
	}
}
