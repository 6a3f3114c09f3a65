package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	authz "kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// streamConnecter is a pods/log-like subresource: GET streams lines, one
// every 100 ms, each flushed; a widget named "missing" is a 404 from
// Connect, and "late" fails in the handler through the responder.
type streamConnecter struct{}

var _ rest.Connecter = streamConnecter{}

func (streamConnecter) New() runtime.Object      { return &Widget{} }
func (streamConnecter) Destroy()                 {}
func (streamConnecter) ConnectMethods() []string { return []string{http.MethodGet} }

func (streamConnecter) Connect(ctx context.Context, name string, opts url.Values, r rest.Responder) (http.Handler, error) {
	switch name {
	case "missing":
		return nil, apierrors.NewNotFound(widgetsGR, name)
	case "late":
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			r.Error(apierrors.NewBadRequest("too late"))
		}), nil
	}
	ns := apirequest.NamespaceValue(ctx)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		rc := http.NewResponseController(w)
		for i := range 3 {
			_, _ = fmt.Fprintf(w, "%s/%s %s %d\n", ns, name, opts.Get("container"), i)
			_ = rc.Flush()
			time.Sleep(100 * time.Millisecond)
		}
	}), nil
}

// shellConnecter is a pods/exec-like subresource: GET and POST, GET
// authorized as create too; it upgrades to a WebSocket that echoes.
type shellConnecter struct{}

var _ rest.CreateOnGetConnecter = shellConnecter{}

func (shellConnecter) New() runtime.Object        { return &Widget{} }
func (shellConnecter) Destroy()                   {}
func (shellConnecter) ConnectMethods() []string   { return []string{http.MethodGet, http.MethodPost} }
func (shellConnecter) AuthorizeGetAsCreate() bool { return true }

func (shellConnecter) Connect(context.Context, string, url.Values, rest.Responder) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			_, _ = io.WriteString(w, "no upgrade")
			return
		}
		up := websocket.Upgrader{Subprotocols: []string{"v5.channel.k8s.io"}}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = conn.Close() }()
		for {
			mt, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			_ = conn.WriteMessage(mt, msg)
		}
	}), nil
}

// shellUsers: "getter" may get widgets/exec only, "creator" may get and
// create it, "poster" may only create it.
type shellUsers struct{}

func (shellUsers) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	r := a.Request
	if r.Resource != "widgets" || r.Subresource != "exec" {
		return authz.NoOpinion, "", nil
	}
	switch {
	case a.User.Name == "getter" && r.Verb == "get",
		a.User.Name == "creator" && (r.Verb == "get" || r.Verb == "create"),
		a.User.Name == "poster" && r.Verb == "create":
		return authz.Allow, "", nil
	}
	return authz.NoOpinion, "", nil
}

func newConnectServer(t *testing.T) string {
	t.Helper()
	ts, _ := newTestServer(t, func(c *Config) {
		c.Groups[0].Storage["widgets/log"] = streamConnecter{}
		c.Groups[0].Storage["widgets/exec"] = shellConnecter{}
		c.Authorizer = authz.Union{authz.Masters{}, shellUsers{}}
		// Connect requests are long-running: this timeout must not apply.
		c.RequestTimeout = 50 * time.Millisecond
	})
	return ts.URL
}

