// Package compaction tests that the API server keeps etcd bounded: its
// compactor removes the history older than one interval (watches from
// before it get 410 Gone, informers list again), several API servers on one
// etcd compact once per interval between them, and events expire after
// --event-ttl through shared etcd leases.
package compaction

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

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
