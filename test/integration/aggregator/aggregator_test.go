// Package aggregator tests the aggregation layer end to end: an
// in-process `kubecore apiserver` proxies an APIService's group version to
// a TLS test backend (pkg/webhook/webhooktest) serving a tiny API group,
// which checks the front-proxy client certificate and reads the identity
// headers.
package aggregator

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/pkg/webhook/webhooktest"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

const kubectlPath = "/usr/bin/kubectl"

const (
	group   = "wardle.example.com"
	version = "v1alpha1"
	gvPath  = "/apis/" + group + "/" + version
)

// seen is what the backend saw of one request.
type seen struct {
	path, user string
	groups     []string
	extra      map[string][]string
	proxyCN    string
	auth       string
}

// backend is a tiny aggregated API server: discovery and flunders
// (list, get, watch), served only to the front proxy.
type backend struct {
	mu    sync.Mutex
	calls []seen
	srv   *webhooktest.Server
	// v2 serves the aggregated discovery document at /apis, where flunders
	// have a status subresource the legacy list lacks.
	v2 bool
}

func (b *backend) record(r *http.Request) {
	s := seen{path: r.URL.Path, user: r.Header.Get("X-Remote-User"), groups: r.Header.Values("X-Remote-Group"), auth: r.Header.Get("Authorization"), extra: map[string][]string{}}
	for k, v := range r.Header {
		if rest, ok := strings.CutPrefix(k, "X-Remote-Extra-"); ok {
			s.extra[strings.ToLower(rest)] = v
		}
	}
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		s.proxyCN = r.TLS.VerifiedChains[0][0].Subject.CommonName
	}
	b.mu.Lock()
	b.calls = append(b.calls, s)
	b.mu.Unlock()
}

// userCalls returns the requests not made by the availability checks.
func (b *backend) userCalls() []seen {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []seen
	for _, c := range b.calls {
		if c.user != "system:kube-aggregator" {
			out = append(out, c)
		}
	}
	return out
}

