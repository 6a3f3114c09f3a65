// Package autoscaling provides the storage of the autoscaling API group:
// horizontalpodautoscalers stored as autoscaling/v2 and served as
// autoscaling/v1 too, by conversion.
package autoscaling

import (
	"context"
	"errors"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/autoscaling/horizontalpodautoscaler"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// ProviderV2 builds the storage of autoscaling/v2, the stored version.
func ProviderV2() strategy.Group {
	return strategy.NewGroup(autoscalingv2.SchemeGroupVersion,
		strategy.Served("horizontalpodautoscalers", horizontalpodautoscaler.NewStorage),
	)
}

// ProviderV1 builds autoscaling/v1 over the storage ProviderV2 built:
// V2 are the resources of autoscaling/v2.
type ProviderV1 struct {
	V2 strategy.Resources
}

// GroupVersion is autoscaling/v1.
func (p ProviderV1) GroupVersion() schema.GroupVersion { return autoscalingv1.SchemeGroupVersion }

// NewStorage adds the v1 views of v2's horizontalpodautoscalers and their
// status to rs; with opts.FieldManagers, both take server-side applies by
// v1's schema.
func (p ProviderV1) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	main, ok := p.V2["horizontalpodautoscalers"].(*generic.Store)
	status, ok2 := p.V2["horizontalpodautoscalers/status"].(*strategy.StatusREST)
	if !ok || !ok2 {
		return errors.New("autoscaling/v1: the autoscaling/v2 horizontalpodautoscalers are not built")
	}
	v1 := horizontalpodautoscaler.V1()
	mainV1, err := generic.NewView(main, main.FieldManager, v1, opts.FieldManagers)
	if err != nil {
		return err
	}
	statusV1, err := generic.NewStatusView(status, status.FieldManager(), v1, opts.FieldManagers)
	if err != nil {
		return err
	}
	rs["horizontalpodautoscalers"], rs["horizontalpodautoscalers/status"] = mainV1, statusV1
	return nil
}
