package pod

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/pkg/registry/core/node"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// objects is a rest.Getter over fixed pods or nodes.
type objects map[string]runtime.Object

func (o objects) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	key := apirequest.NamespaceValue(ctx) + "/" + name
	if obj, ok := o[key]; ok {
		return obj.DeepCopyObject(), nil
	}
	if apirequest.NamespaceValue(ctx) == "" {
		return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

// fakeKubelet is an HTTPS server that, like the kubelet, requires a client
// certificate of the cluster CA; it records who called what.
type fakeKubelet struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	cns      []string
}

func (k *fakeKubelet) last(t *testing.T) *http.Request {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.requests) == 0 {
		t.Fatal("the kubelet got no request")
	}
	return k.requests[len(k.requests)-1]
}

// testEnv is a CA, a fake kubelet on node n1 and the apiserver side: the
// pods, the kubelet connections, and a server running Connect's handler.
type testEnv struct {
	kubelet *fakeKubelet
	pods    objects
	conns   *node.KubeletConnections
}

func newTestEnv(t *testing.T, kubelet http.Handler) *testEnv {
	t.Helper()
	b, err := pki.EnsureServing(t.TempDir(), pki.Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := b.EnsureClientCert("apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{pki.MastersGroup})
	if err != nil {
		t.Fatal(err)
	}
	k := &fakeKubelet{}
	k.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.requests = append(k.requests, r)
		if len(r.TLS.PeerCertificates) > 0 {
			k.cns = append(k.cns, r.TLS.PeerCertificates[0].Subject.CommonName)
		}
		k.mu.Unlock()
		kubelet.ServeHTTP(w, r)
	}))
	// A self-signed serving certificate, as the kubelet's: not verified.
	k.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: b.CAPool(), NextProtos: []string{"http/1.1"}}
	k.StartTLS()
	t.Cleanup(k.Close)

	_, port, _ := net.SplitHostPort(k.Listener.Addr().String())
	var p int32
	_, _ = fmt.Sscan(port, &p)
	nodes := objects{"/n1": &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status: corev1.NodeStatus{
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "n1.invalid"}, {Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: p}},
		},
	}}
	cert := client.TLSCertificate()
	conns := node.NewKubeletConnections(nodes, node.KubeletClientConfig{
		ClientCertificate:     &cert,
		PreferredAddressTypes: []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeHostName},
	})
	return &testEnv{kubelet: k, pods: objects{}, conns: conns}
}

func (e *testEnv) addPod(p *corev1.Pod) {
	if p.Namespace == "" {
		p.Namespace = "ns"
	}
	e.pods[p.Namespace+"/"+p.Name] = p
}

// statusResponder writes errors as Status JSON with their code.
type statusResponder struct{ w http.ResponseWriter }

func (s statusResponder) Error(err error) { writeStatus(s.w, err) }

func writeStatus(w http.ResponseWriter, err error) {
	var st metav1.Status
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		st = api.Status()
	} else {
		st = apierrors.NewInternalError(err).ErrStatus
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(&st)
}

// serve runs the connecter as the apiserver does, on a plain server: the
// path is /{namespace}/{name}.
func (e *testEnv) serve(t *testing.T, c rest.Connecter) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		ctx := apirequest.WithNamespace(r.Context(), ns)
		// "/ns/NAME/sub": the subpath of a proxy (the redirect of a GET of
		// the subresource itself adds the slash).
		if n, sub, ok := strings.Cut(name, "/"); ok {
			name = n
			if sub == "" {
				sub = "/"
			}
			ctx = apirequest.WithSubpath(ctx, sub)
		}
		h, err := c.Connect(ctx, name, r.URL.Query(), statusResponder{w})
		if err != nil {
			writeStatus(w, err)
			return
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func runningPod(name string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "busybox"})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	return p
}

