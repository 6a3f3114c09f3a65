package controllermanager

import (
	"context"

	"kubecore.io/kubecore/pkg/controller/statefulset"
)

func startStatefulSetController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	c, err := statefulset.New(cc.Client, cc.InformerFactory, cc.Recorder("statefulset-controller"), statefulset.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(statefulset.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
