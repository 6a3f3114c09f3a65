package controllermanager

import (
	"context"

	"kubecore.io/kubecore/pkg/controller/daemonset"
)

func startDaemonSetController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	c, err := daemonset.New(cc.Client, cc.InformerFactory, cc.Recorder("daemonset-controller"), daemonset.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(daemonset.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
