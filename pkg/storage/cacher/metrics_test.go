package cacher

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestCollector: the sizes of a cache — objects, events in its ring, the
// ring's capacity — are exported by group and resource, and a stopped
// cache is left out.
func TestCollector(t *testing.T) {
	under := newEtcdStorage(t)
	mustCreate(t, under, newPod("a", "before-1", "", nil))
	mustCreate(t, under, newPod("a", "before-2", "", nil))
	c := newTestCacher(t, under, func(cfg *Config) { cfg.EventRingSize = 3 })
	for i := range 4 {
		mustCreate(t, c, newPod("a", fmt.Sprintf("after-%d", i), "", nil))
	}
	want := Stats{Objects: 6, Events: 3, Capacity: 3}
	deadline := time.Now().Add(10 * time.Second)
	for c.Stats() != want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := c.Stats(); got != want {
		t.Fatalf("Stats() = %+v, want %+v", got, want)
	}

	m := NewCollector()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	m.Add("", "pods", c)
	gathered := func() map[string]float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, f := range families {
			for _, s := range f.GetMetric() {
				labels := ""
				for _, l := range s.GetLabel() {
					labels += l.GetName() + "=" + l.GetValue() + ","
				}
				out[f.GetName()+"{"+labels+"}"] = s.GetGauge().GetValue()
			}
		}
		return out
	}
	got := gathered()
	for name, v := range map[string]float64{
		"apiserver_watch_cache_objects{group=,resource=pods,}":  6,
		"apiserver_watch_cache_events{group=,resource=pods,}":   3,
		"apiserver_watch_cache_capacity{group=,resource=pods,}": 3,
	} {
		if got[name] != v {
			t.Errorf("%s = %v, want %v (all: %v)", name, got[name], v, got)
		}
	}
	c.Stop()
	if got := gathered(); len(got) != 0 {
		t.Errorf("a stopped cache is still exported: %v", got)
	}
}