func TestResolveContainer(t *testing.T) {
	one := runningPod("one", "main")
	two := runningPod("two", "a", "b")
	withInit := runningPod("init", "a", "b")
	withInit.Spec.InitContainers = []corev1.Container{{Name: "setup"}}
	for _, tc := range []struct {
		name, container, want, wantErr string
		pod                            *corev1.Pod
	}{
		{name: "the only container", pod: one, want: "main"},
		{name: "named", pod: two, container: "b", want: "b"},
		{name: "an init container", pod: withInit, container: "setup", want: "setup"},
		{name: "none named of two", pod: two, wantErr: "a container name must be specified for pod two, choose one of: [a b]"},
		{name: "none named with init", pod: withInit, wantErr: "a container name must be specified for pod init, choose one of: [a b] or one of the init containers: [setup]"},
		{name: "unknown", pod: one, container: "x", wantErr: "container x is not valid for pod one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveContainer(tc.pod, tc.container)
			if tc.wantErr != "" {
				if !apierrors.IsBadRequest(err) || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want BadRequest %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestLogStreamsAndFlushes(t *testing.T) {
	next := make(chan struct{})
	env := newTestEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		select {
		case <-next:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "second\n")
	}))
	env.addPod(runningPod("web", "main", "side"))
	ts := env.serve(t, &LogREST{pods: env.pods, kubelet: env.conns})

	resp, err := http.Get(ts.URL + "/ns/web?container=side&follow=true&tailLines=2&timestamps=1&limitBytes=100&sinceSeconds=5&unknown=x")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	// The first line arrives while the kubelet still holds the second.
	line, err := br.ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(next)
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != "second\n" {
		t.Fatalf("rest %q, %v", rest, err)
	}

	r := env.kubelet.last(t)
	if r.URL.Path != "/containerLogs/ns/web/side" {
		t.Errorf("kubelet path %s", r.URL.Path)
	}
	want := url.Values{"follow": {"true"}, "tailLines": {"2"}, "timestamps": {"true"}, "limitBytes": {"100"}, "sinceSeconds": {"5"}}
	if got := r.URL.Query(); got.Encode() != want.Encode() {
		t.Errorf("kubelet query %s, want %s", got.Encode(), want.Encode())
	}
	if env.kubelet.cns[0] != "kube-apiserver-kubelet-client" {
		t.Errorf("client certificate CN %q", env.kubelet.cns[0])
	}
}

// kubeletAnswer is a kubelet handler answering code with text.
func kubeletAnswer(code int, text string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, text+"\n")
	})
}

func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, string(body)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("not a Status (%d): %s", resp.StatusCode, body)
	}
	return resp.StatusCode, string(st.Reason) + ": " + st.Message
}

