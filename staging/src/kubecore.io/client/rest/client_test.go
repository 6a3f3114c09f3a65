package rest

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// newTestServer starts an HTTP/2 TLS server and returns a Config trusting it.
func newTestServer(t testing.TB, h http.HandlerFunc) (*httptest.Server, *Config) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv, &Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAData: ca}}
}

func newTestClient(t testing.TB, config *Config, gv string) *Client {
	t.Helper()
	c, err := NewClient(config, ClientOptions{GroupVersion: gv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// noSleep makes c's retries immediate and records the waits asked for.
func noSleep(c *Client) *[]time.Duration {
	var mu sync.Mutex
	waits := &[]time.Duration{}
	c.retry.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*waits = append(*waits, d)
		return ctx.Err()
	}
	return waits
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func TestGetInto(t *testing.T) {
	var got *http.Request
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		writeJSON(w, 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","resourceVersion":"7"}}`)
	})
	config.UserAgent = "test-agent/1"
	c := newTestClient(t, config, "v1")
	var pod corev1.Pod
	err := c.Get().Namespace("ns").Resource("pods").Name("p").
		VersionedParams(&metav1.GetOptions{ResourceVersion: "0"}).Param("pretty", "false").
		Do(context.Background()).Into(&pod)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "p" || pod.ResourceVersion != "7" {
		t.Errorf("pod = %+v", pod.ObjectMeta)
	}
	if got.URL.Path != "/api/v1/namespaces/ns/pods/p" || got.URL.Query().Get("resourceVersion") != "0" || got.URL.Query().Get("pretty") != "false" {
		t.Errorf("request URL = %s", got.URL)
	}
	if got.ProtoMajor != 2 {
		t.Errorf("protocol = %s, want HTTP/2", got.Proto)
	}
	if got.Header.Get("User-Agent") != "test-agent/1" || got.Header.Get("Accept") != "application/json" {
		t.Errorf("headers = %v", got.Header)
	}
}

func TestURL(t *testing.T) {
	config := &Config{Host: "https://h:6443/prefix"}
	tests := []struct {
		name string
		gv   string
		req  func(c *Client) *Request
		want string
	}{
		{name: "core namespaced", gv: "v1", req: func(c *Client) *Request { return c.Get().Namespace("a").Resource("pods").Name("p").SubResource("log") }, want: "https://h:6443/prefix/api/v1/namespaces/a/pods/p/log"},
		{name: "core all namespaces", gv: "v1", req: func(c *Client) *Request { return c.Get().Namespace("").Resource("pods") }, want: "https://h:6443/prefix/api/v1/pods"},
		{name: "named group", gv: "apps/v1", req: func(c *Client) *Request {
			return c.Put().Namespace("a").Resource("deployments").Name("d").SubResource("scale")
		}, want: "https://h:6443/prefix/apis/apps/v1/namespaces/a/deployments/d/scale"},
		{name: "cluster scoped", gv: "v1", req: func(c *Client) *Request { return c.Delete().Resource("nodes").Name("n1") }, want: "https://h:6443/prefix/api/v1/nodes/n1"},
		{name: "absolute path", gv: "", req: func(c *Client) *Request { return c.Get().AbsPath("/apis", "apps") }, want: "https://h:6443/prefix/apis/apps"},
		{name: "query", gv: "v1", req: func(c *Client) *Request {
			return c.Get().Resource("pods").VersionedParams(&metav1.ListOptions{LabelSelector: "app=web", Limit: 5})
		}, want: "https://h:6443/prefix/api/v1/pods?labelSelector=app%3Dweb&limit=5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, config, tt.gv)
			if got := tt.req(c).URL().String(); got != tt.want {
				t.Errorf("URL = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestBuilderErrors(t *testing.T) {
	c := newTestClient(t, &Config{Host: "https://h"}, "v1")
	tests := []struct {
		name string
		req  *Request
		want string
	}{
		{name: "empty name", req: c.Get().Resource("pods").Name(""), want: "resource name may not be empty"},
		{name: "slash in name", req: c.Get().Resource("pods").Name("a/b"), want: `resource name "a/b" may not contain`},
		{name: "dot-dot namespace", req: c.Get().Namespace("..").Resource("pods"), want: `namespace may not be ".."`},
		{name: "namespace twice", req: c.Get().Namespace("a").Namespace("b").Resource("pods"), want: `namespace already set to "a"`},
		{name: "namespace without resource", req: c.Get().Namespace("a"), want: "namespace was set without a resource"},
		{name: "unencodable body", req: c.Post().Resource("pods").Body(func() {}), want: "encode request body func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Do(context.Background()).Error()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestErrorResponses(t *testing.T) {
	tests := []struct {
		name        string
		verb        string
		code        int
		contentType string
		body        string
		check       func(error) bool
		wantMessage string
	}{
		{name: "not found Status", verb: "GET", code: 404, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"p\" not found","reason":"NotFound","details":{"name":"p","kind":"pods"},"code":404}`,
			check: apierrors.IsNotFound, wantMessage: `pods "p" not found`},
		{name: "conflict Status", verb: "PUT", code: 409, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"conflict","reason":"Conflict","code":409}`,
			check: apierrors.IsConflict, wantMessage: "conflict"},
		{name: "Status without code", verb: "GET", code: 410, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired"}`,
			check: func(err error) bool { return apierrors.IsResourceExpired(err) && statusCode(err) == 410 }, wantMessage: "too old resource version"},
		{name: "plain text 500", verb: "GET", code: 500, contentType: "text/plain", body: "etcd is down\n",
			check: apierrors.IsInternalError, wantMessage: `an error on the server ("etcd is down") has prevented the request from succeeding (get pods p)`},
		{name: "plain 404 from a proxy", verb: "GET", code: 404, contentType: "text/plain", body: "404 page not found",
			check: apierrors.IsNotFound, wantMessage: "the server could not find the requested resource (get pods p)"},
		{name: "binary 403", verb: "DELETE", code: 403, contentType: "application/octet-stream", body: "\x00\x01",
			check: apierrors.IsForbidden, wantMessage: "unknown"},
		{name: "2xx Failure Status", verb: "GET", code: 200, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"odd","reason":"BadRequest","code":400}`,
			check: apierrors.IsBadRequest, wantMessage: "odd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				ct := tt.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(tt.code)
				_, _ = io.WriteString(w, tt.body)
			})
			c := newTestClient(t, config, "v1")
			err := c.Verb(tt.verb).Namespace("ns").Resource("pods").Name("p").Do(context.Background()).Into(&corev1.Pod{})
			if err == nil || !tt.check(err) {
				t.Fatalf("err = %#v, check failed", err)
			}
			if !strings.Contains(err.Error(), tt.wantMessage) {
				t.Errorf("message = %q, want it to contain %q", err.Error(), tt.wantMessage)
			}
		})
	}
}

// TestErrorsThatPointAtTheConfig: a 401, or an answer that is not a
// Status (not an API server, or one spoken to the wrong way), names the
// request, the server and the config's source; the Status is still found
// by the predicates. Other Status errors are the server's word, unwrapped.
func TestErrorsThatPointAtTheConfig(t *testing.T) {
	tests := []struct {
		name        string
		code        int
		contentType string
		body        string
		check       func(error) bool
		wrapped     bool
		wantSuffix  string
	}{
		{name: "401 Status", code: 401, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`,
			check: apierrors.IsUnauthorized, wrapped: true, wantSuffix: ": Unauthorized"},
		{name: "400 text", code: 400, contentType: "text/plain", body: "Client sent an HTTP request\nto an HTTPS server.\n",
			check: apierrors.IsBadRequest, wrapped: true,
			wantSuffix: `: the server rejected our request for an unknown reason (get pods p) (the server said "Client sent an HTTP request to an HTTPS server.")`},
		{name: "404 from a web server", code: 404, contentType: "text/html", body: "<html>not here</html>",
			check: apierrors.IsNotFound, wrapped: true, wantSuffix: `(the server said "<html>not here</html>")`},
		{name: "500 text already in the message", code: 500, contentType: "text/plain", body: "etcd is down",
			check: apierrors.IsInternalError, wrapped: true, wantSuffix: `an error on the server ("etcd is down") has prevented the request from succeeding (get pods p)`},
		{name: "403 Status", code: 403, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"p\" is forbidden","reason":"Forbidden","code":403}`,
			check: apierrors.IsForbidden, wantSuffix: `pods "p" is forbidden`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				ct := tt.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(tt.code)
				_, _ = io.WriteString(w, tt.body)
			})
			config.Source = "kubeconfig /k: cluster \"c\""
			c := newTestClient(t, config, "v1")
			err := c.Get().Namespace("ns").Resource("pods").Name("p").Do(context.Background()).Into(&corev1.Pod{})
			if err == nil || !tt.check(err) {
				t.Fatalf("err = %#v, check failed", err)
			}
			msg := err.Error()
			prefix := "GET /api/v1/namespaces/ns/pods/p on server " + config.Host + " (from kubeconfig /k: cluster \"c\"): "
			if got := strings.HasPrefix(msg, prefix); got != tt.wrapped {
				t.Errorf("message %q: prefixed with the request and server = %v, want %v", msg, got, tt.wrapped)
			}
			if !strings.HasSuffix(msg, tt.wantSuffix) || strings.Contains(msg, "\n") {
				t.Errorf("message %q, want one line ending in %q", msg, tt.wantSuffix)
			}
		})
	}
}

func statusCode(err error) int32 {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Code
	}
	return 0
}

func TestSuccessStatusLeavesObject(t *testing.T) {
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"kind":"Status","apiVersion":"v1","status":"Success","details":{"name":"p","kind":"pods"}}`)
	})
	c := newTestClient(t, config, "v1")
	pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "keep"}}
	if err := c.Delete().Namespace("ns").Resource("pods").Name("p").Do(context.Background()).Into(&pod); err != nil {
		t.Fatal(err)
	}
	if pod.Name != "keep" {
		t.Errorf("pod overwritten: %+v", pod.ObjectMeta)
	}
	var status metav1.Status
	if err := c.Delete().Namespace("ns").Resource("pods").Name("p").Do(context.Background()).Into(&status); err != nil || status.Status != "Success" {
		t.Errorf("status = %+v, err %v", status, err)
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		verb       string
		failures   int
		code       int
		retryAfter string
		wantCalls  int
		wantErr    func(error) bool
		wantWaits  []time.Duration
	}{
		{name: "429 then success", verb: "GET", failures: 2, code: 429, retryAfter: "1", wantCalls: 3, wantWaits: []time.Duration{time.Second, time.Second}},
		{name: "429 on POST is retried", verb: "POST", failures: 1, code: 429, retryAfter: "0", wantCalls: 2, wantWaits: []time.Duration{0}},
		{name: "Retry-After is capped", verb: "GET", failures: 1, code: 429, retryAfter: "3600", wantCalls: 2, wantWaits: []time.Duration{10 * time.Second}},
		{name: "503 with Retry-After", verb: "PUT", failures: 1, code: 503, retryAfter: "2", wantCalls: 2, wantWaits: []time.Duration{2 * time.Second}},
		{name: "429 without Retry-After is not retried", verb: "GET", failures: 1, code: 429, wantCalls: 1, wantErr: apierrors.IsTooManyRequests},
		{name: "500 without Retry-After is not retried", verb: "GET", failures: 1, code: 500, wantCalls: 1, wantErr: apierrors.IsInternalError},
		{name: "retries are bounded", verb: "GET", failures: 100, code: 429, retryAfter: "1", wantCalls: 11, wantErr: func(err error) bool {
			n, ok := apierrors.SuggestsClientDelay(err)
			return apierrors.IsTooManyRequests(err) && ok && n == 1
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if r.Method == "POST" && string(body) != `{"x":1}` {
					t.Errorf("attempt %d body = %q", calls.Load(), body)
				}
				if int(calls.Add(1)) <= tt.failures {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					writeJSON(w, tt.code, fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":%q,"code":%d,"details":{"retryAfterSeconds":1}}`,
						map[int]string{429: "TooManyRequests", 503: "ServiceUnavailable", 500: "InternalError"}[tt.code], tt.code))
					return
				}
				writeJSON(w, 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}`)
			})
			c := newTestClient(t, config, "v1")
			waits := noSleep(c)
			req := c.Verb(tt.verb).Namespace("ns").Resource("pods")
			if tt.verb == "POST" {
				req.Body([]byte(`{"x":1}`))
			}
			err := req.Do(context.Background()).Into(&corev1.Pod{})
			if got := int(calls.Load()); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != nil && (err == nil || !tt.wantErr(err)):
				t.Fatalf("err = %#v, check failed", err)
			}
			if tt.wantWaits != nil && fmt.Sprint(*waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits = %v, want %v", *waits, tt.wantWaits)
			}
		})
	}
}

// cutOnceServer is an HTTP/1.1 server that drops the connection of the first
// request without answering.
func cutOnceServer(t *testing.T) (*Config, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.(*net.TCPConn).SetLinger(0) // reset, not a clean close
			conn.Close()
			return
		}
		writeJSON(w, 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}`)
	}))
	t.Cleanup(srv.Close)
	return &Config{Host: srv.URL}, &calls
}

