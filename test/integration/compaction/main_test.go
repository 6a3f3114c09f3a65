// Package compaction tests that the API server keeps etcd bounded: its
// compactor removes the history older than one interval (watches from
// before it get 410 Gone, informers list again), several API servers on one
// etcd compact once per interval between them, and events expire after
// --event-ttl through shared etcd leases.
package compaction

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/test/integration/framework"
)

// startEtcd starts an etcd of the test's own: the compactors' shared key
// must not see other tests' servers.
func startEtcd(t *testing.T) *framework.Etcd {
	t.Helper()
	e, err := framework.StartEtcd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

// metric reads one sample of s's /metrics, such as
// `apiserver_storage_compactions_total{result="compacted"}`; absent is -1.
func metric(t *testing.T, s *framework.APIServer, sample string) float64 {
	t.Helper()
	return metricMatching(t, s, func(name string) bool { return name == sample })
}

// metricMatching reads the first sample of s's /metrics whose name (with
// its labels) match accepts; absent is -1.
func metricMatching(t *testing.T, s *framework.APIServer, match func(string) bool) float64 {
	t.Helper()
	resp, err := s.HTTPClient(t).Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && match(name) {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", name, err)
			}
			return v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return -1
}

func compactions(t *testing.T, s *framework.APIServer, result string) float64 {
	t.Helper()
	return metric(t, s, fmt.Sprintf("apiserver_storage_compactions_total{result=%q}", result))
}

// gatedListWatch lets a test cut an informer's watch and hold back the
// next one, so that its resourceVersion grows old.
type gatedListWatch struct {
	lw cache.ListerWatcher

	mu      sync.Mutex
	open    chan struct{} // closed while watches may start
	current []watch.Interface
}

func newGatedListWatch(lw cache.ListerWatcher) *gatedListWatch {
	open := make(chan struct{})
	close(open)
	return &gatedListWatch{lw: lw, open: open}
}

var _ cache.ListerWatcher = (*gatedListWatch)(nil)

func (g *gatedListWatch) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return g.lw.List(ctx, opts)
}

func (g *gatedListWatch) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w, err := g.lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.current = append(g.current, w)
	g.mu.Unlock()
	return w, nil
}

// pause stops the running watches and holds back new ones until resume.
func (g *gatedListWatch) pause() {
	g.mu.Lock()
	g.open = make(chan struct{})
	current := g.current
	g.current = nil
	g.mu.Unlock()
	for _, w := range current {
		w.Stop()
	}
}

func (g *gatedListWatch) resume() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}
