package apiserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/runtime"
)

// TestShutdownDelay: once shutdown begins, the server goes on serving for
// ShutdownDelay with /readyz failing (and /livez passing), so that load
// balancers stop sending it traffic before it stops listening; then Run
// returns and nothing listens.
func TestShutdownDelay(t *testing.T) {
	const delay = 500 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cc, err := Config{Scheme: runtime.NewScheme(), Listener: ln, Authenticator: headerAuth{}, ShutdownDelay: delay}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	<-s.Ready()
	base := "http://" + s.Addr().String()
	get := func(path string) (int, string, error) {
		c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get(base + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	if code, body, err := get("/readyz"); err != nil || code != http.StatusOK {
		t.Fatalf("/readyz before the shutdown: %d %s %v", code, body, err)
	}

	cancel()
	began := time.Now()
	time.Sleep(delay / 5)
	code, body, err := get("/readyz?verbose")
	if err != nil || code != http.StatusInternalServerError || !strings.Contains(body, "[-]shutdown failed") {
		t.Errorf("/readyz during the shutdown delay: %d %q %v, want 500 with [-]shutdown failed", code, body, err)
	}
	if code, body, err := get("/livez"); err != nil || code != http.StatusOK {
		t.Errorf("/livez during the shutdown delay: %d %q %v, want 200", code, body, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		if took := time.Since(began); took < delay-delay/5 {
			t.Errorf("Run returned %v after the shutdown began, before the %v delay", took, delay)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if _, _, err := get("/livez"); err == nil {
		t.Errorf("the server still answers after Run returned")
	}
}
