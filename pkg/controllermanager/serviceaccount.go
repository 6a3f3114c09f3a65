package controllermanager

import (
	"context"

	"kubecore.io/kubecore/pkg/controller/serviceaccount"
)

func startServiceAccountController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	c, err := serviceaccount.New(cc.Client, cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(serviceaccount.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
