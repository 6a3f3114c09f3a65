package etcd3

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"kubecore.io/kubecore/pkg/storage"
)

// freePort returns a loopback port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startExternalEtcd runs Debian's etcd binary in a temp dir on free
// loopback ports and kills it (by PID) when the test ends. Without the
// binary the test fails in CI and is skipped elsewhere.
func startExternalEtcd(t *testing.T) (*clientv3.Client, func()) {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the etcd binary is missing (hack/install-deps.sh installs etcd-server): %v", err)
		}
		t.Skipf("no etcd binary (apt-get install etcd-server): %v", err)
	}
	dir := t.TempDir()
	client := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	peer := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin,
		"--name", "ext", "--data-dir", dir,
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "ext="+peer, "--unsafe-no-fsync",
		"--heartbeat-interval", "10", "--election-timeout", "100")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var killOnce sync.Once
	kill := func() {
		killOnce.Do(func() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
	}
	t.Cleanup(func() {
		kill()
		if t.Failed() {
			t.Logf("etcd (pid %d) output:\n%s", pid, logs.String())
		}
	})
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{client}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Get(ctx, "health")
		cancel()
		if err == nil {
			return c, kill
		}
		if time.Now().After(deadline) {
			t.Fatalf("external etcd not ready: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestExternalEtcd runs the main paths against an etcd 3.4 process through
// a network client.
func TestExternalEtcd(t *testing.T) {
	client, kill := startExternalEtcd(t)
	s, _ := newTestStore(t, client)
	ctx := ctxT(t)

	a := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	stale := "1"
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", &storage.Preconditions{ResourceVersion: &stale}, false, increment, nil); !storage.IsConflict(err) {
		t.Errorf("stale update: %v, want Conflict", err)
	}
	u, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, a)
	if err != nil {
		t.Fatal(err)
	}
	seedNames := []string{"b", "c", "d"}
	for _, n := range seedNames {
		mustCreate(t, s, "/widgets/default/"+n, newWidget(n, nil))
	}
	got, _ := listAll(t, s, storage.SelectionPredicate{Limit: 2}, nil)
	if strings.Join(got, ",") != "a,b,c,d" {
		t.Errorf("list %v", got)
	}
	if got := describe(next(t, w)); got != "MODIFIED a 1 "+rvOf(t, u) {
		t.Errorf("first event %q", got)
	}
	d, err := s.Delete(ctx, "/widgets/default/a", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := s.CurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Compact(ctx, int64(cur)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion, ResourceVersionMatch: "Exact"}); !storage.IsExpired(err) {
		t.Errorf("list at a compacted revision: %v, want Expired", err)
	}
	w2, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	if ev := next(t, w2); ev.Type != "ERROR" {
		t.Errorf("watch from a compacted revision: %s", describe(ev))
	}
	_ = d

	// Etcd goes away under a running watch: the watch ends with an ERROR
	// event instead of hanging, and calls fail with Unreachable.
	s2, _ := newTestStore(t, client, func(c *Config) {
		c.RequestTimeout = 300 * time.Millisecond
		c.WatchProbeInterval = 100 * time.Millisecond
	})
	w3, err := s2.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w3.Stop()
	kill()
	sawError := false
	timeout := time.After(10 * time.Second)
	for !sawError {
		select {
		case ev, ok := <-w3.ResultChan():
			if !ok {
				t.Fatal("watch closed without an ERROR event")
			}
			sawError = ev.Type == "ERROR"
		case <-timeout:
			t.Fatal("watch still open 10s after etcd died")
		}
	}
	expectClosed(t, w3)
	if _, err := s2.Get(ctx, "/widgets/default/b", storage.GetOptions{}); !storage.IsUnreachable(err) {
		t.Errorf("get with etcd gone: %v, want Unreachable", err)
	}
}