func TestConnectDiscovery(t *testing.T) {
	base := newConnectServer(t)
	req, _ := http.NewRequest(http.MethodGet, base+"/apis/test.kubecore.io/v1", nil)
	req.Header.Set("X-Test-User", "admin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var list metav1.APIResourceList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	verbs := map[string]string{}
	for _, r := range list.APIResources {
		verbs[r.Name] = strings.Join(r.Verbs, ",")
	}
	if verbs["widgets/log"] != "get" || verbs["widgets/exec"] != "create,get" {
		t.Fatalf("verbs %v", verbs)
	}
}

func TestConnectStreams(t *testing.T) {
	base := newConnectServer(t)
	req, _ := http.NewRequest(http.MethodGet, base+"/apis/test.kubecore.io/v1/namespaces/default/widgets/w1/log?container=c", nil)
	req.Header.Set("X-Test-User", "admin")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	br := bufio.NewReader(resp.Body)
	first, _ := br.ReadString('\n')
	if first != "default/w1 c 0\n" || time.Since(start) > 150*time.Millisecond {
		t.Fatalf("first line %q after %s: not streamed", first, time.Since(start))
	}
	rest, _ := io.ReadAll(br)
	if string(rest) != "default/w1 c 1\ndefault/w1 c 2\n" {
		t.Fatalf("rest %q (cut by the request timeout?)", rest)
	}
}

func TestConnectErrors(t *testing.T) {
	base := newConnectServer(t)
	for _, tc := range []struct {
		name, path string
		code       int
		reason     metav1.StatusReason
	}{
		{"from Connect", "/widgets/missing/log", 404, metav1.StatusReasonNotFound},
		{"from the handler", "/widgets/late/log", 400, metav1.StatusReasonBadRequest},
		{"method not served", "/widgets/w1/log", 405, metav1.StatusReasonMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodGet
			if tc.code == 405 {
				method = http.MethodPost
			}
			req, _ := http.NewRequest(method, base+"/apis/test.kubecore.io/v1/namespaces/default"+tc.path, nil)
			req.Header.Set("X-Test-User", "admin")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			var st metav1.Status
			_ = json.NewDecoder(resp.Body).Decode(&st)
			if resp.StatusCode != tc.code || st.Reason != tc.reason {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, st.Reason, tc.code, tc.reason)
			}
		})
	}
}

func TestConnectUpgradeAndAuthorization(t *testing.T) {
	base := newConnectServer(t)
	path := "/apis/test.kubecore.io/v1/namespaces/default/widgets/w1/exec?command=sh"
	dial := func(user string) (*websocket.Conn, *http.Response, error) {
		d := websocket.Dialer{Subprotocols: []string{"v5.channel.k8s.io", "v4.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
		return d.Dial("ws"+strings.TrimPrefix(base, "http")+path, http.Header{"X-Test-User": {user}, "X-Test-Group": {"system:authenticated"}})
	}

	conn, _, err := dial("creator")
	if err != nil {
		t.Fatalf("creator: %v", err)
	}
	defer func() { _ = conn.Close() }()
	if conn.Subprotocol() != "v5.channel.k8s.io" {
		t.Fatalf("subprotocol %q", conn.Subprotocol())
	}
	// Echoed after the request timeout: the connection is long-running.
	time.Sleep(100 * time.Millisecond)
	if err := conn.WriteMessage(websocket.BinaryMessage, []byte("\x00hi")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := conn.ReadMessage(); err != nil || string(msg) != "\x00hi" {
		t.Fatalf("echo %q, %v", msg, err)
	}

	for _, user := range []string{"getter", "poster"} {
		_, resp, err := dial(user)
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %v %v, want 403", user, err, resp)
		}
		var st metav1.Status
		_ = json.NewDecoder(resp.Body).Decode(&st)
		_ = resp.Body.Close()
		verb := map[string]string{"getter": "create", "poster": "get"}[user]
		want := fmt.Sprintf(`User %q cannot %s resource "widgets/exec"`, user, verb)
		if !strings.Contains(st.Message, want) {
			t.Fatalf("%s: message %q, want %q", user, st.Message, want)
		}
	}

	// POST (SPDY's method) needs create only.
	req, _ := http.NewRequest(http.MethodPost, base+path, nil)
	req.Header.Set("X-Test-User", "poster")
	req.Header.Set("X-Test-Group", "system:authenticated")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "no upgrade" {
		t.Fatalf("poster POST: %d %s", resp.StatusCode, b)
	}
}
