package rest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
)

func podEvent(typ, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"ns","resourceVersion":%q}}}`+"\n", typ, name, rv)
}

// streamHandler writes each chunk and flushes it; end runs after the last.
func streamHandler(t *testing.T, chunks []string, end func()) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			t.Errorf("watch parameter = %q", r.URL.Query().Get("watch"))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for _, c := range chunks {
			_, _ = io.WriteString(w, c)
			w.(http.Flusher).Flush()
		}
		if end != nil {
			end()
		}
	}
}

// drain reads every event until the channel closes (or 5 s pass).
func drain(t *testing.T, w watch.Interface) []watch.Event {
	t.Helper()
	var out []watch.Event
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("watch did not end; got %d events", len(out))
		}
	}
}

func describe(events []watch.Event) string {
	var parts []string
	for _, ev := range events {
		switch o := ev.Object.(type) {
		case *corev1.Pod:
			parts = append(parts, fmt.Sprintf("%s %s@%s", ev.Type, o.Name, o.ResourceVersion))
		case *metav1.Status:
			parts = append(parts, fmt.Sprintf("%s %d %s", ev.Type, o.Code, o.Reason))
		default:
			parts = append(parts, fmt.Sprintf("%s %T", ev.Type, o))
		}
	}
	return strings.Join(parts, ", ")
}

func TestWatch(t *testing.T) {
	abort := func() { panic(http.ErrAbortHandler) }
	tests := []struct {
		name    string
		chunks  []string
		end     func()
		want    string
		wantErr string // of Err(), and in the ERROR event's message
	}{
		{
			name: "clean end between events",
			chunks: []string{podEvent("ADDED", "a", "1"), podEvent("MODIFIED", "a", "2"),
				`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"3"}}}`,
				podEvent("DELETED", "a", "4")},
			want: "ADDED a@1, MODIFIED a@2, BOOKMARK @3, DELETED a@4",
		},
		{
			name:   "event split over chunks",
			chunks: []string{podEvent("ADDED", "a", "1")[:20], podEvent("ADDED", "a", "1")[20:]},
			want:   "ADDED a@1",
		},
		{
			name:   "expired ERROR event",
			chunks: []string{podEvent("ADDED", "a", "1"), `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (9)","reason":"Expired","code":410}}`},
			want:   "ADDED a@1, ERROR 410 Expired",
		},
		{
			name:    "cut mid-event",
			chunks:  []string{podEvent("ADDED", "a", "1"), `{"type":"MODIFIED","object":{"kind":"Pod","metad`},
			end:     abort,
			want:    "ADDED a@1, ERROR 500 InternalError",
			wantErr: "watch stream broken",
		},
		{
			name:    "cut between events",
			chunks:  []string{podEvent("ADDED", "a", "1")},
			end:     abort,
			want:    "ADDED a@1, ERROR 500 InternalError",
			wantErr: "watch stream broken",
		},
		{
			name:    "server ends mid-event",
			chunks:  []string{podEvent("ADDED", "a", "1"), `{"type":"MODIFIED","obj`},
			want:    "ADDED a@1, ERROR 500 InternalError",
			wantErr: "unexpected EOF",
		},
		{
			name:    "garbage",
			chunks:  []string{"<html>oops</html>"},
			want:    "ERROR 500 InternalError",
			wantErr: "watch stream broken: invalid character",
		},
		{
			name:    "unknown event type",
			chunks:  []string{`{"type":"RENAMED","object":{}}`},
			want:    "ERROR 500 InternalError",
			wantErr: "unknown watch event type",
		},
		{
			name:    "object of the wrong shape",
			chunks:  []string{`{"type":"ADDED","object":{"metadata":{"name":7}}}`},
			want:    "ERROR 500 InternalError",
			wantErr: "decode ADDED event",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, config := newTestServer(t, streamHandler(t, tt.chunks, tt.end))
			c := newTestClient(t, config, "v1")
			w, err := c.Get().Namespace("ns").Resource("pods").
				VersionedParams(&metav1.ListOptions{ResourceVersion: "1", AllowWatchBookmarks: true}).
				WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			events := drain(t, w)
			if got := describe(events); got != tt.want {
				t.Errorf("events = %s\nwant     %s", got, tt.want)
			}
			switch err := w.Err(); {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Err() = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Err() = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.wantErr != "" {
				last := events[len(events)-1]
				if msg := last.Object.(*metav1.Status).Message; !strings.Contains(msg, tt.wantErr) {
					t.Errorf("ERROR event message = %q", msg)
				}
			}
		})
	}
}

