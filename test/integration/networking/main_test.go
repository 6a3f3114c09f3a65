// Package networking holds the integration tests of networking.k8s.io and
// of the Service allocators behind it: API servers in-process over one
// embedded etcd.
package networking

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

// testEtcd is the package's etcd, started by TestMain.
var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// call sends a JSON request (body may be nil) and decodes the answer
// into out when out is not nil; it returns the status code and body.
func call(ctx context.Context, c *http.Client, s *framework.APIServer, method, path string, body any, out any) (int, []byte, error) {
	contentType := "application/json"
	if method == "PATCH" {
		contentType = "application/merge-patch+json"
	}
	var r io.Reader
	if raw, ok := body.(string); ok {
		r = strings.NewReader(raw)
	} else if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, b, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, b, nil
}

// mustCall is call that fails the test on an error or an unexpected code.
func mustCall(t testing.TB, c *http.Client, s *framework.APIServer, method, path string, body any, want int, out any) []byte {
	t.Helper()
	code, b, err := call(context.Background(), c, s, method, path, body, out)
	if err != nil {
		t.Fatal(err)
	}
	if code != want {
		t.Fatalf("%s %s: code %d, want %d: %s", method, path, code, want, b)
	}
	return b
}
