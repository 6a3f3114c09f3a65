package apiserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	authz "kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// allowAll allows every request.
type allowAll struct{}

func (allowAll) Authorize(context.Context, authz.Attributes) (authz.Decision, string, error) {
	return authz.Allow, "", nil
}

// TestMaxInFlight: a request beyond the read-only limit gets 429 with
// Retry-After while another holds the only slot; system:masters is not
// counted.
func TestMaxInFlight(t *testing.T) {
	ts, _ := newTestServer(t, func(c *Config) {
		c.MaxRequestsInFlight = 1
		c.Authorizer = allowAll{}
	})
	get := func(user, group, name string) (*http.Response, string) {
		return getAs(t, ts, user, group, widgetsPath+"/"+name)
	}
	var wg sync.WaitGroup
	wg.Go(func() { get("alice", "devs", "slow") }) // holds the slot for 1s
	time.Sleep(200 * time.Millisecond)
	resp, body := get("bob", "devs", "x")
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("second request in flight: %v %s, want 429 with Retry-After: 1", resp, body)
	}
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Reason != metav1.StatusReasonTooManyRequests || st.Code != 429 {
		t.Errorf("body %s is not a TooManyRequests Status", body)
	}
	if resp, body := get("admin", "system:masters", "x"); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("system:masters while the slot is taken: %v %s, want 404", resp, body)
	}
	wg.Wait()
	if resp, body := get("bob", "devs", "x"); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the slot is free: %v %s, want 404", resp, body)
	}
}

// filler is n bytes of 'x'.
type filler struct{ left int }

func (f *filler) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), f.left)
	for i := range n {
		p[i] = 'x'
	}
	f.left -= n
	return n, nil
}

// countingBody counts what the server reads of a request body.
type countingBody struct {
	io.ReadCloser
	read *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// TestBodyLimit: a 10 MiB body is refused with 413 RequestEntityTooLarge
// without being read: not at all when its length is announced, not past
// the limit when it is streamed.
func TestBodyLimit(t *testing.T) {
	cc, err := Config{
		Scheme:        newTestScheme(),
		Groups:        []APIGroupInfo{{GroupVersion: testGV, Storage: map[string]rest.Storage{"widgets": newMemStore()}}},
		Authenticator: headerAuth{},
	}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cc)
	if err != nil {
		t.Fatal(err)
	}
	var read atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = countingBody{r.Body, &read}
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	const size = 10 << 20
	for _, announced := range []bool{false, true} {
		read.Store(0)
		prefix := `{"metadata":{"name":"big"},"x":"`
		req, err := http.NewRequest(http.MethodPost, ts.URL+widgetsPath, io.MultiReader(strings.NewReader(prefix), &filler{left: size}))
		if err != nil {
			t.Fatal(err)
		}
		if announced {
			req.ContentLength = int64(len(prefix) + size)
		}
		req.Header.Set("X-Test-User", "admin")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("announced=%v: %v", announced, err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var st metav1.Status
		if resp.StatusCode != http.StatusRequestEntityTooLarge || json.Unmarshal(b, &st) != nil || st.Reason != metav1.StatusReasonRequestEntityTooLarge {
			t.Errorf("announced=%v: %d %s, want 413 RequestEntityTooLarge", announced, resp.StatusCode, b)
		}
		limit := int64(0)
		if !announced {
			limit = DefaultMaxRequestBodyBytes + 1
		}
		if n := read.Load(); n > limit {
			t.Errorf("announced=%v: the server read %d bytes of the body, want at most %d", announced, n, limit)
		}
	}
}

// getAs GETs path from ts as user in group (the headers the test
// authenticator reads), returning the response and its body; a transport
// error fails the test and returns nil.
func getAs(t *testing.T, ts *httptest.Server, user, group, path string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	req.Header.Set("X-Test-User", user)
	req.Header.Set("X-Test-Group", group)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil, ""
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
