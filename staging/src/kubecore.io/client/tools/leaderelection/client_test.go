package leaderelection

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"
)

// TestNewLeaseClientIsItsOwn: the Lease client sends its requests on a
// connection of its own, with a leader-election User-Agent, and is not held
// back by the component's exhausted rate limiter.
func TestNewLeaseClientIsItsOwn(t *testing.T) {
	var (
		mu     sync.Mutex
		agents = map[string]string{} // remote address -> User-Agent
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.RemoteAddr] = r.UserAgent()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Path, "/leases/") {
			_, _ = w.Write([]byte(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l","namespace":"ns"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}}`))
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, UserAgent: "component", QPS: 0.001, Burst: 1}

	component, err := typed.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The component spends its only token: its next request would wait
	// about 1000 s.
	if _, err := component.CoreV1().Namespaces().Get(ctx, "ns", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	leases, err := NewLeaseClient(cfg, "ns")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := leases.Get(ctx, "l", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 2 {
		t.Fatalf("requests came on %d connections, want 2 (the component's, the Lease client's): %v", len(agents), agents)
	}
	var seen []string
	for addr, ua := range agents {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ua)
	}
	if !(seen[0] == "component" && seen[1] == "component/leader-election" || seen[1] == "component" && seen[0] == "component/leader-election") {
		t.Errorf("User-Agents %q, want component and component/leader-election", seen)
	}
	if cfg.QPS != 0.001 || cfg.UserAgent != "component" {
		t.Errorf("NewLeaseClient changed the component's config: %+v", cfg)
	}
}
