package watch

import (
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// obj is a minimal runtime.Object.
type obj struct{ name string }

func (o *obj) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (o *obj) DeepCopyObject() runtime.Object   { c := *o; return &c }

func name(o runtime.Object) string {
	if o == nil {
		return "<nil>"
	}
	return o.(*obj).name
}

func recv(t *testing.T, ch <-chan Event) (Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for an event")
		return Event{}, false
	}
}

func TestFakeWatcher(t *testing.T) {
	f := NewFake()
	type sent struct {
		typ  EventType
		name string
	}
	want := []sent{{Added, "a"}, {Modified, "b"}, {Deleted, "c"}, {Error, "d"}, {Bookmark, "e"}}
	go func() {
		f.Add(&obj{"a"})
		f.Modify(&obj{"b"})
		f.Delete(&obj{"c"})
		f.Error(&obj{"d"})
		f.Action(Bookmark, &obj{"e"})
	}()
	for _, w := range want {
		ev, ok := recv(t, f.ResultChan())
		if !ok || ev.Type != w.typ || name(ev.Object) != w.name {
			t.Errorf("got %v %s (open %v), want %v %s", ev.Type, name(ev.Object), ok, w.typ, w.name)
		}
	}
	f.Stop()
	f.Stop()
	if !f.IsStopped() {
		t.Error("IsStopped() = false after Stop")
	}
	if _, ok := recv(t, f.ResultChan()); ok {
		t.Error("ResultChan still open after Stop")
	}
	if f.Add(&obj{"late"}) {
		t.Error("Add after Stop reported success")
	}
	f.Reset()
	if f.IsStopped() {
		t.Error("IsStopped() = true after Reset")
	}
	go f.Add(&obj{"again"})
	if ev, ok := recv(t, f.ResultChan()); !ok || name(ev.Object) != "again" {
		t.Errorf("after Reset got %v %v", ev, ok)
	}
}

// Stop unblocks senders waiting for a reader, without a panic.
func TestFakeWatcherStopWithBlockedSenders(t *testing.T) {
	f := NewFake()
	var wg sync.WaitGroup
	results := make(chan bool, 10)
	for range 10 {
		wg.Go(func() { results <- f.Add(&obj{"x"}) })
	}
	time.Sleep(10 * time.Millisecond)
	f.Stop()
	wg.Wait()
	close(results)
	for ok := range results {
		if ok {
			t.Error("a send succeeded though nobody read")
		}
	}
}

func TestFakeWatcherBuffered(t *testing.T) {
	f := NewFakeWithChanSize(2)
	if !f.Add(&obj{"a"}) || !f.Add(&obj{"b"}) {
		t.Fatal("buffered sends blocked or failed")
	}
	if ev, _ := recv(t, f.ResultChan()); name(ev.Object) != "a" {
		t.Errorf("first event %v", ev)
	}
	f.Stop()
}

func TestProxyWatcher(t *testing.T) {
	ch := make(chan Event)
	pw := NewProxyWatcher(ch)
	var _ Interface = pw
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for i := 0; ; i++ {
			select {
			case ch <- Event{Type: Added, Object: &obj{"p"}}:
			case <-pw.StopChan():
				return
			}
		}
	}()
	if ev, ok := recv(t, pw.ResultChan()); !ok || name(ev.Object) != "p" {
		t.Errorf("got %v %v", ev, ok)
	}
	if pw.Stopping() {
		t.Error("Stopping() before Stop")
	}
	pw.Stop()
	pw.Stop()
	if !pw.Stopping() {
		t.Error("Stopping() = false after Stop")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("producer did not see StopChan")
	}
}

func TestFilter(t *testing.T) {
	f := NewFakeWithChanSize(4)
	w := Filter(f, func(in Event) (Event, bool) {
		if in.Type == Bookmark {
			return in, false
		}
		in.Object = &obj{name(in.Object) + "!"}
		return in, true
	})
	f.Add(&obj{"a"})
	f.Action(Bookmark, &obj{"skip"})
	f.Modify(&obj{"b"})
	for _, want := range []string{"a!", "b!"} {
		if ev, ok := recv(t, w.ResultChan()); !ok || name(ev.Object) != want {
			t.Errorf("got %v %v, want %s", ev, ok, want)
		}
	}
	w.Stop()
	if !f.IsStopped() {
		t.Error("stopping the filter did not stop the source")
	}
	for {
		if _, ok := recv(t, w.ResultChan()); !ok {
			break
		}
	}
	w.Stop()
}

