package apiserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// externalEtcd is Debian's etcd binary run on loopback ports in a temp dir;
// it can be killed and started again on the same data and ports.
type externalEtcd struct {
	t        *testing.T
	bin, dir string
	client   string
	peer     string
	mu       sync.Mutex
	cmd      *exec.Cmd
	logs     *strings.Builder
}

// freeLoopbackPort returns a port nothing listens on right now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newExternalEtcd finds the etcd binary; without it the test fails
// (hack/install-deps.sh installs Debian's etcd-server).
func newExternalEtcd(t *testing.T) *externalEtcd {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatalf("the etcd binary is missing; run hack/install-deps.sh (Debian's etcd-server): %v", err)
	}
	e := &externalEtcd{
		t: t, bin: bin, dir: t.TempDir(),
		client: fmt.Sprintf("http://127.0.0.1:%d", freeLoopbackPort(t)),
		peer:   fmt.Sprintf("http://127.0.0.1:%d", freeLoopbackPort(t)),
	}
	t.Cleanup(func() {
		e.kill()
		if t.Failed() {
			t.Logf("etcd output:\n%s", e.logs)
		}
	})
	return e
}

// start runs etcd and waits until its client port answers.
func (e *externalEtcd) start() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	cmd := exec.Command(e.bin,
		"--name", "outage", "--data-dir", e.dir,
		"--listen-client-urls", e.client, "--advertise-client-urls", e.client,
		"--listen-peer-urls", e.peer, "--initial-advertise-peer-urls", e.peer,
		"--initial-cluster", "outage="+e.peer, "--unsafe-no-fsync",
		"--heartbeat-interval", "10", "--election-timeout", "100")
	if e.logs == nil {
		e.logs = &strings.Builder{}
	}
	cmd.Stdout, cmd.Stderr = e.logs, e.logs
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("start etcd: %v", err)
	}
	e.cmd = cmd
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(e.client + "/health")
		if err == nil {
			healthy := resp.StatusCode == http.StatusOK
			_ = resp.Body.Close()
			if healthy {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("etcd not healthy after 20s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill sends SIGKILL to the etcd this test started, by PID, and reaps it.
func (e *externalEtcd) kill() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cmd == nil {
		return
	}
	_ = syscall.Kill(e.cmd.Process.Pid, syscall.SIGKILL)
	_ = e.cmd.Wait()
	e.cmd = nil
}

// TestEtcdOutage: with its etcd killed, the API server answers requests
// with a 5xx Status within the storage timeout instead of hanging (a LIST
// with resourceVersion=0 may be served from the watch cache, as Kubernetes
// does) and fails /readyz; when etcd comes back on the same data it serves
// again, with the old objects, and a watch opened before the outage either
// ended or goes on delivering events.
func TestEtcdOutage(t *testing.T) {
	e := newExternalEtcd(t)
	e.start()
	s := framework.StartAPIServer(t, framework.APIServerOptions{EtcdServers: []string{e.client}})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "outage")
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	kept := createConfigMap(t, c, s, ns, "kept", map[string]string{"a": "b"})
	wctx, wcancel := context.WithCancel(context.Background())
	defer wcancel()
	w := openWatch(wctx, t, c, s, base+"?watch=true&resourceVersion="+kept.Metadata.ResourceVersion)
	// oldWatch reports each event of the watch opened before the outage,
	// then how it ended.
	oldWatch := make(chan string, 16)
	go func() {
		defer close(oldWatch)
		for {
			ev, err := w.next()
			if err != nil {
				oldWatch <- fmt.Sprintf("stream ended: %v", err)
				return
			}
			oldWatch <- ev.Type + " " + ev.Object.Metadata.Name
			if ev.Type == "ERROR" {
				return
			}
		}
	}()

	e.kill()
	killedAt := time.Now()

	// Every kind of request fails with a 5xx Status, within the storage
	// request timeout (10 s) plus slack: not the 60 s request timeout.
	const bound = 15 * time.Second
	reqs := []request{
		{method: http.MethodGet, path: base + "/kept"},
		{method: http.MethodGet, path: base},
		{method: http.MethodPost, path: base, contentType: contentJSON, body: strings.NewReader(configMapJSON(ns, "during", nil))},
		{method: http.MethodPatch, path: base + "/kept", contentType: "application/merge-patch+json", body: strings.NewReader(`{"data":{"a":"c"}}`)},
		{method: http.MethodDelete, path: base + "/kept"},
	}
	results := make([]response, len(reqs))
	took := make([]time.Duration, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			start := time.Now()
			results[i], errs[i] = tryDo(ctx, c, s, req)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for i, req := range reqs {
		what := req.method + " " + strings.TrimPrefix(req.path, base)
		switch {
		case errs[i] != nil:
			t.Errorf("%s with etcd down: %v", what, errs[i])
		case results[i].code < 500:
			t.Errorf("%s with etcd down: %d %s, want a 5xx Status", what, results[i].code, results[i].body)
		case took[i] > bound:
			t.Errorf("%s with etcd down took %v, want at most %v", what, took[i], bound)
		default:
			st := results[i].status(t)
			if st.Status != metav1.StatusFailure || st.Code != int32(results[i].code) {
				t.Errorf("%s with etcd down: Status %+v", what, st)
			}
			t.Logf("%s with etcd down: %d %s in %v", what, st.Code, st.Reason, took[i].Round(time.Millisecond))
		}
	}
	start := time.Now()
	switch r := do(t, c, s, request{method: http.MethodGet, path: base + "?resourceVersion=0"}); {
	case time.Since(start) > bound:
		t.Errorf("LIST resourceVersion=0 with etcd down took %v", time.Since(start))
	case r.code == http.StatusOK:
		if l := decodeList(t, r); len(l.Items) != 1 {
			t.Errorf("LIST resourceVersion=0 from the cache with etcd down: %d items, want 1", len(l.Items))
		}
	case r.code < 500:
		t.Errorf("LIST resourceVersion=0 with etcd down: %d %s", r.code, r.body)
	}
	if r := do(t, c, s, request{method: http.MethodGet, path: "/readyz?verbose"}); r.code != http.StatusInternalServerError || !strings.Contains(string(r.body), "[-]etcd failed") {
		t.Errorf("/readyz with etcd down: %d %s, want 500 naming the etcd check", r.code, r.body)
	}
	if r := do(t, c, s, request{method: http.MethodGet, path: "/livez"}); r.code != http.StatusOK {
		t.Errorf("/livez with etcd down: %d %s, want 200: the process itself is fine", r.code, r.body)
	}
	t.Logf("outage checks done %v after the kill", time.Since(killedAt).Round(time.Millisecond))

	e.start()
	restartedAt := time.Now()
	deadline := restartedAt.Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		r, err := tryDo(ctx, c, s, request{method: http.MethodGet, path: base + "/kept"})
		cancel()
		if err == nil && r.code == http.StatusOK {
			got := decodeObject(t, r)
			if got.Metadata.ResourceVersion != kept.Metadata.ResourceVersion || got.Data["a"] != "b" {
				t.Errorf("after the outage: kept at %s with %v, want %s with a=b", got.Metadata.ResourceVersion, got.Data, kept.Metadata.ResourceVersion)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not recover within 30s of etcd's return: %v %d %s", err, r.code, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("serving again %v after etcd came back", time.Since(restartedAt).Round(time.Millisecond))
	createConfigMap(t, c, s, ns, "after", nil)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := do(t, c, s, request{method: http.MethodGet, path: "/readyz"})
		if r.code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz after the outage: %d %s", r.code, r.body)
		}
	}
	wctx2, wcancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel2()
	l := decodeList(t, do(t, c, s, request{method: http.MethodGet, path: base}))
	w2 := openWatch(wctx2, t, c, s, base+"?watch=true&resourceVersion="+l.Metadata.ResourceVersion)
	createConfigMap(t, c, s, ns, "watched", nil)
	ev, err := w2.next()
	if err != nil || ev.Type != "ADDED" || ev.Object.Metadata.Name != "watched" {
		t.Errorf("watch after the outage: %s %s, %v; want ADDED watched", ev.Type, ev.Raw, err)
	}
	// The watch from before the outage must not hang silently: it has
	// ended, or it delivers the new objects.
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case got, ok := <-oldWatch:
			switch {
			case !ok:
				done = true
			case got == "ADDED watched" || strings.HasPrefix(got, "stream ended") || strings.HasPrefix(got, "ERROR"):
				t.Logf("the watch opened before the outage: %s", got)
				done = true
			}
		case <-timeout:
			t.Errorf("the watch opened before the outage neither ended nor delivered ADDED watched")
			done = true
		}
	}
}
