package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"kubecore.io/kubecore/pkg/apirequest"
)

type errResponder struct{ t *testing.T }

func (r errResponder) Error(err error) { r.t.Errorf("proxy error: %v", err) }

// serveProxy serves prefix (the subresource's path) and the paths below
// it through Handler to the backend, as the route installer does.
func serveProxy(t *testing.T, prefix string, backend *httptest.Server) *httptest.Server {
	t.Helper()
	loc, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		ctx := apirequest.WithSubpath(r.Context(), strings.TrimPrefix(sub, "/"))
		Handler(ctx, loc, DefaultTransport(), errResponder{t}).ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// TestRedirectToTrailingSlash: a GET or HEAD of the subresource itself is
// redirected to it with a trailing slash, the query kept, as Kubernetes
// does; other methods and paths below it reach the backend.
func TestRedirectToTrailingSlash(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Method+" "+r.URL.Path)
	}))
	t.Cleanup(backend.Close)
	const prefix = "/api/v1/namespaces/ns/pods/web/proxy"
	ts := serveProxy(t, prefix, backend)
	client := &http.Client{CheckRedirect: noRedirects}
	for _, tc := range []struct {
		method, path string
		code         int
		location     string
		body         string
	}{
		{method: http.MethodGet, path: prefix + "?method=GET", code: 301, location: prefix + "/?method=GET"},
		{method: http.MethodHead, path: prefix, code: 301, location: prefix + "/"},
		{method: http.MethodGet, path: prefix + "/", code: 200, body: "GET /"},
		{method: http.MethodPost, path: prefix, code: 200, body: "POST /"},
		{method: http.MethodDelete, path: prefix, code: 200, body: "DELETE /"},
		{method: http.MethodGet, path: prefix + "/a/b", code: 200, body: "GET /a/b"},
	} {
		req, err := http.NewRequest(tc.method, ts.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, resp.StatusCode, tc.code)
		}
		if got := resp.Header.Get("Location"); got != tc.location {
			t.Errorf("%s %s: Location %q, want %q", tc.method, tc.path, got, tc.location)
		}
		if tc.body != "" && string(body) != tc.body {
			t.Errorf("%s %s: body %q, want %q", tc.method, tc.path, body, tc.body)
		}
	}
}

// TestRewriteLinks: the links of an HTML page (plain or gzip-encoded)
// that name the backend's own paths come back through the subresource;
// relative links, other hosts and other content types are left alone, and
// so is a redirect's Location to another host.
func TestRewriteLinks(t *testing.T) {
	var backendHost string
	page := func() string {
		return `<html><head><link href="/style.css" rel="stylesheet"><script src="app.js"></script></head>` +
			`<body><a href="/rewriteme">test</a> <a href="http://` + backendHost + `/abs/?q=1#f">abs</a>` +
			`<a href="http://example.com/x">other</a><img src="/img/"/><p title="/not-a-link">/text</p>` +
			`<a href="mailto:a@b">mail</a></body></html>`
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, page())
		case "/gzip":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			_, _ = io.WriteString(zw, `<a href="/zipped">z</a>`)
			_ = zw.Close()
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"href":"/rewriteme"}`)
		case "/moved":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "/away":
			http.Redirect(w, r, "http://example.com/x", http.StatusFound)
		}
	}))
	t.Cleanup(backend.Close)
	backendHost = strings.TrimPrefix(backend.URL, "http://")
	const prefix = "/api/v1/namespaces/ns/services/https:web:tls/proxy"
	ts := serveProxy(t, prefix, backend)
	client := &http.Client{CheckRedirect: noRedirects}
	get := func(p string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(ts.URL + prefix + p)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(body)
	}
	_, body := get("/page")
	want := `<html><head><link href="` + prefix + `/style.css" rel="stylesheet"><script src="app.js"></script></head>` +
		`<body><a href="` + prefix + `/rewriteme">test</a> <a href="` + prefix + `/abs/?q=1#f">abs</a>` +
		`<a href="http://example.com/x">other</a><img src="` + prefix + `/img/"/><p title="/not-a-link">/text</p>` +
		`<a href="mailto:a@b">mail</a></body></html>`
	if body != want {
		t.Errorf("rewritten page:\n got %s\nwant %s", body, want)
	}
	resp, body := get("/gzip")
	if want := `<a href="` + prefix + `/zipped">z</a>`; body != want || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip page: %q (encoding %q), want %q unencoded", body, resp.Header.Get("Content-Encoding"), want)
	}
	if _, body := get("/json"); body != `{"href":"/rewriteme"}` {
		t.Errorf("JSON body changed: %s", body)
	}
	if resp, _ := get("/moved"); resp.Header.Get("Location") != prefix+"/elsewhere" {
		t.Errorf("redirect Location %q, want %q", resp.Header.Get("Location"), prefix+"/elsewhere")
	}
	if resp, _ := get("/away"); resp.Header.Get("Location") != "http://example.com/x" {
		t.Errorf("redirect to another host: Location %q", resp.Header.Get("Location"))
	}
}

func TestRewriteLink(t *testing.T) {
	lr := linkRewriter{backend: &url.URL{Scheme: "http", Host: "10.0.0.5:80"}, prefix: "/p/proxy"}
	for in, want := range map[string]string{
		"/x":                         "/p/proxy/x",
		"/x/":                        "/p/proxy/x/",
		"/":                          "/p/proxy/",
		"x":                          "x",
		"../x":                       "../x",
		"http://10.0.0.5:80/y?a=b":   "/p/proxy/y?a=b",
		"http://10.0.0.6/y":          "http://10.0.0.6/y",
		"/p/proxy/already":           "/p/proxy/already",
		"javascript:void(0)":         "javascript:void(0)",
		"#top":                       "#top",
		"//10.0.0.5:80/protocol-rel": "/p/proxy/protocol-rel",
	} {
		if got := lr.rewrite(in); got != want {
			t.Errorf("rewrite(%q) = %q, want %q", in, got, want)
		}
	}
	if got := lr.rewriteHTML([]byte(`<a href="/x" >&amp;</a><!-- <a href="/c"> -->`)); !bytes.Equal(got, []byte(`<a href="/p/proxy/x">&amp;</a><!-- <a href="/c"> -->`)) {
		t.Errorf("rewriteHTML: %s", got)
	}
}
