package controllermanager

import (
	"context"

	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controller/deployment"
	"kubecore.io/kubecore/pkg/controller/replicaset"
)

func startReplicaSetController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	rsInf, err := informers.ReplicaSets(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	podInf, err := informers.Pods(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	c, err := replicaset.New(cc.Client, rsInf, podInf, cc.Recorder("replicaset-controller"), replicaset.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(replicaset.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}

func startDeploymentController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	dInf, err := informers.Deployments(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	rsInf, err := informers.ReplicaSets(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	podInf, err := informers.Pods(cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	c, err := deployment.New(cc.Client, dInf, rsInf, podInf, cc.Recorder("deployment-controller"), deployment.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(deployment.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
