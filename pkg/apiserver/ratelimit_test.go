package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
)

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func newFakeClock() *fakeClock            { return &fakeClock{t: time.Unix(1_000_000, 0)} }
func (c *fakeClock) now() time.Time       { return c.t }
func (c *fakeClock) step(d time.Duration) { c.t = c.t.Add(d) }

// takeN tries n requests of user u and returns how many were allowed.
func takeN(l *userRateLimiter, u string, n int) (ok int) {
	for range n {
		if got, _ := l.take(u); got {
			ok++
		}
	}
	return ok
}

func TestUserRateLimiterBucket(t *testing.T) {
	clk := newFakeClock()
	l := newUserRateLimiter(10, 5, clk.now)
	if got := takeN(l, "alice", 8); got != 5 {
		t.Fatalf("a burst of 8 with burst 5: %d allowed", got)
	}
	ok, wait := l.take("alice")
	if ok || wait != 100*time.Millisecond {
		t.Errorf("empty bucket: ok=%v wait=%s, want refused for 100ms", ok, wait)
	}
	// Another user has a bucket of its own.
	if got := takeN(l, "bob", 5); got != 5 {
		t.Errorf("bob: %d of 5 allowed", got)
	}
	// 10/s refills one token every 100 ms, never beyond the burst.
	clk.step(250 * time.Millisecond)
	if got := takeN(l, "alice", 5); got != 2 {
		t.Errorf("after 250ms: %d allowed, want 2", got)
	}
	ok, wait = l.take("alice")
	if ok || wait != 50*time.Millisecond {
		t.Errorf("half a token left: ok=%v wait=%s, want refused for 50ms", ok, wait)
	}
	clk.step(time.Hour)
	if got := takeN(l, "alice", 10); got != 5 {
		t.Errorf("after an hour idle: %d allowed, want the burst, 5", got)
	}
}

// TestUserRateLimiterReclaimsIdleBuckets: the buckets of users gone quiet
// are dropped, those still draining are kept, so memory follows the
// users active lately.
func TestUserRateLimiterReclaimsIdleBuckets(t *testing.T) {
	clk := newFakeClock()
	l := newUserRateLimiter(1, 2, clk.now) // a bucket fills up again in 2s
	for i := range 1000 {
		l.take(fmt.Sprintf("user-%d", i))
	}
	if l.size() != 1000 {
		t.Fatalf("%d buckets, want 1000", l.size())
	}
	clk.step(sweepInterval - time.Second)
	takeN(l, "busy", 3)
	if l.size() != 1001 {
		t.Fatalf("swept before the interval: %d buckets", l.size())
	}
	clk.step(time.Second)
	l.take("busy") // the sweep runs on a take once the interval passed
	if l.size() != 1 {
		t.Errorf("%d buckets after the sweep, want only the busy user's", l.size())
	}
	if ok, _ := l.take("busy"); ok {
		t.Error("the sweep refilled the busy user's bucket")
	}
}

func TestRateLimitExempt(t *testing.T) {
	for _, c := range []struct {
		user   apirequest.UserInfo
		exempt bool
	}{
		{apirequest.UserInfo{Name: "admin", Groups: []string{"system:masters"}}, true},
		{apirequest.UserInfo{Name: "system:node:n1", Groups: []string{"system:nodes", "system:authenticated"}}, true},
		{apirequest.UserInfo{Name: "system:kube-scheduler"}, true},
		{apirequest.UserInfo{Name: "system:kube-controller-manager"}, true},
		{apirequest.UserInfo{Name: "system:serviceaccount:kube-system:default", Groups: []string{"system:serviceaccounts"}}, false},
		{apirequest.UserInfo{Name: "alice", Groups: []string{"devs", "system:authenticated"}}, false},
	} {
		if got := rateLimitExempt(&c.user); got != c.exempt {
			t.Errorf("%s %v: exempt %v, want %v", c.user.Name, c.user.Groups, got, c.exempt)
		}
	}
}

// TestUserRateLimitFilter: beyond its burst a user gets 429 with a
// Retry-After, while another user, an administrator and health checks go
// on being served.
func TestUserRateLimitFilter(t *testing.T) {
	ts, _ := newTestServer(t, func(c *Config) {
		c.MaxRequestsPerUserPerSecond = 0.5
		c.MaxRequestsPerUserBurst = 3
	})
	get := func(user, group, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		if user != "" {
			req.Header.Set("X-Test-User", user)
			req.Header.Set("X-Test-Group", group)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	for i := range 3 {
		if r := get("alice", "devs", widgetsPath); r.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("request %d within the burst refused", i)
		}
	}
	r := get("alice", "devs", widgetsPath)
	if r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("request beyond the burst: %d, want 429", r.StatusCode)
	}
	if ra := r.Header.Get("Retry-After"); ra != "2" {
		t.Errorf("Retry-After %q, want 2 (one token at 0.5/s)", ra)
	}
	var st metav1.Status
	if err := json.NewDecoder(r.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Kind != "Status" || st.Reason != metav1.StatusReasonTooManyRequests || st.Code != 429 || st.Details == nil || st.Details.RetryAfterSeconds != 2 {
		t.Errorf("status %+v, want TooManyRequests with retryAfterSeconds 2", st)
	}
	if r := get("bob", "devs", widgetsPath); r.StatusCode == http.StatusTooManyRequests {
		t.Error("another user was refused")
	}
	for range 10 {
		if r := get("admin", "system:masters", widgetsPath); r.StatusCode == http.StatusTooManyRequests {
			t.Fatal("system:masters was rate limited")
		}
		if r := get("alice", "devs", "/healthz"); r.StatusCode != http.StatusOK {
			t.Fatalf("/healthz for a limited user: %d", r.StatusCode)
		}
	}
}

func TestRateLimitConfig(t *testing.T) {
	cc, err := Config{Scheme: newTestScheme(), MaxRequestsPerUserPerSecond: 2.5}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	if cc.MaxRequestsPerUserBurst != 5 {
		t.Errorf("default burst %d, want twice the rate, 5", cc.MaxRequestsPerUserBurst)
	}
	for _, bad := range []Config{
		{Scheme: newTestScheme(), MaxRequestsPerUserPerSecond: -1},
		{Scheme: newTestScheme(), MaxRequestsPerUserPerSecond: 1, MaxRequestsPerUserBurst: -2},
	} {
		if _, err := bad.Complete(); err == nil {
			t.Errorf("%g/s burst %d accepted", bad.MaxRequestsPerUserPerSecond, bad.MaxRequestsPerUserBurst)
		}
	}
}