func TestLogErrors(t *testing.T) {
	waiting := runningPod("waiting", "main")
	waiting.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	pending := runningPod("pending", "main")
	pending.Spec.NodeName = ""
	lost := runningPod("lost", "main")
	lost.Spec.NodeName = "gone"
	for _, tc := range []struct {
		name    string
		kubelet http.Handler
		pod     *corev1.Pod
		query   string
		code    int
		want    string
	}{
		{name: "unknown pod", query: "", code: 404, want: `NotFound: pods "nope" not found`},
		{name: "unknown container", pod: runningPod("web", "main"), query: "container=x", code: 400, want: "BadRequest: container x is not valid for pod web"},
		{name: "two containers, none named", pod: runningPod("web", "a", "b"), code: 400, want: "BadRequest: a container name must be specified for pod web, choose one of: [a b]"},
		{name: "not scheduled: empty log", pod: pending, code: 200, want: ""},
		{name: "node gone", pod: lost, code: 404, want: `NotFound: nodes "gone" not found`},
		{name: "bad tailLines", pod: runningPod("web", "main"), query: "tailLines=-1", code: 422, want: `Invalid: PodLogOptions "" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{name: "tailLines not a number", pod: runningPod("web", "main"), query: "tailLines=x", code: 400},
		{name: "since both ways", pod: runningPod("web", "main"), query: "sinceSeconds=1&sinceTime=2024-01-01T00:00:00Z", code: 422},
		{name: "waiting container", pod: waiting, kubelet: kubeletAnswer(404, "container not found"), code: 400,
			want: `BadRequest: container "main" in pod "waiting" is waiting to start: ContainerCreating`},
		{name: "no previous container", pod: runningPod("web", "main"), query: "previous=true", kubelet: kubeletAnswer(404, "no previous"), code: 400,
			want: `BadRequest: previous terminated container "main" in pod "web" not found`},
		{name: "kubelet's bad request", pod: runningPod("web", "main"), kubelet: kubeletAnswer(400, "tailLines is odd"), code: 400, want: "BadRequest: tailLines is odd"},
		{name: "kubelet's failure", pod: runningPod("web", "main"), kubelet: kubeletAnswer(500, "disk on fire"), code: 500, want: "InternalError: Internal error occurred: disk on fire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.kubelet
			if h == nil {
				h = kubeletAnswer(200, "")
			}
			env := newTestEnv(t, h)
			name := "nope"
			if tc.pod != nil {
				env.addPod(tc.pod)
				name = tc.pod.Name
			}
			ts := env.serve(t, &LogREST{pods: env.pods, kubelet: env.conns})
			code, msg := getStatus(t, ts.URL+"/ns/"+name+"?"+tc.query)
			if code != tc.code || (tc.want != "" || code == 200) && msg != tc.want {
				t.Fatalf("got %d %q, want %d %q", code, msg, tc.code, tc.want)
			}
		})
	}
}

func TestLogKubeletUnreachable(t *testing.T) {
	env := newTestEnv(t, kubeletAnswer(200, ""))
	env.kubelet.Close()
	env.addPod(runningPod("web", "main"))
	ts := env.serve(t, &LogREST{pods: env.pods, kubelet: env.conns})
	code, msg := getStatus(t, ts.URL+"/ns/web")
	if code != 500 || !strings.Contains(msg, "/containerLogs/ns/web/main") {
		t.Fatalf("got %d %q", code, msg)
	}
}

// echoExec is a kubelet /exec that speaks the channel protocol: it echoes
// stdin onto stdout until the client half-closes stdin, then reports
// exit code 3.
func echoExec(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{Subprotocols: []string{"v5.channel.k8s.io", "v4.channel.k8s.io"}}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = conn.Close() }()
		for {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if len(msg) >= 2 && msg[0] == 255 && msg[1] == 0 {
				break
			}
			if len(msg) > 0 && msg[0] == 0 {
				_ = conn.WriteMessage(websocket.BinaryMessage, append([]byte{1}, msg[1:]...))
			}
		}
		st, _ := json.Marshal(metav1.Status{Status: metav1.StatusFailure, Reason: "NonZeroExitCode",
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "ExitCode", Message: "3"}}}})
		_ = conn.WriteMessage(websocket.BinaryMessage, append([]byte{3}, st...))
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	})
}

func TestExecProxiesTheWebSocket(t *testing.T) {
	env := newTestEnv(t, echoExec(t))
	env.addPod(runningPod("web", "main"))
	ts := env.serve(t, NewExecREST(env.pods, env.conns, nil))

	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ns/web?command=sh&command=-c&command=cat&stdin=true&stdout=1&stderr=true&tty=false"
	d := websocket.Dialer{Subprotocols: []string{"v5.channel.k8s.io", "v4.channel.k8s.io"}, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.Dial(u, http.Header{"Authorization": {"Bearer secret"}})
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer func() { _ = conn.Close() }()
	if conn.Subprotocol() != "v5.channel.k8s.io" {
		t.Fatalf("subprotocol %q, want v5.channel.k8s.io", conn.Subprotocol())
	}
	if err := conn.WriteMessage(websocket.BinaryMessage, append([]byte{0}, "hello"...)); err != nil {
		t.Fatal(err)
	}
	_, msg, err := conn.ReadMessage()
	if err != nil || string(msg) != "\x01hello" {
		t.Fatalf("read %q, %v", msg, err)
	}
	if err := conn.WriteMessage(websocket.BinaryMessage, []byte{255, 0}); err != nil {
		t.Fatal(err)
	}
	_, msg, err = conn.ReadMessage()
	if err != nil || msg[0] != 3 || !strings.Contains(string(msg), `"message":"3"`) {
		t.Fatalf("status %q, %v", msg, err)
	}

	r := env.kubelet.last(t)
	if r.URL.Path != "/exec/ns/web/main" {
		t.Errorf("kubelet path %s", r.URL.Path)
	}
	want := url.Values{"command": {"sh", "-c", "cat"}, "stdin": {"true"}, "stdout": {"true"}, "stderr": {"true"}}
	if got := r.URL.Query(); got.Encode() != want.Encode() {
		t.Errorf("kubelet query %s, want %s", got.Encode(), want.Encode())
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("the caller's credentials reached the kubelet")
	}
}

func TestExecErrors(t *testing.T) {
	pending := runningPod("pending", "main")
	pending.Spec.NodeName = ""
	for _, tc := range []struct {
		name    string
		kubelet http.Handler
		pod     *corev1.Pod
		query   string
		code    int
		want    string
	}{
		{name: "not scheduled", pod: pending, code: 400, want: "BadRequest: pod pending does not have a host assigned"},
		{name: "unknown container", pod: runningPod("web", "main"), query: "container=x", code: 400, want: "BadRequest: container x is not valid for pod web"},
		{name: "kubelet refuses", pod: runningPod("web", "main"), kubelet: kubeletAnswer(400, "container main is not running"), code: 400, want: "BadRequest: container main is not running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.kubelet
			if h == nil {
				h = kubeletAnswer(200, "")
			}
			env := newTestEnv(t, h)
			env.addPod(tc.pod)
			ts := env.serve(t, NewExecREST(env.pods, env.conns, nil))
			code, msg := getStatus(t, ts.URL+"/ns/"+tc.pod.Name+"?command=true&stdout=true&"+tc.query)
			if code != tc.code || msg != tc.want {
				t.Fatalf("got %d %q, want %d %q", code, msg, tc.code, tc.want)
			}
		})
	}
}

// denyConnect refuses every CONNECT, recording what it saw.
type denyConnect struct{ seen *rest.Attributes }

func (d *denyConnect) Admit(context.Context, *rest.Attributes) error { return nil }
func (d *denyConnect) Validate(_ context.Context, a *rest.Attributes) error {
	d.seen = a
	return apierrors.NewForbidden(corev1.Resource("pods"), a.Name, errors.New("no exec here"))
}

// TestExecPassesAdmission checks that an exec is a CONNECT of pods/exec
// admission can refuse before the kubelet is reached.
func TestExecPassesAdmission(t *testing.T) {
	env := newTestEnv(t, echoExec(t))
	env.addPod(runningPod("web", "main"))
	adm := &denyConnect{}
	ts := env.serve(t, NewExecREST(env.pods, env.conns, adm))
	resp, err := http.Post(ts.URL+"/ns/web?command=true&stdout=true", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
	a := adm.seen
	if a == nil || a.Operation != rest.OperationConnect || a.Subresource != "exec" || a.OldObject != nil ||
		a.Kind != corev1.SchemeGroupVersion.WithKind("PodExecOptions") {
		t.Fatalf("admission saw %+v", a)
	}
	opts, ok := a.Object.(*corev1.PodExecOptions)
	if !ok || opts.Container != "main" || len(opts.Command) != 1 || opts.Command[0] != "true" || opts.Stdin || !opts.Stdout {
		t.Errorf("admission's object %#v, want the PodExecOptions of container main, command [true], stdout", a.Object)
	}
}

// TestLogOverWebSocket: pods/log streams over a WebSocket, as the e2e
// "retrieving logs from the container over websockets" spec reads it: one
// message per chunk, binary under binary.k8s.io (or no subprotocol),
// base64 text under base64.binary.k8s.io, closed at the end of the log; a
// client asking only for other subprotocols is refused.
func TestLogOverWebSocket(t *testing.T) {
	env := newTestEnv(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "container is alive\n")
	}))
	env.addPod(runningPod("web", "main"))
	ts := env.serve(t, &LogREST{pods: env.pods, kubelet: env.conns})
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ns/web?container=main"
	for _, tc := range []struct {
		protocols []string
		chosen    string
		kind      int
		decode    func([]byte) string
	}{
		{[]string{"binary.k8s.io"}, "binary.k8s.io", websocket.BinaryMessage, func(b []byte) string { return string(b) }},
		{nil, "", websocket.BinaryMessage, func(b []byte) string { return string(b) }},
		{[]string{"v9.k8s.io", "base64.binary.k8s.io"}, "base64.binary.k8s.io", websocket.TextMessage, func(b []byte) string {
			d, err := base64.StdEncoding.DecodeString(string(b))
			if err != nil {
				t.Fatalf("message %q: %v", b, err)
			}
			return string(d)
		}},
	} {
		d := websocket.Dialer{Subprotocols: tc.protocols, HandshakeTimeout: 10 * time.Second}
		conn, _, err := d.Dial(u, nil)
		if err != nil {
			t.Fatalf("%v: dial: %v", tc.protocols, err)
		}
		if conn.Subprotocol() != tc.chosen {
			t.Errorf("%v: subprotocol %q, want %q", tc.protocols, conn.Subprotocol(), tc.chosen)
		}
		var got string
		for {
			kind, msg, err := conn.ReadMessage()
			if err != nil {
				if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
					t.Errorf("%v: %v", tc.protocols, err)
				}
				break
			}
			if kind != tc.kind {
				t.Errorf("%v: message of type %d", tc.protocols, kind)
			}
			got += tc.decode(msg)
		}
		_ = conn.Close()
		if got != "container is alive\n" {
			t.Errorf("%v: log %q", tc.protocols, got)
		}
	}
	d := websocket.Dialer{Subprotocols: []string{"v4.channel.k8s.io"}, HandshakeTimeout: 10 * time.Second}
	if _, resp, err := d.Dial(u, nil); err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("dial with only an unknown subprotocol: %v, %v", resp, err)
	}
}
