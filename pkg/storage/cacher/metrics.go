package cacher

import (
	"maps"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Stats are a watch cache's sizes at one moment.
type Stats struct {
	Objects  int // objects cached
	Events   int // events held in the ring
	Capacity int // the ring's size
}

// Stats reads the cache's sizes.
func (c *Cacher) Stats() Stats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Stats{Objects: len(c.objects), Events: c.ringLen, Capacity: len(c.ring)}
}

// Collector exports the sizes of the watch caches added to it, by group
// and resource: apiserver_watch_cache_capacity (as Kubernetes names the
// ring's size), apiserver_watch_cache_events (events held) and
// apiserver_watch_cache_objects (objects cached).
type Collector struct {
	mu     sync.Mutex
	caches map[[2]string]*Cacher // by group, resource

	capacity, events, objects *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a Collector of no caches.
func NewCollector() *Collector {
	labels := []string{"group", "resource"}
	return &Collector{
		caches:   map[[2]string]*Cacher{},
		capacity: prometheus.NewDesc("apiserver_watch_cache_capacity", "Events the watch cache's ring can hold.", labels, nil),
		events:   prometheus.NewDesc("apiserver_watch_cache_events", "Events the watch cache's ring holds.", labels, nil),
		objects:  prometheus.NewDesc("apiserver_watch_cache_objects", "Objects the watch cache holds.", labels, nil),
	}
}

// Add exports c as the cache of group and resource (replacing an earlier
// one); a stopped cache is left out.
func (m *Collector) Add(group, resource string, c *Cacher) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.caches[[2]string{group, resource}] = c
}

// Describe implements prometheus.Collector.
func (m *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.capacity
	ch <- m.events
	ch <- m.objects
}

// Collect implements prometheus.Collector.
func (m *Collector) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	caches := maps.Clone(m.caches)
	m.mu.Unlock()
	for k, c := range caches {
		select {
		case <-c.done:
			continue
		default:
		}
		s := c.Stats()
		ch <- prometheus.MustNewConstMetric(m.capacity, prometheus.GaugeValue, float64(s.Capacity), k[0], k[1])
		ch <- prometheus.MustNewConstMetric(m.events, prometheus.GaugeValue, float64(s.Events), k[0], k[1])
		ch <- prometheus.MustNewConstMetric(m.objects, prometheus.GaugeValue, float64(s.Objects), k[0], k[1])
	}
}
