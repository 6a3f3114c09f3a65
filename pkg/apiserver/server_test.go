package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// headerAuth trusts an X-Test-User header (tests only); the user is in
// the groups of X-Test-Group, system:masters when there is none.
type headerAuth struct{}

func (headerAuth) AuthenticateRequest(r *http.Request) (*apirequest.UserInfo, bool, error) {
	if u := r.Header.Get("X-Test-User"); u != "" {
		groups := r.Header.Values("X-Test-Group")
		if len(groups) == 0 {
			groups = []string{"system:masters"}
		}
		return &apirequest.UserInfo{Name: u, Groups: groups}, true, nil
	}
	return nil, false, nil
}

func newTestServer(t *testing.T, mutate func(*Config)) (*httptest.Server, *memStore) {
	t.Helper()
	st := newMemStore()
	cfg := Config{
		Scheme:        newTestScheme(),
		Groups:        []APIGroupInfo{{GroupVersion: testGV, Storage: map[string]rest.Storage{"widgets": st}}},
		Authenticator: headerAuth{},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	cc, err := cfg.Complete()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cc)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts, st
}

type call struct {
	method, path, body, contentType, accept string
	noAuth                                  bool
}

func do(t *testing.T, ts *httptest.Server, c call) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if !c.noAuth {
		req.Header.Set("X-Test-User", "admin")
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	if c.accept != "" {
		req.Header.Set("Accept", c.accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const widgetsPath = "/apis/test.kubecore.io/v1/namespaces/default/widgets"

func TestRequests(t *testing.T) {
	ts, _ := newTestServer(t, nil)
	steps := []struct {
		name     string
		call     call
		code     int
		contains []string
		header   [2]string
	}{
		{"unauthenticated", call{method: "GET", path: widgetsPath, noAuth: true}, 401, []string{`"reason":"Unauthorized"`, `"kind":"Status"`}, [2]string{}},
		{"healthz without auth", call{method: "GET", path: "/healthz", noAuth: true}, 200, []string{"ok"}, [2]string{}},
		{"version without auth", call{method: "GET", path: "/version", noAuth: true}, 200, []string{`"gitVersion"`}, [2]string{}},
		{"create", call{method: "POST", path: widgetsPath, body: `{"apiVersion":"test.kubecore.io/v1","kind":"Widget","metadata":{"name":"a","labels":{"x":"1"}},"spec":{"size":1,"items":[{"name":"i1","value":"v1"}]}}`}, 201, []string{`"namespace":"default"`, `"color":"blue"`}, [2]string{}},
		{"create yaml", call{method: "POST", path: widgetsPath, contentType: "application/yaml", body: "apiVersion: test.kubecore.io/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  size: 2\n"}, 201, []string{`"name":"b"`}, [2]string{}},
		{"create exists", call{method: "POST", path: widgetsPath, body: `{"metadata":{"name":"a"}}`}, 409, []string{`"reason":"AlreadyExists"`}, [2]string{}},
		{"create dry run", call{method: "POST", path: widgetsPath + "?dryRun=All", body: `{"metadata":{"name":"dry"}}`}, 201, []string{`"name":"dry"`}, [2]string{}},
		{"dry run not stored", call{method: "GET", path: widgetsPath + "/dry"}, 404, []string{`"reason":"NotFound"`}, [2]string{}},
		{"bad dry run", call{method: "POST", path: widgetsPath + "?dryRun=Some", body: `{"metadata":{"name":"x"}}`}, 422, []string{`CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value`}, [2]string{}},
		{"malformed", call{method: "POST", path: widgetsPath, body: `{"metadata":`}, 400, []string{`"reason":"BadRequest"`, "cannot be handled as a Widget"}, [2]string{}},
		{"wrong version", call{method: "POST", path: widgetsPath, body: `{"apiVersion":"v1","kind":"Widget","metadata":{"name":"x"}}`}, 400, []string{`"reason":"BadRequest"`, "test.kubecore.io/v1"}, [2]string{}},
		{"namespace mismatch", call{method: "POST", path: widgetsPath, body: `{"metadata":{"name":"x","namespace":"other"}}`}, 400, []string{"does not match the namespace sent on the request"}, [2]string{}},
		{"strict", call{method: "POST", path: widgetsPath + "?fieldValidation=Strict", body: `{"metadata":{"name":"s"},"spec":{"foo":1}}`}, 400, []string{`unknown field \"spec.foo\"`}, [2]string{}},
		{"warn", call{method: "POST", path: widgetsPath + "?fieldValidation=Warn", body: `{"metadata":{"name":"w"},"spec":{"foo":1}}`}, 201, nil, [2]string{"Warning", `299 - "unknown field \"spec.foo\""`}},
		{"ignore", call{method: "POST", path: widgetsPath + "?fieldValidation=Ignore", body: `{"metadata":{"name":"ig"},"spec":{"foo":1}}`}, 201, nil, [2]string{}},
		{"too large", call{method: "POST", path: widgetsPath, body: `{"metadata":{"name":"big","annotations":{"a":"` + strings.Repeat("x", 3*1024*1024) + `"}}}`}, 413, []string{`"reason":"RequestEntityTooLarge"`}, [2]string{}},
		{"get", call{method: "GET", path: widgetsPath + "/a"}, 200, []string{`"kind":"Widget"`, `"apiVersion":"test.kubecore.io/v1"`}, [2]string{"Content-Type", "application/json"}},
		{"get table", call{method: "GET", path: widgetsPath + "/a", accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}, 200, []string{`"kind":"Table"`, `"cells":["a",1]`, `"kind":"PartialObjectMetadata"`}, [2]string{}},
		{"protobuf falls back", call{method: "GET", path: widgetsPath + "/a", accept: "application/vnd.kubernetes.protobuf, application/json"}, 200, []string{`"kind":"Widget"`}, [2]string{}},
		{"not acceptable", call{method: "GET", path: widgetsPath + "/a", accept: "application/vnd.kubernetes.protobuf"}, 406, []string{`"reason":"NotAcceptable"`}, [2]string{}},
		{"panic", call{method: "GET", path: widgetsPath + "/panic"}, 500, []string{`"reason":"InternalError"`}, [2]string{}},
		{"alive after panic", call{method: "GET", path: widgetsPath + "/a"}, 200, nil, [2]string{}},
		{"list", call{method: "GET", path: widgetsPath + "?labelSelector=x%3D1&unknownParam=1"}, 200, []string{`"kind":"WidgetList"`, `"name":"a"`}, [2]string{}},
		{"list all namespaces", call{method: "GET", path: "/apis/test.kubecore.io/v1/widgets"}, 200, []string{`"name":"b"`}, [2]string{}},
		{"bad selector", call{method: "GET", path: widgetsPath + "?labelSelector=x%3D%3D%3D"}, 400, []string{`"reason":"BadRequest"`}, [2]string{}},
		{"bad resourceVersion", call{method: "GET", path: widgetsPath + "?resourceVersion=abc"}, 400, []string{`"reason":"BadRequest"`}, [2]string{}},
		{"bad limit", call{method: "GET", path: widgetsPath + "?limit=x"}, 400, []string{`"reason":"BadRequest"`}, [2]string{}},
		{"merge patch", call{method: "PATCH", path: widgetsPath + "/a", contentType: "application/merge-patch+json", body: `{"spec":{"size":5}}`}, 200, []string{`"size":5`}, [2]string{}},
		{"json patch", call{method: "PATCH", path: widgetsPath + "/a", contentType: "application/json-patch+json", body: `[{"op":"replace","path":"/spec/size","value":6}]`}, 200, []string{`"size":6`}, [2]string{}},
		{"json patch test fails", call{method: "PATCH", path: widgetsPath + "/a", contentType: "application/json-patch+json", body: `[{"op":"test","path":"/spec/size","value":1}]`}, 422, nil, [2]string{}},
		{"strategic merge patch", call{method: "PATCH", path: widgetsPath + "/a", contentType: "application/strategic-merge-patch+json", body: `{"spec":{"items":[{"name":"i2","value":"v2"}]}}`}, 200, []string{`{"name":"i1","value":"v1"}`, `{"name":"i2","value":"v2"}`}, [2]string{}},
		{"apply patch", call{method: "PATCH", path: widgetsPath + "/a", contentType: "application/apply-patch+yaml", body: `{}`}, 415, []string{"server-side apply"}, [2]string{}},
		{"patch strict", call{method: "PATCH", path: widgetsPath + "/a?fieldValidation=Strict", contentType: "application/merge-patch+json", body: `{"spec":{"bar":1}}`}, 400, []string{`unknown field \"spec.bar\"`}, [2]string{}},
		{"patch missing", call{method: "PATCH", path: widgetsPath + "/nope", contentType: "application/merge-patch+json", body: `{}`}, 404, nil, [2]string{}},
		{"update stale", call{method: "PUT", path: widgetsPath + "/a", body: `{"metadata":{"name":"a","resourceVersion":"1"},"spec":{"size":9}}`}, 409, []string{`"reason":"Conflict"`}, [2]string{}},
		{"update name mismatch", call{method: "PUT", path: widgetsPath + "/a", body: `{"metadata":{"name":"z"}}`}, 400, []string{"does not match the name on the URL"}, [2]string{}},
		{"update", call{method: "PUT", path: widgetsPath + "/a", body: `{"metadata":{"name":"a"},"spec":{"size":9}}`}, 200, []string{`"size":9`}, [2]string{}},
		{"delete", call{method: "DELETE", path: widgetsPath + "/a", body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`}, 200, []string{`"name":"a"`}, [2]string{}},
		{"delete missing", call{method: "DELETE", path: widgetsPath + "/a"}, 404, nil, [2]string{}},
		{"unknown resource", call{method: "GET", path: "/apis/test.kubecore.io/v1/namespaces/default/gadgets"}, 404, []string{"the server could not find the requested resource"}, [2]string{}},
		{"method not allowed", call{method: "DELETE", path: "/apis/test.kubecore.io/v1/widgets"}, 405, []string{`"reason":"MethodNotAllowed"`}, [2]string{}},
		{"discovery resources", call{method: "GET", path: "/apis/test.kubecore.io/v1"}, 200, []string{`"kind":"APIResourceList"`, `"name":"widgets"`, `"shortNames":["wd"]`, `"categories":["all"]`, `"verbs":["create","delete","get","list","patch","update","watch"]`, `"singularName":"widget"`}, [2]string{}},
		{"discovery groups", call{method: "GET", path: "/apis"}, 200, []string{`"kind":"APIGroupList"`, `"name":"test.kubecore.io"`, `"preferredVersion":{"groupVersion":"test.kubecore.io/v1","version":"v1"}`}, [2]string{}},
		{"discovery groups with a trailing slash", call{method: "GET", path: "/apis/"}, 200, []string{`"kind":"APIGroupList"`, `"name":"test.kubecore.io"`}, [2]string{}},
		{"core discovery with a trailing slash", call{method: "GET", path: "/api/"}, 200, []string{`"kind":"APIVersions"`}, [2]string{}},
		{"a group with a trailing slash", call{method: "GET", path: "/apis/test.kubecore.io/"}, 200, []string{`"kind":"APIGroup"`, `"name":"test.kubecore.io"`}, [2]string{}},
		{"discovery group", call{method: "GET", path: "/apis/test.kubecore.io"}, 200, []string{`"kind":"APIGroup"`}, [2]string{}},
		{"aggregated discovery", call{method: "GET", path: "/apis", accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"}, 200, []string{`"kind":"APIGroupDiscoveryList"`}, [2]string{"Content-Type", ContentTypeDiscoveryV2}},
		{"removed v2beta1 falls back", call{method: "GET", path: "/apis", accept: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"}, 200, []string{`"kind":"APIGroupList"`}, [2]string{"Content-Type", "application/json"}},
		{"metrics", call{method: "GET", path: "/metrics"}, 200, []string{`apiserver_request_total{code="201",group="test.kubecore.io",resource="widgets",subresource="",verb="POST",version="v1"}`}, [2]string{}},
	}
	for _, s := range steps {
		resp, body := do(t, ts, s.call)
		if resp.StatusCode != s.code {
			t.Errorf("%s: code %d, want %d; body %s", s.name, resp.StatusCode, s.code, trim(body))
			continue
		}
		for _, c := range s.contains {
			if !strings.Contains(body, c) {
				t.Errorf("%s: body lacks %s: %s", s.name, c, trim(body))
			}
		}
		if s.header[0] != "" && !strings.HasPrefix(resp.Header.Get(s.header[0]), s.header[1]) {
			t.Errorf("%s: header %s = %q, want %q", s.name, s.header[0], resp.Header.Get(s.header[0]), s.header[1])
		}
	}
}

func trim(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

func TestWatchStreams(t *testing.T) {
	ts, _ := newTestServer(t, nil)
	for _, table := range []bool{false, true} {
		req, _ := http.NewRequest("GET", ts.URL+widgetsPath+"?watch=true&timeoutSeconds=5", nil)
		req.Header.Set("X-Test-User", "admin")
		if table {
			req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		}
		ctx, cancel := context.WithCancel(context.Background())
		req = req.WithContext(ctx)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("watch: code %d", resp.StatusCode)
		}
		name := "w" + map[bool]string{false: "obj", true: "table"}[table]
		if r, body := do(t, ts, call{method: "POST", path: widgetsPath, body: `{"metadata":{"name":"` + name + `"}}`}); r.StatusCode != 201 {
			t.Fatalf("create: %d %s", r.StatusCode, body)
		}
		line, err := readLine(resp.Body, 5*time.Second)
		if err != nil {
			t.Fatalf("read event: %v", err)
		}
		var ev metav1.WatchEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		want := `"kind":"Widget"`
		if table {
			want = `"kind":"Table"`
		}
		if ev.Type != "ADDED" || !strings.Contains(string(ev.Object), want) || !strings.Contains(string(ev.Object), name) {
			t.Errorf("event %s, want ADDED with %s", line, want)
		}
		cancel()
		resp.Body.Close()
	}
}

func readLine(r io.Reader, timeout time.Duration) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		b, err := bufio.NewReader(r).ReadBytes('\n')
		ch <- res{b, err}
	}()
	select {
	case x := <-ch:
		return x.b, x.err
	case <-time.After(timeout):
		return nil, context.DeadlineExceeded
	}
}

func TestWatchTimeoutEndsStream(t *testing.T) {
	ts, _ := newTestServer(t, nil)
	start := time.Now()
	resp, body := do(t, ts, call{method: "GET", path: widgetsPath + "?watch=1&timeoutSeconds=1"})
	if resp.StatusCode != 200 || body != "" {
		t.Fatalf("code %d body %q", resp.StatusCode, body)
	}
	if d := time.Since(start); d < 900*time.Millisecond || d > 5*time.Second {
		t.Errorf("watch lasted %s, want about 1s", d)
	}
}

func TestHealthChecks(t *testing.T) {
	failing := true
	ts, _ := newTestServer(t, func(c *Config) {
		c.ReadyChecks = []HealthCheck{{Name: "etcd", Check: func(context.Context) error {
			if failing {
				return context.DeadlineExceeded
			}
			return nil
		}}}
	})
	cases := []struct {
		path, want string
		code       int
	}{
		{"/readyz", "[-]etcd failed: reason withheld\n", 500},
		{"/readyz/etcd", "readyz check failed", 500},
		{"/livez", "ok", 200},
		{"/livez?verbose", "[+]ping ok\nlivez check passed\n", 200},
	}
	for _, c := range cases {
		resp, body := do(t, ts, call{method: "GET", path: c.path, noAuth: true})
		if resp.StatusCode != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d containing %q", c.path, resp.StatusCode, body, c.code, c.want)
		}
	}
}

func TestTimeout(t *testing.T) {
	ts, _ := newTestServer(t, func(c *Config) { c.RequestTimeout = 200 * time.Millisecond })
	resp, body := do(t, ts, call{method: "GET", path: widgetsPath + "/slow"})
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(body, `"reason":"Timeout"`) {
		t.Errorf("slow request: %d %s", resp.StatusCode, body)
	}
}
