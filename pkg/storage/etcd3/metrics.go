package etcd3

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"
)

// sizeScrapeTimeout bounds the Status calls of one scrape of /metrics.
const sizeScrapeTimeout = 2 * time.Second

// SizeCollector exports the size of the etcd database file as Kubernetes
// does, apiserver_storage_size_bytes labelled with the etcd cluster's ID
// (storage_cluster_id), asking the members for their status at each
// scrape: the largest file of the cluster's members answering. A scrape
// that no member answers leaves the metric out.
type SizeCollector struct {
	client    *clientv3.Client
	endpoints []string
	size      *prometheus.Desc
}

var _ prometheus.Collector = (*SizeCollector)(nil)

// NewSizeCollector asks endpoints (the --etcd-servers, or the embedded
// member's client URL) through client.
func NewSizeCollector(client *clientv3.Client, endpoints []string) *SizeCollector {
	return &SizeCollector{
		client:    client,
		endpoints: endpoints,
		size: prometheus.NewDesc("apiserver_storage_size_bytes",
			"Bytes the etcd database file takes on disk (the largest member of the cluster), by etcd cluster ID.",
			[]string{"storage_cluster_id"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *SizeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.size }

// Collect implements prometheus.Collector.
func (c *SizeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), sizeScrapeTimeout)
	defer cancel()
	sizes := map[uint64]int64{}
	for _, ep := range c.endpoints {
		st, err := c.client.Status(ctx, ep)
		if err != nil {
			klog.V(4).InfoS("Reading the etcd database size", "endpoint", ep, "err", err)
			continue
		}
		id := st.Header.GetClusterId()
		sizes[id] = max(sizes[id], st.DbSize)
	}
	for id, size := range sizes {
		ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(size), strconv.FormatUint(id, 16))
	}
}