func flunder(ns, name string) map[string]any {
	return map[string]any{"apiVersion": group + "/" + version, "kind": "Flunder", "metadata": map[string]any{"name": name, "namespace": ns, "resourceVersion": "1"}}
}

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.record(r)
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
		http.Error(w, "front-proxy client certificate required", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, gvPath), "/")
	switch {
	case r.URL.Path == "/openapi/v3":
		_, _ = io.WriteString(w, `{"paths":{"apis/`+group+`/`+version+`":{"serverRelativeURL":"/openapi/v3/apis/`+group+`/`+version+`?hash=ABC"}}}`)
	case r.URL.Path == "/openapi/v3"+gvPath:
		_, _ = io.WriteString(w, `{"openapi":"3.0.0","info":{"title":"wardle","version":"v1"},"paths":{},"components":{"schemas":{"com.example.wardle.v1alpha1.Flunder":{"type":"object"}}}}`)
	case strings.HasSuffix(r.URL.Path, "/exec"):
		// An exec-like subresource: a WebSocket echoing one message.
		up := websocket.Upgrader{Subprotocols: []string{"v5.channel.k8s.io"}}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		typ, msg, err := conn.ReadMessage()
		if err != nil {
			return
		}
		_ = conn.WriteMessage(typ, append([]byte("echo: "), msg...))
	case r.URL.Path == "/apis" && b.v2 && strings.HasPrefix(r.Header.Get("Accept"), "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"):
		w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		_, _ = io.WriteString(w, `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"`+group+`"},"versions":[{"version":"`+version+`","freshness":"Current","resources":[`+
			`{"resource":"flunders","responseKind":{"group":"","version":"","kind":"Flunder"},"scope":"Namespaced","singularResource":"flunder","verbs":["get","list","watch"],`+
			`"subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"Flunder"},"verbs":["get"]}]}]}]}]}`)
	case r.URL.Path == gvPath:
		_ = json.NewEncoder(w).Encode(map[string]any{
			"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group + "/" + version,
			"resources": []map[string]any{{"name": "flunders", "singularName": "flunder", "namespaced": true, "kind": "Flunder", "verbs": []string{"get", "list", "watch"}}},
		})
	case len(segs) == 4 && segs[1] == "namespaces" && segs[3] == "flunders" && r.URL.Query().Get("watch") == "true":
		fl := w.(http.Flusher)
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": flunder(segs[2], "first")})
		fl.Flush()
		<-r.Context().Done() // the watch stays open: the event must be flushed
	case len(segs) == 4 && segs[1] == "namespaces" && segs[3] == "flunders":
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": group + "/" + version, "kind": "FlunderList", "metadata": map[string]any{"resourceVersion": "1"}, "items": []any{flunder(segs[2], "first")}})
	case len(segs) == 5 && segs[1] == "namespaces" && segs[3] == "flunders":
		_ = json.NewEncoder(w).Encode(flunder(segs[2], segs[4]))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}`)
	}
}

type env struct {
	t   testing.TB
	api *framework.APIServer
	hc  *http.Client
	ns  string
}

func newEnv(t testing.TB, tokens string) *env {
	t.Helper()
	opts := framework.APIServerOptions{Etcd: testEtcd}
	if tokens != "" {
		f := filepath.Join(t.TempDir(), "tokens.csv")
		if err := os.WriteFile(f, []byte(tokens), 0o600); err != nil {
			t.Fatal(err)
		}
		opts.TokenAuthFile = f
	}
	api := framework.StartAPIServer(t, opts)
	return &env{t: t, api: api, hc: api.HTTPClient(t), ns: api.CreateNamespace(t, "aggregator")}
}

// do sends a request as the admin (or with token, when set) and returns
// the status and body.
func (e *env) do(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.api.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := e.hc
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		hc = e.tokenClient()
	}
	resp, err := hc.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, out
}

// tokenClient trusts the server's CA and shows no client certificate.
func (e *env) tokenClient() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: e.caPool(pki.CAName + ".crt"), MinVersion: tls.VersionTLS12}}}
}

func (e *env) caPool(rel string) *x509.CertPool {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.api.DataDir, "pki", rel))
	if err != nil {
		e.t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		e.t.Fatalf("no certificate in %s", rel)
	}
	return pool
}

func (e *env) expect(want int, method, path, token string, body any) []byte {
	e.t.Helper()
	return e.must(want)(e.do(method, path, token, body))
}

func (e *env) must(want int) func(code int, body []byte) []byte {
	return func(code int, body []byte) []byte {
		e.t.Helper()
		if code != want {
			e.t.Fatalf("got %d, want %d: %s", code, want, body)
		}
		return body
	}
}

// startBackend serves a backend trusting the front-proxy CA, behind
// Service e.ns/name (no selector, manual Endpoints on port 443).
func (e *env) startBackend(name string) *backend {
	b := &backend{}
	b.srv = webhooktest.NewServer(e.t, b, webhooktest.Options{ClientCAs: e.caPool(filepath.Join(pki.FrontProxyDir, "ca.crt"))}, name+"."+e.ns+".svc")
	e.expect(http.StatusCreated, "POST", "/api/v1/namespaces/"+e.ns+"/services", "", map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"ports": []map[string]any{{"port": 443, "protocol": "TCP"}}},
	})
	e.setEndpoints(name, b.srv.Port)
	return b
}

func (e *env) setEndpoints(name string, port int32) {
	e.t.Helper()
	path := "/api/v1/namespaces/" + e.ns + "/endpoints"
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Endpoints", "metadata": map[string]any{"name": name},
		"subsets": []map[string]any{{"addresses": []map[string]any{{"ip": "127.0.0.1"}}, "ports": []map[string]any{{"port": port, "protocol": "TCP"}}}},
	}
	code, body := e.do("GET", path+"/"+name, "", nil)
	if code == http.StatusOK {
		var cur map[string]any
		if err := json.Unmarshal(body, &cur); err != nil {
			e.t.Fatal(err)
		}
		obj["metadata"] = cur["metadata"]
		e.expect(http.StatusOK, "PUT", path+"/"+name, "", obj)
		return
	}
	e.expect(http.StatusCreated, "POST", path, "", obj)
}

func (e *env) createAPIService(gv, svc string, caBundle []byte, groupPriority int) {
	e.t.Helper()
	g, v, _ := strings.Cut(gv, "/")
	e.expect(http.StatusCreated, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", "", map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": map[string]any{"name": v + "." + g},
		"spec": map[string]any{
			"group": g, "version": v, "service": map[string]any{"namespace": e.ns, "name": svc},
			"caBundle": caBundle, "groupPriorityMinimum": groupPriority, "versionPriority": 15,
		},
	})
}

type condition struct{ Type, Status, Reason, Message string }

// waitAvailable waits for the APIService's Available condition to have
// status and reason, and returns it.
func (e *env) waitAvailable(name, status, reason string) condition {
	e.t.Helper()
	var last condition
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var s struct {
			Status struct{ Conditions []condition }
		}
		code, body := e.do("GET", "/apis/apiregistration.k8s.io/v1/apiservices/"+name, "", nil)
		if code == http.StatusOK {
			if err := json.Unmarshal(body, &s); err != nil {
				e.t.Fatal(err)
			}
			for _, c := range s.Status.Conditions {
				if c.Type == "Available" {
					last = c
					if c.Status == status && c.Reason == reason {
						return c
					}
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("apiservice %s: Available is %+v, want %s/%s", name, last, status, reason)
	return last
}

// eventually polls cond until it holds, for at most a minute: the
// aggregator acts on what its informers have seen, a moment after a
// write.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) groupNames() []string {
	e.t.Helper()
	var list struct{ Groups []struct{ Name string } }
	if err := json.Unmarshal(e.expect(http.StatusOK, "GET", "/apis", "", nil), &list); err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, g := range list.Groups {
		names = append(names, g.Name)
	}
	return names
}

// discoveryV2 GETs /apis as the aggregated discovery document and returns
// the freshness and resources (subresources as resource/sub) of each
// group version.
func (e *env) discoveryV2() map[string]string {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), "GET", e.api.URL+"/apis", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	resp, err := e.hc.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		e.t.Fatalf("GET /apis v2: %d %s", resp.StatusCode, ct)
	}
	var doc struct {
		Items []struct {
			Metadata struct{ Name string }
			Versions []struct {
				Version, Freshness string
				Resources          []struct {
					Resource     string
					Subresources []struct{ Subresource string }
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, g := range doc.Items {
		for _, v := range g.Versions {
			desc := v.Freshness
			for _, r := range v.Resources {
				desc += " " + r.Resource
				for _, s := range r.Subresources {
					desc += " " + r.Resource + "/" + s.Subresource
				}
			}
			out[g.Metadata.Name+"/"+v.Version] = desc
		}
	}
	return out
}

func TestProxyDiscoveryAndAvailability(t *testing.T) {
	e := newEnv(t, "bob-token,bob,1001,\"devs\"\n")
	b := e.startBackend("wardle")
	e.createAPIService(group+"/"+version, "wardle", b.srv.CABundle, 1000)
	c := e.waitAvailable(version+"."+group, "True", "Passed")
	if c.Message != "all checks passed" {
		t.Errorf("message %q", c.Message)
	}
	e.eventually("the group in /apis", func() bool { return slices.Contains(e.groupNames(), group) })

	t.Run("discovery lists the group", func(t *testing.T) {
		if names := e.groupNames(); !slices.Contains(names, group) {
			t.Fatalf("/apis lacks %s: %v", group, names)
		}
		body := e.expect(http.StatusOK, "GET", "/apis/"+group, "", nil)
		if !bytes.Contains(body, []byte(`"preferredVersion":{"groupVersion":"`+group+"/"+version)) {
			t.Errorf("/apis/%s: %s", group, body)
		}
		body = e.expect(http.StatusOK, "GET", gvPath, "", nil)
		if !bytes.Contains(body, []byte(`"name":"flunders"`)) {
			t.Errorf("%s: %s", gvPath, body)
		}
		// The backend has no aggregated discovery: its legacy list is
		// converted into the aggregated document.
		var d map[string]string
		e.eventually("the group version in the aggregated /apis", func() bool {
			d = e.discoveryV2()
			return d[group+"/"+version] == "Current flunders"
		})
		if d["apps/v1"] == "" {
			t.Errorf("aggregated /apis lacks apps/v1: %v", d)
		}
	})

	t.Run("OpenAPI v3 merged", func(t *testing.T) {
		var url string
		e.eventually("the group version in /openapi/v3", func() bool {
			var idx struct {
				Paths map[string]struct{ ServerRelativeURL string }
			}
			if err := json.Unmarshal(e.expect(http.StatusOK, "GET", "/openapi/v3", "", nil), &idx); err != nil {
				t.Fatal(err)
			}
			url = idx.Paths["apis/"+group+"/"+version].ServerRelativeURL
			return url != "" && idx.Paths["apis/apps/v1"].ServerRelativeURL != ""
		})
		if body := e.expect(http.StatusOK, "GET", url, "", nil); !bytes.Contains(body, []byte("com.example.wardle.v1alpha1.Flunder")) {
			t.Errorf("%s: %s", url, body)
		}
	})

	t.Run("proxied with the identity headers", func(t *testing.T) {
		before := len(b.userCalls())
		body := e.expect(http.StatusOK, "GET", gvPath+"/namespaces/"+e.ns+"/flunders/one", "", nil)
		if !bytes.Contains(body, []byte(`"name":"one"`)) {
			t.Fatalf("get: %s", body)
		}
		calls := b.userCalls()[before:]
		if len(calls) != 1 {
			t.Fatalf("backend saw %d requests, want 1", len(calls))
		}
		got := calls[0]
		if got.user != pki.AdminCN || !slices.Contains(got.groups, pki.MastersGroup) || !slices.Contains(got.groups, "system:authenticated") {
			t.Errorf("identity: user %q groups %v", got.user, got.groups)
		}
		if got.proxyCN != pki.FrontProxyClientCN {
			t.Errorf("front-proxy client certificate CN %q, want %q", got.proxyCN, pki.FrontProxyClientCN)
		}
		if got.auth != "" {
			t.Errorf("the client's Authorization reached the backend: %q", got.auth)
		}
	})

	t.Run("RBAC before the proxy", func(t *testing.T) {
		before := len(b.userCalls())
		code, body := e.do("GET", gvPath+"/namespaces/"+e.ns+"/flunders", "bob-token", nil)
		if code != http.StatusForbidden || !bytes.Contains(body, []byte(`User \"bob\" cannot list resource \"flunders\" in API group \"`+group+`\"`)) {
			t.Fatalf("got %d %s, want 403", code, body)
		}
		if n := len(b.userCalls()) - before; n != 0 {
			t.Fatalf("a denied request reached the backend (%d calls)", n)
		}
		e.expect(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+e.ns+"/roles", "", map[string]any{
			"metadata": map[string]any{"name": "flunder-reader"},
			"rules":    []map[string]any{{"apiGroups": []string{group}, "resources": []string{"flunders"}, "verbs": []string{"list"}}},
		})
		e.expect(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+e.ns+"/rolebindings", "", map[string]any{
			"metadata": map[string]any{"name": "bob"},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "flunder-reader"},
			"subjects": []map[string]any{{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bob"}},
		})
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body = e.do("GET", gvPath+"/namespaces/"+e.ns+"/flunders", "bob-token", nil)
			if code == http.StatusOK || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		e.must(http.StatusOK)(code, body)
		calls := b.userCalls()
		last := calls[len(calls)-1]
		if last.user != "bob" || !slices.Contains(last.groups, "devs") {
			t.Errorf("identity: user %q groups %v", last.user, last.groups)
		}
	})

	t.Run("watch is streamed", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", e.api.URL+gvPath+"/namespaces/"+e.ns+"/flunders?watch=true", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := e.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch: %d", resp.StatusCode)
		}
		// The backend holds the watch open after its first event: the
		// event arrives only if the proxy flushes it.
		line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(line, []byte(`"type":"ADDED"`)) || !bytes.Contains(line, []byte(`"name":"first"`)) {
			t.Fatalf("event: %s", line)
		}
	})

	t.Run("stock kubectl", func(t *testing.T) {
		if _, err := os.Stat(kubectlPath); err != nil {
			t.Skipf("no %s", kubectlPath)
		}
		kubectl := func(args ...string) string {
			t.Helper()
			cmd := exec.Command(kubectlPath, append([]string{"--kubeconfig", e.api.Kubeconfig, "--cache-dir", t.TempDir()}, args...)...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %v: %v\n%s", args, err, out)
			}
			return string(out)
		}
		if out := kubectl("get", "flunders", "-n", e.ns); !strings.Contains(out, "first") {
			t.Errorf("kubectl get flunders:\n%s", out)
		}
		if out := kubectl("get", "flunder", "two", "-n", e.ns, "-o", "jsonpath={.metadata.name}"); out != "two" {
			t.Errorf("kubectl get flunder two: %q", out)
		}
		if out := kubectl("api-resources", "--api-group", group); !strings.Contains(out, "flunders") {
			t.Errorf("kubectl api-resources:\n%s", out)
		}
		if out := kubectl("get", "apiservice", version+"."+group); !strings.Contains(out, "True") {
			t.Errorf("kubectl get apiservice:\n%s", out)
		}
	})

	t.Run("upgrade spliced", func(t *testing.T) {
		admin, err := tls.LoadX509KeyPair(filepath.Join(e.api.DataDir, "pki", pki.AdminName+".crt"), filepath.Join(e.api.DataDir, "pki", pki.AdminName+".key"))
		if err != nil {
			t.Fatal(err)
		}
		d := websocket.Dialer{
			TLSClientConfig: &tls.Config{RootCAs: e.caPool(pki.CAName + ".crt"), Certificates: []tls.Certificate{admin}, MinVersion: tls.VersionTLS12},
			Subprotocols:    []string{"v5.channel.k8s.io"}, HandshakeTimeout: 10 * time.Second,
		}
		u := strings.Replace(e.api.URL, "https://", "wss://", 1) + gvPath + "/namespaces/" + e.ns + "/flunders/one/exec"
		conn, resp, err := d.DialContext(t.Context(), u, nil)
		if err != nil {
			var body []byte
			if resp != nil {
				body, _ = io.ReadAll(resp.Body)
			}
			t.Fatalf("dial %s: %v %s", u, err, body)
		}
		defer conn.Close()
		if conn.Subprotocol() != "v5.channel.k8s.io" {
			t.Errorf("subprotocol %q", conn.Subprotocol())
		}
		if err := conn.WriteMessage(websocket.BinaryMessage, []byte("ping")); err != nil {
			t.Fatal(err)
		}
		_, msg, err := conn.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if string(msg) != "echo: ping" {
			t.Fatalf("got %q", msg)
		}
	})

	t.Run("front-proxy headers authenticate only with the front-proxy certificate", func(t *testing.T) {
		// The admin's certificate is the cluster CA's: its headers are ignored.
		req, _ := http.NewRequestWithContext(t.Context(), "GET", e.api.URL+"/api/v1/namespaces/"+e.ns+"/secrets", nil)
		req.Header.Set("X-Remote-User", "mallory")
		resp, err := e.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("admin with X-Remote-User: %d, want 200 as the admin", resp.StatusCode)
		}
		fp, err := tls.LoadX509KeyPair(filepath.Join(e.api.DataDir, "pki", pki.FrontProxyDir, pki.FrontProxyClientName+".crt"), filepath.Join(e.api.DataDir, "pki", pki.FrontProxyDir, pki.FrontProxyClientName+".key"))
		if err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: e.caPool(pki.CAName + ".crt"), Certificates: []tls.Certificate{fp}, MinVersion: tls.VersionTLS12}}}
		req, _ = http.NewRequestWithContext(t.Context(), "GET", e.api.URL+"/api/v1/namespaces/"+e.ns+"/secrets", nil)
		req.Header.Set("X-Remote-User", "alice")
		req.Header.Add("X-Remote-Group", "readers")
		resp, err = hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !bytes.Contains(body, []byte(`User \"alice\" cannot list`)) {
			t.Fatalf("front proxy as alice: %d %s, want 403 for alice", resp.StatusCode, body)
		}
	})

	t.Run("extension-apiserver-authentication", func(t *testing.T) {
		var cm struct{ Data map[string]string }
		if err := json.Unmarshal(e.expect(http.StatusOK, "GET", "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication", "", nil), &cm); err != nil {
			t.Fatal(err)
		}
		fpCA, _ := os.ReadFile(filepath.Join(e.api.DataDir, "pki", pki.FrontProxyDir, "ca.crt"))
		clusterCA, _ := os.ReadFile(filepath.Join(e.api.DataDir, "pki", "ca.crt"))
		want := map[string]string{
			"client-ca-file":                     string(clusterCA),
			"requestheader-client-ca-file":       string(fpCA),
			"requestheader-allowed-names":        `["front-proxy-client"]`,
			"requestheader-username-headers":     `["X-Remote-User"]`,
			"requestheader-group-headers":        `["X-Remote-Group"]`,
			"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		}
		for k, v := range want {
			if cm.Data[k] != v {
				t.Errorf("%s = %q, want %q", k, cm.Data[k], v)
			}
		}
		// Extension servers read it through the Role Kubernetes names
		// extension-apiserver-authentication-reader.
		path := "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
		e.expect(http.StatusForbidden, "GET", path, "bob-token", nil)
		e.expect(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings", "", map[string]any{
			"metadata": map[string]any{"name": "bob-auth-reader-" + e.ns},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "extension-apiserver-authentication-reader"},
			"subjects": []map[string]any{{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bob"}},
		})
		e.eventually("bob to read the ConfigMap", func() bool {
			code, _ := e.do("GET", path, "bob-token", nil)
			return code == http.StatusOK
		})
	})

	t.Run("backend down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		deadPort := int32(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
		e.setEndpoints("wardle", deadPort)
		c := e.waitAvailable(version+"."+group, "False", "FailedDiscoveryCheck")
		if !strings.Contains(c.Message, "failing or missing response from https://127.0.0.1:") {
			t.Errorf("message %q", c.Message)
		}
		var code int
		var body []byte
		e.eventually("503", func() bool {
			code, body = e.do("GET", gvPath+"/namespaces/"+e.ns+"/flunders", "", nil)
			return code == http.StatusServiceUnavailable
		})
		if code != http.StatusServiceUnavailable || !bytes.Contains(body, []byte(`"reason":"ServiceUnavailable"`)) {
			t.Fatalf("got %d %s, want 503", code, body)
		}
		if names := e.groupNames(); slices.Contains(names, group) || !slices.Contains(names, "apps") {
			t.Errorf("/apis with the backend down: %v", names)
		}
		// The aggregated document keeps the group version, Stale with the
		// resources last seen, as Kubernetes does; the others are Current.
		e.eventually("the group version to be Stale", func() bool {
			return e.discoveryV2()[group+"/"+version] == "Stale flunders"
		})
		if d := e.discoveryV2(); !strings.HasPrefix(d["apps/v1"], "Current ") || !strings.Contains(d["apps/v1"], " deployments ") {
			t.Errorf("apps/v1 with a backend down: %q", d["apps/v1"])
		}
		if _, err := os.Stat(kubectlPath); err == nil {
			// The stock kubectl still gets the other kinds.
			out, err := exec.Command(kubectlPath, "--kubeconfig", e.api.Kubeconfig, "--cache-dir", t.TempDir(), "get", "configmaps", "-n", e.ns).CombinedOutput()
			if err != nil {
				t.Errorf("kubectl get configmaps with a backend down: %v\n%s", err, out)
			}
		}
		e.expect(http.StatusOK, "GET", "/api/v1/namespaces/"+e.ns+"/configmaps", "", nil)
		e.setEndpoints("wardle", b.srv.Port)
		e.waitAvailable(version+"."+group, "True", "Passed")
		e.eventually("the group version to be Current again", func() bool {
			return e.discoveryV2()[group+"/"+version] == "Current flunders"
		})
		e.eventually("200", func() bool {
			code, _ := e.do("GET", gvPath+"/namespaces/"+e.ns+"/flunders", "", nil)
			return code == http.StatusOK
		})
	})

	t.Run("APIService removed", func(t *testing.T) {
		e.expect(http.StatusOK, "DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/"+version+"."+group, "", nil)
		deadline := time.Now().Add(30 * time.Second)
		for slices.Contains(e.groupNames(), group) {
			if time.Now().After(deadline) {
				t.Fatalf("%s still listed after its APIService was deleted", group)
			}
			time.Sleep(50 * time.Millisecond)
		}
		e.expect(http.StatusNotFound, "GET", gvPath+"/namespaces/"+e.ns+"/flunders", "", nil)
		e.eventually("the group version to leave the aggregated /apis", func() bool {
			_, ok := e.discoveryV2()[group+"/"+version]
			return !ok
		})
		e.eventually("the group version to leave /openapi/v3", func() bool {
			return !bytes.Contains(e.expect(http.StatusOK, "GET", "/openapi/v3", "", nil), []byte(`"apis/`+group+`/`+version+`"`))
		})
	})
}

