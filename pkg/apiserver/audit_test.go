package apiserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/apirequest"
)

// recordingSink keeps the events it is given.
type recordingSink struct {
	mu     sync.Mutex
	events []AuditEvent
}

func (r *recordingSink) Process(ev *AuditEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, *ev)
}

// of returns the events of one audit ID.
func (r *recordingSink) of(id string) []AuditEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []AuditEvent
	for _, ev := range r.events {
		if ev.AuditID == id {
			out = append(out, ev)
		}
	}
	return out
}

func TestAuditEvents(t *testing.T) {
	sink := &recordingSink{}
	ts, _ := newTestServer(t, func(c *Config) { c.Audit = sink })
	send := func(c call, header map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
		if !c.noAuth {
			req.Header.Set("X-Test-User", "admin")
		}
		req.Header.Set("User-Agent", "audit-test/1.0")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp
	}
	// one returns the single event of a response, by its Audit-Id.
	one := func(what string, resp *http.Response) AuditEvent {
		t.Helper()
		id := resp.Header.Get("Audit-Id")
		evs := sink.of(id)
		if id == "" || len(evs) != 1 {
			t.Fatalf("%s: Audit-Id %q has events %+v, want one", what, id, evs)
		}
		return evs[0]
	}

	before := time.Now()
	resp := send(call{method: "POST", path: widgetsPath, body: `{"metadata":{"name":"a"}}`}, map[string]string{"X-Forwarded-For": "10.1.2.3"})
	ev := one("create", resp)
	if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Level != "Metadata" || ev.Stage != AuditStageResponseComplete {
		t.Errorf("create: event header %+v", ev)
	}
	if ev.Verb != "create" || ev.RequestURI != widgetsPath || ev.UserAgent != "audit-test/1.0" || ev.ResponseStatus == nil || ev.ResponseStatus.Code != 201 {
		t.Errorf("create: event %+v", ev)
	}
	if want := (AuditObjectRef{Resource: "widgets", Namespace: "default", APIGroup: "test.kubecore.io", APIVersion: "v1"}); ev.ObjectRef == nil || *ev.ObjectRef != want {
		t.Errorf("create: objectRef %+v, want %+v", ev.ObjectRef, want)
	}
	if ev.User.Username != "admin" || !slices.Equal(ev.User.Groups, []string{"system:masters"}) || ev.ImpersonatedUser != nil {
		t.Errorf("create: user %+v impersonated %+v", ev.User, ev.ImpersonatedUser)
	}
	if !slices.Equal(ev.SourceIPs, []string{"10.1.2.3", "127.0.0.1"}) {
		t.Errorf("create: sourceIPs %v", ev.SourceIPs)
	}
	if ev.RequestReceivedTimestamp.Before(before.Truncate(time.Microsecond)) || ev.StageTimestamp.Before(ev.RequestReceivedTimestamp.Time) {
		t.Errorf("create: timestamps %s, %s", ev.RequestReceivedTimestamp, ev.StageTimestamp)
	}

	// A client's own audit ID is kept; a subresource and a refusal.
	resp = send(call{method: "GET", path: widgetsPath + "/a/status"}, map[string]string{"Audit-Id": "my-audit-id"})
	if resp.Header.Get("Audit-Id") != "my-audit-id" {
		t.Errorf("the client's Audit-Id came back as %q", resp.Header.Get("Audit-Id"))
	}
	if ev := one("get status", resp); ev.ObjectRef == nil || ev.ObjectRef.Name != "a" || ev.ObjectRef.Subresource != "status" || ev.Verb != "get" {
		t.Errorf("get status: %+v", ev)
	}
	ev = one("anonymous", send(call{method: "GET", path: widgetsPath, noAuth: true}, nil))
	if ev.ResponseStatus.Code != 401 || ev.User.Username != "" || ev.Verb != "list" {
		t.Errorf("anonymous: %+v", ev)
	}

	// Impersonation names both users.
	ev = one("impersonated", send(call{method: "GET", path: widgetsPath}, map[string]string{"Impersonate-User": "bob"}))
	if ev.User.Username != "admin" || ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != "bob" {
		t.Errorf("impersonated: user %+v impersonated %+v", ev.User, ev.ImpersonatedUser)
	}

	// A non-resource request has no objectRef; its verb is the method's.
	if ev = one("healthz", send(call{method: "GET", path: "/healthz", noAuth: true}, nil)); ev.ObjectRef != nil || ev.Verb != "get" || ev.ResponseStatus.Code != 200 {
		t.Errorf("healthz: %+v", ev)
	}

	// A watch is recorded when its response starts and when it ends.
	resp = send(call{method: "GET", path: widgetsPath + "?watch=1&timeoutSeconds=1"}, nil)
	evs := sink.of(resp.Header.Get("Audit-Id"))
	if len(evs) != 2 || evs[0].Stage != AuditStageResponseStarted || evs[1].Stage != AuditStageResponseComplete ||
		evs[0].Verb != "watch" || evs[1].ResponseStatus.Code != 200 || evs[1].StageTimestamp.Sub(evs[0].StageTimestamp.Time) < 900*time.Millisecond {
		t.Errorf("watch: events %+v", evs)
	}
}

