package rest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
)

// apiServer is an httptest server standing for one API server: it can be
// stopped and started again on the same address, and counts what it got.
type apiServer struct {
	t       *testing.T
	name    string
	addr    string
	handler http.Handler

	mu   sync.Mutex
	srv  *httptest.Server
	hits map[string]int // "METHOD path" -> count
}

func newAPIServer(t *testing.T, name string, handler http.HandlerFunc) *apiServer {
	t.Helper()
	s := &apiServer{t: t, name: name, hits: map[string]int{}}
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("X-Server", name)
		if handler != nil {
			handler(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success","message":"`+name+" "+string(body)+`"}`)
	})
	s.start()
	s.addr = s.srv.Listener.Addr().String()
	t.Cleanup(s.stop)
	return s
}

// start serves on s.addr (a free port the first time).
func (s *apiServer) start() {
	s.t.Helper()
	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(s.handler)
	srv.Listener = ln
	srv.Start()
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
}

// stop closes the listener and every connection, as a killed process does.
func (s *apiServer) stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.CloseClientConnections()
		srv.Close()
	}
}

func (s *apiServer) url() string { return "http://" + s.addr }

func (s *apiServer) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[key]
}

func failoverClient(t *testing.T, servers ...*apiServer) *Client {
	t.Helper()
	cfg := &Config{Host: servers[0].url()}
	for _, s := range servers[1:] {
		cfg.FailoverHosts = append(cfg.FailoverHosts, s.url())
	}
	c, err := RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.retry.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// answeredBy sends req and returns the server that answered.
func answeredBy(t *testing.T, req *Request) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := req.send(ctx)
	if err != nil {
		t.Fatalf("%s %s: %v", req.verb, req.URL(), err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Header.Get("X-Server")
}

func TestFailoverMovesToTheNextServerAndStays(t *testing.T) {
	a, b, c := newAPIServer(t, "a", nil), newAPIServer(t, "b", nil), newAPIServer(t, "c", nil)
	client := failoverClient(t, a, b, c)
	pods := func() *Request { return client.Get().Namespace("ns").Resource("pods") }

	if got := answeredBy(t, pods()); got != "a" {
		t.Fatalf("with every server up, answered by %s, want a (the first)", got)
	}
	a.stop()
	if got := answeredBy(t, pods()); got != "b" {
		t.Fatalf("a down: answered by %s, want b", got)
	}
	// a is back, but b is the server in use: it keeps the requests.
	a.start()
	for range 3 {
		if got := answeredBy(t, pods()); got != "b" {
			t.Fatalf("after the switch, answered by %s, want b (the server in use)", got)
		}
	}
	if n := a.count("GET /api/v1/namespaces/ns/pods"); n != 1 {
		t.Errorf("a got %d GETs, want 1 (before it went down)", n)
	}
	// b goes down: the list wraps around, past c's turn order, to c then a.
	b.stop()
	if got := answeredBy(t, pods()); got != "c" {
		t.Fatalf("b down: answered by %s, want c", got)
	}
	c.stop()
	if got := answeredBy(t, pods()); got != "a" {
		t.Fatalf("b and c down: answered by %s, want a", got)
	}
}

func TestFailoverWriteNotSentGoesToTheNextServer(t *testing.T) {
	a, b := newAPIServer(t, "a", nil), newAPIServer(t, "b", nil)
	client := failoverClient(t, a, b)
	a.stop()
	res := client.Post().Namespace("ns").Resource("configmaps").Body([]byte(`{"x":1}`)).Do(context.Background())
	body, err := res.Raw()
	if err != nil {
		t.Fatal(err)
	}
	// The body reached b whole, though the first attempt consumed it.
	if !strings.Contains(string(body), `b {\"x\":1}`) && !strings.Contains(string(body), `b {"x":1}`) {
		t.Errorf("POST answered %s, want b's answer with the body", body)
	}
}

// cutting answers nothing: it closes the connection once the request is
// read, so the client cannot know whether it was acted on.
func cutting(w http.ResponseWriter, r *http.Request) {
	_, _ = io.ReadAll(r.Body)
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}

func TestFailoverConnectionCutMovesReadsButNotWrites(t *testing.T) {
	a, b := newAPIServer(t, "a", cutting), newAPIServer(t, "b", nil)
	client := failoverClient(t, a, b)

	// A write whose connection broke after it was sent may have been
	// applied: it is not sent again, to b or to a.
	err := client.Post().Namespace("ns").Resource("configmaps").Body([]byte(`{}`)).Do(context.Background()).Error()
	if err == nil {
		t.Fatal("POST cut by a succeeded, want the connection error")
	}
	if n := b.count("POST /api/v1/namespaces/ns/configmaps"); n != 0 {
		t.Errorf("b got the POST cut by a %d times, want 0", n)
	}
	if n := a.count("POST /api/v1/namespaces/ns/configmaps"); n != 1 {
		t.Errorf("a got the POST %d times, want 1", n)
	}
	// A read is sent again, to b, which then serves the next requests.
	if got := answeredBy(t, client.Get().Namespace("ns").Resource("configmaps")); got != "b" {
		t.Fatalf("GET cut by a answered by %s, want b", got)
	}
	if got := answeredBy(t, client.Post().Namespace("ns").Resource("configmaps").Body([]byte(`{}`))); got != "b" {
		t.Fatalf("next POST answered by %s, want b (the server in use)", got)
	}
}

func TestFailoverEveryServerDown(t *testing.T) {
	a, b := newAPIServer(t, "a", nil), newAPIServer(t, "b", nil)
	client := failoverClient(t, a, b)
	a.stop()
	b.stop()
	err := client.Get().Resource("nodes").Do(context.Background()).Error()
	if err == nil {
		t.Fatal("GET with every server down succeeded")
	}
	for _, want := range []string{"GET /api/v1/nodes", "tried 2 API servers", a.addr, b.addr, "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestFailoverKeepsThePathPrefix(t *testing.T) {
	var got atomic.Value
	b := newAPIServer(t, "b", func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.URL.Path + "?" + r.URL.RawQuery + " host " + r.Host)
		_, _ = io.WriteString(w, `{}`)
	})
	a := newAPIServer(t, "a", nil)
	a.stop()
	cfg := &Config{Host: a.url() + "/front/", FailoverHosts: []string{b.url() + "/back"}}
	client, err := RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Get().Resource("nodes").Param("limit", "1").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if want := "/back/api/v1/nodes?limit=1 host " + b.addr; got.Load() != want {
		t.Errorf("b got %q, want %q", got.Load(), want)
	}
}

func TestFailoverConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Host: "https://a:6443", FailoverHosts: []string{"https://a:6443"}}, `host "https://a:6443": given twice`},
		{Config{Host: "https://a:6443", FailoverHosts: []string{"ftp://b"}}, `host "ftp://b": scheme must be http or https`},
		{Config{Host: "https://a:6443", FailoverHosts: []string{""}}, "host: must be set"},
		{Config{Host: "https://a:6443", FailoverHosts: []string{"http://b:8080"}}, `host "http://b:8080": scheme http differs from https of host "https://a:6443"`},
	} {
		_, err := TransportFor(&tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.cfg.FailoverHosts, err, tc.want)
		}
	}
	c := CopyConfig(&Config{Host: "a", FailoverHosts: []string{"b"}})
	if len(c.FailoverHosts) != 1 || c.FailoverHosts[0] != "b" {
		t.Errorf("CopyConfig lost FailoverHosts: %v", c.FailoverHosts)
	}
}

