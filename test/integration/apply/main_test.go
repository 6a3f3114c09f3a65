// Package apply tests server-side apply and managedFields end to end:
// `kubecore apiserver` in-process over one embedded etcd, driven over HTTPS
// with raw requests, as kubectl and client-go send them.
package apply

import (
	"bytes"
	"encoding/json"
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

// client sends raw requests to one API server.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T, s *framework.APIServer) *client {
	return &client{t: t, base: s.URL, http: s.HTTPClient(t)}
}

// response is a finished HTTP exchange.
type response struct {
	code   int
	header http.Header
	body   []byte
}

func (c *client) do(method, path, contentType, body string) response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", "apply-test/v0.0.0 (linux/amd64)")
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

// apply sends an apply patch of body to path with the query.
func (c *client) apply(path, query, body string) response {
	c.t.Helper()
	return c.do(http.MethodPatch, path+"?"+query, "application/apply-patch+yaml", body)
}

// object decodes the body as a JSON object.
func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response %d is not JSON: %v: %s", r.code, err, r.body)
	}
	return m
}

// status decodes the body as a Status.
func (r response) status(t *testing.T) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.body, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("response %d is not a Status (%v): %s", r.code, err, r.body)
	}
	return st
}

// expect fails the test unless the response has the code.
func (r response) expect(t *testing.T, code int) response {
	t.Helper()
	if r.code != code {
		t.Fatalf("got %d, want %d: %s", r.code, code, r.body)
	}
	return r
}

// managers returns the managedFields entries of obj as "manager/operation[/subresource]".
func managers(obj map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	meta, _ := obj["metadata"].(map[string]any)
	entries, _ := meta["managedFields"].([]any)
	for _, e := range entries {
		m := e.(map[string]any)
		key := m["manager"].(string) + "/" + m["operation"].(string)
		if sub, _ := m["subresource"].(string); sub != "" {
			key += "/" + sub
		}
		out[key] = m
	}
	return out
}

// owns reports whether the entry's fieldsV1 mentions every key (as
// "f:name" or "k:{...}" fragments) in its JSON.
func owns(entry map[string]any, fragments ...string) bool {
	data, _ := json.Marshal(entry["fieldsV1"])
	for _, f := range fragments {
		if !bytes.Contains(data, []byte(f)) {
			return false
		}
	}
	return true
}

// get walks obj along the keys.
func get(obj any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := obj.(map[string]any)
			if !ok {
				return nil
			}
			obj = m[k]
		case int:
			l, ok := obj.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			obj = l[k]
		}
	}
	return obj
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