// TestAuditEventJSON checks the wire names of an event.
func TestAuditEventJSON(t *testing.T) {
	sink := &recordingSink{}
	ts, _ := newTestServer(t, func(c *Config) { c.Audit = sink })
	resp, _ := do(t, ts, call{method: "GET", path: widgetsPath + "/x"})
	evs := sink.of(resp.Header.Get("Audit-Id"))
	if len(evs) != 1 {
		t.Fatalf("events %+v", evs)
	}
	b, err := json.Marshal(&evs[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kind", "apiVersion", "level", "auditID", "stage", "requestURI", "verb", "user", "sourceIPs", "userAgent", "objectRef", "responseStatus", "requestReceivedTimestamp", "stageTimestamp"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if s := m["stageTimestamp"].(string); len(s) != len("2006-01-02T15:04:05.000000Z") {
		t.Errorf("stageTimestamp %q is not RFC 3339 with microseconds", s)
	}
	if code := m["responseStatus"].(map[string]any)["code"]; code != float64(404) {
		t.Errorf("responseStatus.code %v", code)
	}
}

// readLines returns the lines of a file, each checked to be an event.
func readLines(t *testing.T, path string) []AuditEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Kind != "Event" {
			t.Fatalf("%s: line %q is no event: %v", path, sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

func testEvent(id string) *AuditEvent {
	return &AuditEvent{Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: "Metadata", AuditID: id, Stage: AuditStageResponseComplete,
		RequestURI: "/api/v1/namespaces/default/pods/" + id, Verb: "get", ResponseStatus: &AuditResponseStatus{Code: 200}}
}

// TestAuditLogRotation: the log is rotated before it grows past its size,
// only the newest backups are kept, and no event is cut in two.
func TestAuditLogRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	out, err := openAuditFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const maxBytes = 1000
	l := newAuditLog(out, maxBytes, 2)
	for i := range 100 {
		l.Process(testEvent(fmt.Sprintf("event-%d", i)))
		if i%10 == 9 {
			time.Sleep(5 * time.Millisecond) // let the writer work in several batches
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	backups, err := out.backups()
	if err != nil {
		t.Fatal(err)
	}
	if len(backups) != 2 {
		t.Fatalf("backups %v, want the newest 2", backups)
	}
	total := 0
	for _, p := range append(backups, path) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > maxBytes {
			t.Errorf("%s holds %d bytes, more than %d", p, st.Size(), maxBytes)
		}
		total += len(readLines(t, p))
	}
	if total == 0 || total >= 100 {
		t.Errorf("%d events in the kept files: want some, and fewer than the 100 written", total)
	}
	// Reopening appends to what is there.
	before := len(readLines(t, path))
	out, err = openAuditFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l = newAuditLog(out, 0, 0)
	l.Process(testEvent("after-reopen"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if evs := readLines(t, path); len(evs) != before+1 || evs[len(evs)-1].AuditID != "after-reopen" {
		t.Errorf("after reopening: %d events, want %d ending with after-reopen", len(evs), before+1)
	}
}

// blockingWriter stands for a disk that does not answer until released.
type blockingWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     strings.Builder
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// TestAuditLogDoesNotBlock: with the disk stuck, Process returns at once
// and drops what does not fit; Close writes everything queued.
func TestAuditLogDoesNotBlock(t *testing.T) {
	w := &blockingWriter{release: make(chan struct{})}
	l := newAuditLog(&auditFile{path: "stuck", w: w}, 0, 0)
	n := auditBufferSize + 500
	start := time.Now()
	for i := range n {
		l.Process(testEvent(fmt.Sprintf("event-%d", i)))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("%d events took %s to queue on a stuck disk", n, d)
	}
	// The writer holds what its buffer took before it blocked; the queue
	// the next auditBufferSize.
	if got := l.Dropped(); got == 0 || got > int64(n-auditBufferSize) {
		t.Errorf("dropped %d, want some and at most %d", got, n-auditBufferSize)
	}
	close(w.release)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	lines := strings.Count(w.buf.String(), "\n")
	w.mu.Unlock()
	if want := n - int(l.Dropped()); lines != want {
		t.Errorf("%d lines written, want every queued event: %d", lines, want)
	}
	l.Process(testEvent("late")) // after Close: dropped, no panic
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// flakyWriter fails its first write, as a full disk would, then works.
type flakyWriter struct {
	failed atomic.Bool
	buf    strings.Builder
}

func (f *flakyWriter) Write(p []byte) (int, error) {
	if f.failed.CompareAndSwap(false, true) {
		return 0, errors.New("no space left on device")
	}
	return f.buf.Write(p)
}

// TestAuditLogWriteError: a failed write loses its events, is returned
// by Close, and writing resumes after it.
func TestAuditLogWriteError(t *testing.T) {
	w := &flakyWriter{}
	l := newAuditLog(&auditFile{path: "flaky", w: w}, 0, 0)
	l.Process(testEvent("lost"))
	for !w.failed.Load() {
		time.Sleep(time.Millisecond)
	}
	l.Process(testEvent("kept"))
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Close: %v, want the write error", err)
	}
	if got := w.buf.String(); !strings.Contains(got, `"auditID":"kept"`) || strings.Contains(got, `"auditID":"lost"`) {
		t.Errorf("written after the error: %q, want only the event kept", got)
	}
}

// TestAuditAnnotations: what the handling of a request annotates is in its
// audit event, the first value of a key kept.
func TestAuditAnnotations(t *testing.T) {
	sink := &recordingSink{}
	s := &Server{cfg: &completedConfig{Config{Audit: sink}}}
	h := s.withAudit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apirequest.AddAuditAnnotation(r.Context(), "hook.example.com/decision", "allowed")
		apirequest.AddAuditAnnotation(r.Context(), "hook.example.com/decision", "second")
		w.WriteHeader(http.StatusCreated)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", nil))
	evs := sink.of(rec.Header().Get("Audit-Id"))
	if len(evs) != 1 || evs[0].Annotations["hook.example.com/decision"] != "allowed" || len(evs[0].Annotations) != 1 {
		t.Errorf("events %+v", evs)
	}
}