func TestWatchErrorEventIsAPIError(t *testing.T) {
	tests := []struct {
		status string
		check  func(error) bool
	}{
		{status: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":410}`, check: apierrors.IsResourceExpired},
		{status: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"gone","reason":"Gone","code":410}`, check: apierrors.IsGone},
	}
	for _, tt := range tests {
		_, config := newTestServer(t, streamHandler(t, []string{`{"type":"ERROR","object":` + tt.status + `}`}, nil))
		c := newTestClient(t, config, "v1")
		w, err := c.Get().Resource("pods").WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		events := drain(t, w)
		if len(events) != 1 || !tt.check(apierrors.FromObject(events[0].Object)) {
			t.Errorf("events %s: check failed", describe(events))
		}
		if w.Err() != nil {
			t.Errorf("Err() = %v: an ERROR event from the server is not a broken stream", w.Err())
		}
	}
}

func TestWatchStopAndFailures(t *testing.T) {
	started := make(chan struct{})
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("resourceVersion") == "old" {
			writeJSON(w, 410, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":410}`)
			return
		}
		w.WriteHeader(200)
		_, _ = io.WriteString(w, podEvent("ADDED", "a", "1"))
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	})
	c := newTestClient(t, config, "v1")

	if _, err := c.Get().Resource("pods").Param("resourceVersion", "old").WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(context.Background()); !apierrors.IsResourceExpired(err) {
		t.Errorf("watch from an expired version: err = %v", err)
	}
	if _, err := c.Get().Resource("pods").Watch(context.Background()); err == nil || !strings.Contains(err.Error(), "no decoder") {
		t.Errorf("watch without decoder: err = %v", err)
	}

	w, err := c.Get().Resource("pods").WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Fatalf("first event %v", ev.Type)
	}
	w.Stop()
	w.Stop()
	if events := drain(t, w); len(events) != 0 {
		t.Errorf("events after Stop: %s", describe(events))
	}
	if w.Err() != nil {
		t.Errorf("Err() after Stop = %v", w.Err())
	}
}

func TestWatchContextCancelEndsQuietly(t *testing.T) {
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, config, "v1")
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Get().Resource("pods").WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if events := drain(t, w); len(events) != 0 || w.Err() != nil {
		t.Errorf("events %s, Err() %v", describe(events), w.Err())
	}
}

func TestSchemeDecoder(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	_, config := newTestServer(t, streamHandler(t, []string{podEvent("ADDED", "a", "1"),
		`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm"}}}`}, nil))
	c, err := NewClient(config, ClientOptions{GroupVersion: "v1", Decoder: runtime.NewSerializer(scheme, runtime.SerializerOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Get().Resource("pods").Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(drain(t, w)); got != "ADDED a@1, ADDED *v1.ConfigMap" {
		t.Errorf("events = %s", got)
	}
}

func TestStream(t *testing.T) {
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/namespaces/ns/pods/p/log" || r.URL.Query().Get("follow") != "true" {
			writeJSON(w, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","message":"nope","code":404}`)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		for i := range 3 {
			fmt.Fprintf(w, "line %d\n", i)
			w.(http.Flusher).Flush()
		}
	})
	c := newTestClient(t, config, "v1")
	rc, err := c.Get().Namespace("ns").Resource("pods").Name("p").SubResource("log").Param("follow", "true").Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != "line 0\nline 1\nline 2\n" {
		t.Errorf("log = %q, err %v", b, err)
	}
	if _, err := c.Get().Namespace("ns").Resource("pods").Name("q").SubResource("log").Stream(context.Background()); !apierrors.IsNotFound(err) {
		t.Errorf("err = %v, want NotFound", err)
	}
}
