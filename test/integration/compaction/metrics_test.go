package compaction

import (
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
		m := scrape(t, s)
		var size float64
		for _, x := range m {
			if x.Name == "apiserver_storage_size_bytes" && x.Labels["storage_cluster_id"] != "" {
				size = x.Value
			}
		}
		if size <= 0 {
			t.Errorf("%s etcd: apiserver_storage_size_bytes{storage_cluster_id} = %v, want the database size", name, size)
		}
		// The watch caches' sizes: the namespaces the server starts with.
		ns := map[string]string{"group": "", "resource": "namespaces"}
		if v, ok := m.Value("apiserver_watch_cache_objects", ns); !ok || v < 4 {
			t.Errorf("%s etcd: apiserver_watch_cache_objects%v = %v (present %v), want the 4 built-in namespaces", name, ns, v, ok)
		}
		if v, _ := m.Value("apiserver_watch_cache_capacity", ns); v <= 0 {
			t.Errorf("%s etcd: apiserver_watch_cache_capacity%v = %v", name, ns, v)
		}
	}
	total := metric(t, embedded, "etcd_mvcc_db_total_size_in_bytes", nil)
	inUse := metric(t, embedded, "etcd_mvcc_db_total_size_in_use_in_bytes", nil)
	if total <= 0 || inUse <= 0 || inUse > total {
		t.Errorf("embedded member: size %v, in use %v", total, inUse)
	}
	if v := metric(t, external, "etcd_mvcc_db_total_size_in_bytes", nil); v != -1 {
		t.Errorf("an apiserver on an external etcd exports etcd_mvcc_db_total_size_in_bytes = %v", v)
	}
	if v := compactions(t, embedded, "skipped"); v < 0 {
		t.Error("no apiserver_storage_compactions_total with the default interval")
	}
}