func TestConnectionErrorRetriedForGETOnly(t *testing.T) {
	tests := []struct {
		verb      string
		wantCalls int32
		wantErr   bool
	}{
		{verb: "GET", wantCalls: 2},
		{verb: "POST", wantCalls: 1, wantErr: true},
		{verb: "DELETE", wantCalls: 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.verb, func(t *testing.T) {
			config, calls := cutOnceServer(t)
			c := newTestClient(t, config, "v1")
			noSleep(c)
			err := c.Verb(tt.verb).Namespace("ns").Resource("pods").Name("p").Do(context.Background()).Error()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "on server "+config.Host) {
				t.Errorf("error %q does not name the server", err)
			}
			if calls.Load() != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls.Load(), tt.wantCalls)
			}
		})
	}
}

func TestUnreachableServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cases := []struct {
		name, source, want string
	}{
		{"made in code", "", "GET /api/v1/nodes on server https://" + addr + ": dial tcp " + addr},
		{"from a kubeconfig", `kubeconfig /k/config: cluster "c"`,
			"GET /api/v1/nodes on server https://" + addr + ` (from kubeconfig /k/config: cluster "c"): dial tcp ` + addr},
	}
	for _, tc := range cases {
		c := newTestClient(t, &Config{Host: "https://" + addr, Source: tc.source, TLSClientConfig: TLSClientConfig{Insecure: true}}, "v1")
		start := time.Now()
		err = c.Get().Resource("nodes").Do(context.Background()).Error()
		if err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if !strings.HasPrefix(err.Error(), tc.want) || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("%s: err = %q, want it to start with %q and wrap ECONNREFUSED", tc.name, err, tc.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v to fail", tc.name, d)
		}
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	var gotTimeout atomic.Value
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotTimeout.Store(r.URL.Query().Get("timeout"))
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	tests := []struct {
		name      string
		config    time.Duration
		request   time.Duration
		wantParam string
	}{
		{name: "request timeout", request: 100 * time.Millisecond, wantParam: "100ms"},
		{name: "config timeout", config: 100 * time.Millisecond, wantParam: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := CopyConfig(config)
			cfg.Timeout = tt.config
			c := newTestClient(t, cfg, "v1")
			start := time.Now()
			err := c.Get().Resource("pods").Timeout(tt.request).Do(context.Background()).Error()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want a deadline error", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if got := gotTimeout.Load(); got != tt.wantParam {
				t.Errorf("timeout parameter = %q, want %q", got, tt.wantParam)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Warning", `299 - "unknown field \"spec.foo\""`)
		w.Header().Add("Warning", `299 kube-apiserver "deprecated", 199 - "second" "Wed, 21 Oct 2015 07:28:00 GMT"`)
		writeJSON(w, 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}`)
	})
	c := newTestClient(t, config, "v1")
	var got []string
	c.SetWarningHandler(WarningHandlerFunc(func(code int, agent, text string) {
		got = append(got, fmt.Sprintf("%d %s %s", code, agent, text))
	}))
	if err := c.Get().Resource("pods").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	want := `[299 - unknown field "spec.foo" 299 kube-apiserver deprecated 199 - second]`
	if fmt.Sprint(got) != want {
		t.Errorf("warnings = %v, want %s", got, want)
	}
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{in: `299 - "a"`, want: "[{299 - a}]"},
		{in: `299 - "a, b", 299 - "c"`, want: "[{299 - a, b} {299 - c}]"},
		{in: `299 - "unterminated`, want: "[]"},
		{in: `abc - "bad code", 299 - "ok"`, want: "[{299 - ok}]"},
		{in: `299`, want: "[]"},
		{in: ``, want: "[]"},
	}
	for _, tt := range tests {
		got := parseWarnings(tt.in)
		if s := fmt.Sprint(got); s != tt.want && !(len(got) == 0 && tt.want == "[]") {
			t.Errorf("parseWarnings(%q) = %s, want %s", tt.in, s, tt.want)
		}
	}
}

