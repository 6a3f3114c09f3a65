// Package apiserver holds the API server's integration tests and benchmarks:
// `kubecore apiserver` in-process over one embedded etcd, driven over HTTPS.
package apiserver

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

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// testEtcd is the package's etcd, started by TestMain.
var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// response is a finished HTTP exchange.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// status decodes the body as a Status; it fails the test when it is not one.
func (r response) status(t *testing.T) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.body, &st); err != nil || st.Kind != "Status" || st.APIVersion != "v1" {
		t.Fatalf("response %d is not a Status (%v): %s", r.code, err, r.body)
	}
	return st
}

// request is one raw HTTP call against a test server.
type request struct {
	method, path string
	body         io.Reader
	contentType  string
	accept       string
}

// do runs req against s and reads the whole response.
func do(t *testing.T, c *http.Client, s *framework.APIServer, req request) response {
	t.Helper()
	return doCtx(context.Background(), t, c, s, req)
}

func doCtx(ctx context.Context, t *testing.T, c *http.Client, s *framework.APIServer, req request) response {
	t.Helper()
	r, err := tryDo(ctx, c, s, req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryDo is do for goroutines other than the test's: it returns the error.
func tryDo(ctx context.Context, c *http.Client, s *framework.APIServer, req request) (response, error) {
	r, err := http.NewRequestWithContext(ctx, req.method, s.URL+req.path, req.body)
	if err != nil {
		return response{}, err
	}
	if req.contentType != "" {
		r.Header.Set("Content-Type", req.contentType)
	}
	if req.accept != "" {
		r.Header.Set("Accept", req.accept)
	}
	resp, err := c.Do(r)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", req.method, req.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: read body: %w", req.method, req.path, err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: b}, nil
}

// jsonBody marshals v for a request body.
func jsonBody(t *testing.T, v any) io.Reader {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

// configMapJSON is a ConfigMap manifest.
func configMapJSON(ns, name string, data map[string]string) string {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"data":     data,
	})
	return string(b)
}

// wantStatus checks a failed response's code, reason and (when want.msg is
// set) that its message contains msg.
func wantStatus(t *testing.T, what string, r response, code int, reason metav1.StatusReason, msg string) metav1.Status {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: code %d, want %d: %s", what, r.code, code, r.body)
		return metav1.Status{}
	}
	st := r.status(t)
	if st.Status != metav1.StatusFailure || st.Code != int32(code) || st.Reason != reason {
		t.Errorf("%s: Status %s/%d/%s, want Failure/%d/%s: %s", what, st.Status, st.Code, st.Reason, code, reason, r.body)
	}
	if msg != "" && !strings.Contains(st.Message, msg) {
		t.Errorf("%s: message %q does not contain %q", what, st.Message, msg)
	}
	return st
}
