package scheduler

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Results of a scheduling attempt, the "result" label of the metrics.
const (
	resultScheduled     = "scheduled"
	resultUnschedulable = "unschedulable"
	resultError         = "error"
)

// metrics are the scheduler's Prometheus collectors.
type metrics struct {
	attempts        *prometheus.CounterVec
	attemptDuration *prometheus.HistogramVec
	e2eLatency      prometheus.Histogram
	preemptions     prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, profile string, lengths func() (active, backoff, unschedulable int)) (*metrics, error) {
	constLabels := prometheus.Labels{"profile": profile}
	m := &metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name:        "scheduler_schedule_attempts_total",
			Help:        "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
			ConstLabels: constLabels,
		}, []string{"result"}),
		attemptDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:        "scheduler_scheduling_attempt_duration_seconds",
			Help:        "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
			Buckets:     prometheus.ExponentialBuckets(0.001, 2, 15),
			ConstLabels: constLabels,
		}, []string{"result"}),
		e2eLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:        "scheduler_pod_scheduling_sli_duration_seconds",
			Help:        "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.",
			Buckets:     prometheus.ExponentialBuckets(0.01, 2, 20),
			ConstLabels: constLabels,
		}),
		preemptions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "scheduler_preemption_attempts_total",
			Help: "Total preemption attempts in the cluster till now",
		}),
	}
	collectors := []prometheus.Collector{m.attempts, m.attemptDuration, m.e2eLatency, m.preemptions}
	for i, q := range []string{"active", "backoff", "unschedulable"} {
		collectors = append(collectors, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "scheduler_pending_pods",
			Help:        "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods.",
			ConstLabels: prometheus.Labels{"queue": q, "profile": profile},
		}, func() float64 {
			a, b, u := lengths()
			return float64([]int{a, b, u}[i])
		}))
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
