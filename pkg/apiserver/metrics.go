package apiserver

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus collectors, in its own registry.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	watchers *prometheus.GaugeVec
	inFlight *prometheus.GaugeVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out by verb, resource and HTTP response code.",
		}, []string{"verb", "group", "version", "resource", "subresource", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds by verb and resource.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 5, 10, 30, 60},
		}, []string{"verb", "group", "version", "resource", "subresource"}),
		watchers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_registered_watchers",
			Help: "Number of currently open watches by resource.",
		}, []string{"group", "version", "resource"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_current_inflight_requests",
			Help: "Number of requests being served, by kind (readOnly or mutating).",
		}, []string{"request_kind"}),
	}
	reg.MustRegister(m.requests, m.duration, m.watchers, m.inFlight,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(verb, group, version, resource, sub string, code int, d time.Duration) {
	m.requests.WithLabelValues(verb, group, version, resource, sub, strconv.Itoa(code)).Inc()
	m.duration.WithLabelValues(verb, group, version, resource, sub).Observe(d.Seconds())
}

func promhttpHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
