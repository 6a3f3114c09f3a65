// Package compaction tests that the API server keeps etcd bounded: its
// compactor removes the history older than one interval (watches from
// before it get 410 Gone, informers list again), several API servers on one
// etcd compact once per interval between them, and events expire after
// --event-ttl through shared etcd leases.
package compaction

import (
	"net/http"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
	"kubecore.io/kubecore/test/utils/promtext"
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

// scrape reads s's /metrics.
func scrape(t *testing.T, s *framework.APIServer) promtext.Scrape {
	t.Helper()
	resp, err := s.HTTPClient(t).Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	m, err := promtext.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// metric reads the sample of s's /metrics of that name and labels (nil for
// none); absent is -1.
func metric(t *testing.T, s *framework.APIServer, name string, labels map[string]string) float64 {
	t.Helper()
	if v, ok := scrape(t, s).Value(name, labels); ok {
		return v
	}
	return -1
}

func compactions(t *testing.T, s *framework.APIServer, result string) float64 {
	t.Helper()
	return metric(t, s, "apiserver_storage_compactions_total", map[string]string{"result": result})
}
