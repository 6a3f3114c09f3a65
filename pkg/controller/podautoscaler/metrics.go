package podautoscaler

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/rest"
)

// MetricsClient reads the resource metrics of pods (metrics.k8s.io).
type MetricsClient interface {
	// PodMetrics returns the usage of every pod of namespace whose labels
	// match selector, by pod name: the sum of its containers' usage of
	// resource (cpu in millicores, memory in bytes), with the time and
	// window of the measurement.
	PodMetrics(ctx context.Context, namespace string, selector labels.Selector, resource corev1.ResourceName) (map[string]PodMetric, error)
}

// PodMetric is one pod's usage of a resource.
type PodMetric struct {
	// Value is millicores for cpu, bytes for memory (milli-units for
	// any other resource).
	Value     int64
	Timestamp time.Time
	Window    time.Duration
}

// podMetricsList is the part of a metrics.k8s.io/v1beta1 PodMetricsList
// the controller reads.
type podMetricsList struct {
	Items []struct {
		Metadata   metav1.ObjectMeta `json:"metadata"`
		Timestamp  metav1.Time       `json:"timestamp"`
		Window     metav1.Duration   `json:"window"`
		Containers []struct {
			Name  string                                    `json:"name"`
			Usage map[corev1.ResourceName]resource.Quantity `json:"usage"`
		} `json:"containers"`
	} `json:"items"`
}

// RESTMetricsClient reads /apis/metrics.k8s.io/v1beta1 through the API
// server (which proxies it to metrics-server through the aggregation
// layer).
type RESTMetricsClient struct {
	// Client is a REST client of the API server (any group: the path is
	// absolute).
	Client *rest.Client
}

var _ MetricsClient = RESTMetricsClient{}

// PodMetrics lists the PodMetrics of namespace matching selector.
func (m RESTMetricsClient) PodMetrics(ctx context.Context, namespace string, selector labels.Selector, res corev1.ResourceName) (map[string]PodMetric, error) {
	req := m.Client.Get().AbsPath("/apis/metrics.k8s.io/v1beta1/namespaces/" + namespace + "/pods")
	if selector != nil && !selector.Empty() {
		req = req.Param("labelSelector", selector.String())
	}
	body, err := req.DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("unable to fetch metrics from resource metrics API: %w", err)
	}
	var list podMetricsList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("unable to decode metrics from resource metrics API: %w", err)
	}
	out := make(map[string]PodMetric, len(list.Items))
	for _, item := range list.Items {
		var sum int64
		missing := false
		for _, c := range item.Containers {
			q, ok := c.Usage[res]
			if !ok {
				missing = true
				break
			}
			if res == corev1.ResourceMemory {
				sum += q.Value()
			} else {
				sum += q.MilliValue()
			}
		}
		if missing {
			continue // as Kubernetes: a pod missing a container's figure has no metric
		}
		out[item.Metadata.Name] = PodMetric{Value: sum, Timestamp: item.Timestamp.Time, Window: item.Window.Duration}
	}
	return out, nil
}