func TestFilterEndsWithSource(t *testing.T) {
	f := NewFake()
	w := Filter(f, func(in Event) (Event, bool) { return in, true })
	f.Stop()
	if _, ok := recv(t, w.ResultChan()); ok {
		t.Error("filter result open after the source ended")
	}
}

type decoded struct {
	typ EventType
	obj runtime.Object
	err error
}

// fakeDecoder returns its items in order, then blocks until closed.
type fakeDecoder struct {
	items  chan decoded
	closed chan struct{}
	once   sync.Once
}

func newFakeDecoder(items ...decoded) *fakeDecoder {
	d := &fakeDecoder{items: make(chan decoded, len(items)), closed: make(chan struct{})}
	for _, it := range items {
		d.items <- it
	}
	return d
}

func (d *fakeDecoder) Decode() (EventType, runtime.Object, error) {
	select {
	case it := <-d.items:
		return it.typ, it.obj, it.err
	case <-d.closed:
		return "", nil, io.EOF
	}
}

func (d *fakeDecoder) Close() { d.once.Do(func() { close(d.closed) }) }

type reporter struct{}

func (reporter) AsObject(err error) runtime.Object { return &obj{"reported: " + err.Error()} }

func TestStreamWatcher(t *testing.T) {
	tests := []struct {
		name      string
		items     []decoded
		want      []string
		wantError string
	}{
		{
			name:  "clean end",
			items: []decoded{{Added, &obj{"a"}, nil}, {Modified, &obj{"b"}, nil}, {"", nil, io.EOF}},
			want:  []string{"a", "b"},
		},
		{
			name:  "cut connection",
			items: []decoded{{Added, &obj{"a"}, nil}, {"", nil, io.ErrUnexpectedEOF}},
			want:  []string{"a"},
		},
		{
			name:  "timeout",
			items: []decoded{{"", nil, os.ErrDeadlineExceeded}},
		},
		{
			name:      "bad data",
			items:     []decoded{{Added, &obj{"a"}, nil}, {"", nil, errors.New("invalid character 'x'")}},
			want:      []string{"a"},
			wantError: "reported: unable to decode an event from the watch stream: invalid character 'x'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newFakeDecoder(tt.items...)
			sw := NewStreamWatcher(d, reporter{})
			for _, want := range tt.want {
				if ev, ok := recv(t, sw.ResultChan()); !ok || name(ev.Object) != want {
					t.Errorf("got %v %v, want %s", ev, ok, want)
				}
			}
			if tt.wantError != "" {
				ev, ok := recv(t, sw.ResultChan())
				if !ok || ev.Type != Error || name(ev.Object) != tt.wantError {
					t.Errorf("got %v %s %v, want Error %q", ev.Type, name(ev.Object), ok, tt.wantError)
				}
			}
			if ev, ok := recv(t, sw.ResultChan()); ok {
				t.Errorf("extra event %v", ev)
			}
			select {
			case <-d.closed:
			default:
				t.Error("decoder not closed at the end of the stream")
			}
		})
	}
}

func TestStreamWatcherStop(t *testing.T) {
	d := newFakeDecoder(decoded{Added, &obj{"a"}, nil})
	sw := NewStreamWatcher(d, reporter{})
	if ev, ok := recv(t, sw.ResultChan()); !ok || name(ev.Object) != "a" {
		t.Fatalf("got %v %v", ev, ok)
	}
	sw.Stop()
	sw.Stop()
	if ev, ok := recv(t, sw.ResultChan()); ok {
		t.Errorf("event %v after Stop", ev)
	}
}

func TestFakeWatcherZeroValue(t *testing.T) {
	var f FakeWatcher
	go f.Add(&obj{"z"})
	if ev, ok := recv(t, f.ResultChan()); !ok || name(ev.Object) != "z" {
		t.Errorf("got %v %v", ev, ok)
	}
	f.Stop()
	if _, ok := recv(t, f.ResultChan()); ok {
		t.Error("ResultChan open after Stop")
	}
}
