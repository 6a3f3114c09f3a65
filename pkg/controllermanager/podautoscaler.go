package controllermanager

import (
	"fmt"

	"kubecore.io/client/rest"

	"kubecore.io/kubecore/pkg/controller/podautoscaler"
)

// newPodAutoscaler builds the HPA controller, reading pod metrics from
// metrics.k8s.io through the API server.
func newPodAutoscaler(cl Clients, cc ControllerContext) (*podautoscaler.Controller, error) {
	rc, err := rest.NewClient(cc.RESTConfig, rest.ClientOptions{})
	if err != nil {
		return nil, fmt.Errorf("metrics client: %w", err)
	}
	h := cc.HorizontalPodAutoscaler
	return podautoscaler.New(cl, cc.InformerFactory, podautoscaler.Options{
		Metrics:                podautoscaler.RESTMetricsClient{Client: rc},
		Recorder:               cc.Recorder("horizontal-pod-autoscaler"),
		SyncPeriod:             h.SyncPeriod,
		Tolerance:              h.Tolerance,
		DownscaleStabilization: h.DownscaleStabilization,
	})
}