// TestFailoverWatch: a watch whose server dies ends with an error, and the
// next watch (what a reflector does) is served by another server.
func TestFailoverWatch(t *testing.T) {
	release := make(chan struct{})
	watchOn := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, podEvent("ADDED", "from-"+name, "1"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}
	a, b := newAPIServer(t, "a", watchOn("a")), newAPIServer(t, "b", watchOn("b"))
	defer close(release)
	client := failoverClient(t, a, b)
	open := func() watch.Interface {
		t.Helper()
		w, err := client.Get().Resource("pods").WatchObject(func() runtime.Object { return &corev1.Pod{} }).Watch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	first := func(w watch.Interface) string {
		t.Helper()
		select {
		case ev := <-w.ResultChan():
			if pod, ok := ev.Object.(*corev1.Pod); ok {
				return pod.Name
			}
			return string(ev.Type)
		case <-time.After(5 * time.Second):
			t.Fatal("no event in 5s")
		}
		return ""
	}

	w1 := open()
	defer w1.Stop()
	if got := first(w1); got != "from-a" {
		t.Fatalf("first watch: %s, want from-a", got)
	}
	a.stop()
	events := drain(t, w1)
	if len(events) != 1 || events[0].Type != watch.Error {
		t.Fatalf("watch on the killed server ended with %s, want one ERROR event", describe(events))
	}
	w2 := open()
	defer w2.Stop()
	if got := first(w2); got != "from-b" {
		t.Fatalf("watch after a died: %s, want from-b", got)
	}
}
