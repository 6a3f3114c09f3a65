package apiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestGracefulShutdown: when the server's context ends (what SIGTERM does
// to `kubecore apiserver`), open watches end cleanly (the stream is
// terminated, not cut), requests in flight complete, Run returns without
// error, and nothing listens any more. That /readyz fails first, while
// the server still serves, needs a shutdown delay, which `kubecore
// apiserver` does not offer yet (Kubernetes' --shutdown-delay-duration):
// pkg/apiserver's TestShutdownDelay covers it.
func TestGracefulShutdown(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "shutdown")
	coll := "/api/v1/namespaces/" + ns + "/configmaps"
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}

	// A watch, and a create whose body is still on its way.
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	w := openWatch(wctx, t, c, s, coll+"?watch=true")
	body, bodyW := io.Pipe()
	defer bodyW.Close()
	inflight := make(chan response, 1)
	inflightErr := make(chan error, 1)
	go func() {
		r, err := tryDo(context.Background(), c, s, request{method: http.MethodPost, path: coll, contentType: contentJSON, body: body})
		if err != nil {
			inflightErr <- err
			return
		}
		inflight <- r
	}()
	manifest := configMapJSON(ns, "inflight", map[string]string{"k": "v"})
	if _, err := io.WriteString(bodyW, manifest[:10]); err != nil {
		t.Fatal(err)
	}
	// The request is in the server once its handler reads the first bytes;
	// give it a moment to get there.
	time.Sleep(200 * time.Millisecond)

	s.Cancel()
	cancelledAt := time.Now()

	// The watch ends with a clean end of stream.
	watchEnd := make(chan error, 1)
	go func() {
		for {
			if _, err := w.next(); err != nil {
				watchEnd <- err
				return
			}
		}
	}()
	select {
	case err := <-watchEnd:
		if !errors.Is(err, io.EOF) {
			t.Errorf("the watch ended with %v, want a clean end of stream", err)
		}
		t.Logf("the watch ended %v after the shutdown began", time.Since(cancelledAt))
	case <-time.After(10 * time.Second):
		t.Fatalf("the watch did not end within 10s of the shutdown")
	}

	// The request in flight completes.
	if _, err := io.WriteString(bodyW, manifest[10:]); err != nil {
		t.Fatalf("finish the body of the request in flight: %v", err)
	}
	_ = bodyW.Close()
	select {
	case r := <-inflight:
		if r.code != http.StatusCreated {
			t.Errorf("the request in flight: %d %s, want 201", r.code, r.body)
		}
	case err := <-inflightErr:
		t.Errorf("the request in flight failed: %v", err)
	case <-time.After(20 * time.Second):
		t.Errorf("the request in flight did not complete within 20s")
	}

	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatalf("Run did not return within 30s of the shutdown")
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Run returned %v, want nil after a graceful shutdown", err)
	}
	if conn, err := tls.Dial("tcp", u.Host, &tls.Config{InsecureSkipVerify: true}); err == nil {
		_ = conn.Close()
		t.Errorf("%s still accepts connections after the shutdown", u.Host)
	}
	if got, err := readyzGone(u.Host); err == nil {
		t.Errorf("/readyz answered %d after the shutdown", got)
	}
}

// readyzGone asks /readyz on a new connection; an error is expected.
func readyzGone(host string) (int, error) {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Get("https://" + host + "/readyz")
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
