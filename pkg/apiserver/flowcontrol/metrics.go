package flowcontrol

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the controller's Prometheus collectors, named and labelled
// as Kubernetes' apiserver_flowcontrol_* metrics.
type Metrics struct {
	inQueue    *prometheus.GaugeVec
	executing  *prometheus.GaugeVec
	rejectedV  *prometheus.CounterVec
	dispatched *prometheus.CounterVec
	nominal    *prometheus.GaugeVec

	mu    sync.Mutex
	flows map[[2]string]*flowMetrics
}

// flowMetrics are the children of one priority level and FlowSchema,
// looked up once per configuration rather than per request.
type flowMetrics struct {
	inQueue, executing prometheus.Gauge
	dispatched         prometheus.Counter
	byReason           map[string]prometheus.Counter
}

var _ prometheus.Collector = (*Metrics)(nil)

func newMetrics() *Metrics {
	labels := []string{"priority_level", "flow_schema"}
	return &Metrics{
		inQueue: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_flowcontrol_current_inqueue_requests",
			Help: "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
		}, labels),
		executing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_flowcontrol_current_executing_seats",
			Help: "Concurrency (number of seats) occupied by the currently executing requests in the API Priority and Fairness subsystem",
		}, labels),
		rejectedV: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_flowcontrol_rejected_requests_total",
			Help: "Number of requests rejected by API Priority and Fairness subsystem",
		}, append(labels, "reason")),
		dispatched: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_flowcontrol_dispatched_requests_total",
			Help: "Number of requests executed by API Priority and Fairness subsystem",
		}, labels),
		nominal: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_flowcontrol_nominal_limit_seats",
			Help: "Nominal number of execution seats configured for each priority level",
		}, []string{"priority_level"}),
		flows: map[[2]string]*flowMetrics{},
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.inQueue, m.executing, m.rejectedV, m.dispatched, m.nominal}
}

// flow returns the children of level and schema.
func (m *Metrics) flow(level, schema string) *flowMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := [2]string{level, schema}
	if f := m.flows[key]; f != nil {
		return f
	}
	f := &flowMetrics{
		inQueue:    m.inQueue.WithLabelValues(level, schema),
		executing:  m.executing.WithLabelValues(level, schema),
		dispatched: m.dispatched.WithLabelValues(level, schema),
		byReason:   map[string]prometheus.Counter{},
	}
	for _, r := range []string{ReasonQueueFull, ReasonTimeout, ReasonConcurrencyLimit, ReasonCancelled} {
		f.byReason[r] = m.rejectedV.WithLabelValues(level, schema, r)
	}
	m.flows[key] = f
	return f
}

// rejected is the rejection counter for reason.
func (f *flowMetrics) rejected(reason string) prometheus.Counter { return f.byReason[reason] }
