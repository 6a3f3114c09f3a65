package controllermanager

import (
	"context"

	"kubecore.io/kubecore/pkg/controller/localpath"
)

func startLocalPathProvisioner(_ context.Context, cc ControllerContext) (RunFunc, error) {
	p, err := localpath.New(cc.Client, cc.InformerFactory, cc.Recorder("local-path-provisioner"), localpath.Options{Dir: cc.LocalPathDir})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(localpath.Name)
	return func(ctx context.Context) error { return p.Run(ctx, workers) }, nil
}