func TestBadAPIServices(t *testing.T) {
	e := newEnv(t, "")
	b := e.startBackend("good")
	for _, tc := range []struct {
		name, gv, svc string
		ca            []byte
		reason, msg   string
	}{
		{"missing service", "missing.example.com/v1", "nope", nil, "ServiceNotFound", fmt.Sprintf(`service/nope in %q is not present`, e.ns)},
		{"bad caBundle", "badca.example.com/v1", "good", []byte("-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n"), "FailedDiscoveryCheck", "failing or missing response"},
		{"wrong CA", "wrongca.example.com/v1", "good", webhooktest.NewServer(t, http.NotFoundHandler(), webhooktest.Options{}).CABundle, "FailedDiscoveryCheck", "certificate signed by unknown authority"},
		{"built-in group version", "apps/v1", "good", b.srv.CABundle, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, v, _ := strings.Cut(tc.gv, "/")
			if tc.reason == "" {
				// apps/v1's APIService exists (local); given a Service it is
				// reported unavailable and never proxied: the built-in
				// resources stay served.
				name := v + "." + g
				var obj map[string]any
				if err := json.Unmarshal(e.expect(http.StatusOK, "GET", "/apis/apiregistration.k8s.io/v1/apiservices/"+name, "", nil), &obj); err != nil {
					t.Fatal(err)
				}
				obj["spec"].(map[string]any)["service"] = map[string]any{"namespace": e.ns, "name": tc.svc}
				obj["spec"].(map[string]any)["caBundle"] = tc.ca
				e.expect(http.StatusOK, "PUT", "/apis/apiregistration.k8s.io/v1/apiservices/"+name, "", obj)
				c := e.waitAvailable(name, "False", "ServiceAccessError")
				if !strings.Contains(c.Message, "served by this API server itself") {
					t.Errorf("message %q", c.Message)
				}
				e.expect(http.StatusOK, "GET", "/apis/apps/v1/namespaces/"+e.ns+"/deployments", "", nil)
				if names := e.groupNames(); len(slices.DeleteFunc(names, func(n string) bool { return n != "apps" })) != 1 {
					t.Errorf("apps listed twice: %v", names)
				}
				return
			}
			e.createAPIService(tc.gv, tc.svc, tc.ca, 100)
			c := e.waitAvailable(v+"."+g, "False", tc.reason)
			if !strings.Contains(c.Message, tc.msg) {
				t.Errorf("message %q lacks %q", c.Message, tc.msg)
			}
			e.eventually("503 for "+tc.gv, func() bool {
				code, _ := e.do("GET", "/apis/"+g+"/"+v, "", nil)
				return code == http.StatusServiceUnavailable
			})
		})
	}
	// Other types are unaffected by the broken APIServices.
	if names := e.groupNames(); !slices.Contains(names, "apps") || slices.Contains(names, "missing.example.com") {
		t.Errorf("/apis: %v", names)
	}
	e.expect(http.StatusOK, "GET", "/apis/apps/v1/namespaces/"+e.ns+"/deployments", "", nil)
}

// TestAggregatedDiscoveryFromV2Backend: a backend serving the aggregated
// discovery document is read through it (its flunders have a status
// subresource only that document lists).
func TestAggregatedDiscoveryFromV2Backend(t *testing.T) {
	e := newEnv(t, "")
	b := &backend{v2: true}
	b.srv = webhooktest.NewServer(e.t, b, webhooktest.Options{ClientCAs: e.caPool(filepath.Join(pki.FrontProxyDir, "ca.crt"))}, "wardle2."+e.ns+".svc")
	e.expect(http.StatusCreated, "POST", "/api/v1/namespaces/"+e.ns+"/services", "", map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "wardle2"},
		"spec": map[string]any{"ports": []map[string]any{{"port": 443, "protocol": "TCP"}}},
	})
	e.setEndpoints("wardle2", b.srv.Port)
	e.do("DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/"+version+"."+group, "", nil)
	e.createAPIService(group+"/"+version, "wardle2", b.srv.CABundle, 1000)
	defer e.do("DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/"+version+"."+group, "", nil)
	e.waitAvailable(version+"."+group, "True", "Passed")
	e.eventually("the backend's aggregated entry", func() bool {
		return e.discoveryV2()[group+"/"+version] == "Current flunders flunders/status"
	})
}