func TestClientRateLimit(t *testing.T) {
	_, config := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{}`)
	})
	config.QPS, config.Burst = 20, 1
	c := newTestClient(t, config, "v1")
	start := time.Now()
	for range 5 {
		if err := c.Get().Resource("pods").Do(context.Background()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	// 1 at once, then 4 at 20/s: at least 200 ms.
	if d := time.Since(start); d < 180*time.Millisecond {
		t.Errorf("5 requests at 20 QPS burst 1 took %v", d)
	}
	unlimited := newTestClient(t, &Config{Host: config.Host, TLSClientConfig: config.TLSClientConfig}, "v1")
	if unlimited.limiter != nil {
		t.Errorf("QPS 0 has a limiter")
	}
}

func TestNewClientErrors(t *testing.T) {
	tests := []struct {
		name   string
		config *Config
		gv     string
		want   string
	}{
		{name: "nil", config: nil, gv: "v1", want: "nil config"},
		{name: "no host", config: &Config{}, gv: "v1", want: "host: must be set"},
		{name: "bad group version", config: &Config{Host: "https://h"}, gv: "apps/", want: `group version "apps/"`},
		{name: "bad CA", config: &Config{Host: "https://h", TLSClientConfig: TLSClientConfig{CAData: []byte("junk")}}, gv: "v1", want: "transport for server https://h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(tt.config, ClientOptions{GroupVersion: tt.gv})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
