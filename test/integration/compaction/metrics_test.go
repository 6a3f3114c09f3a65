package compaction

import (
	"strings"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestStorageSizeMetrics: /metrics has the database size as Kubernetes
// names it, by etcd cluster, for an external etcd and an embedded member,
// and the embedded member's own size and in-use size.
func TestStorageSizeMetrics(t *testing.T) {
	e := startEtcd(t)
	external := framework.StartAPIServer(t, framework.APIServerOptions{EtcdServers: e.URLs()})
	embedded := framework.StartAPIServer(t, framework.APIServerOptions{})
	for name, s := range map[string]*framework.APIServer{"external": external, "embedded": embedded} {
		size := metricMatching(t, s, func(n string) bool {
			return strings.HasPrefix(n, `apiserver_storage_size_bytes{storage_cluster_id="`)
		})
		if size <= 0 {
			t.Errorf("%s etcd: apiserver_storage_size_bytes{storage_cluster_id} = %v, want the database size", name, size)
		}
	}
	total := metric(t, embedded, "etcd_mvcc_db_total_size_in_bytes")
	inUse := metric(t, embedded, "etcd_mvcc_db_total_size_in_use_in_bytes")
	if total <= 0 || inUse <= 0 || inUse > total {
		t.Errorf("embedded member: size %v, in use %v", total, inUse)
	}
	if v := metric(t, external, "etcd_mvcc_db_total_size_in_bytes"); v != -1 {
		t.Errorf("an apiserver on an external etcd exports etcd_mvcc_db_total_size_in_bytes = %v", v)
	}
	if v := compactions(t, embedded, "skipped"); v < 0 {
		t.Error("no apiserver_storage_compactions_total with the default interval")
	}
}
