package controllermanager

import (
	"context"
	"fmt"

	"kubecore.io/client/discovery"
	"kubecore.io/client/metadata"

	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controller/namespace"
	"kubecore.io/kubecore/pkg/controller/nodelifecycle"
)

// The start functions of the life-cycle controllers: namespace, garbage
// collector and node lifecycle.

func startNamespaceController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	md, disco, err := metadataAndDiscovery(cc)
	if err != nil {
		return nil, err
	}
	c, err := namespace.New(cc.Client, md, disco, cc.InformerFactory)
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(namespace.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}

func startGarbageCollector(_ context.Context, cc ControllerContext) (RunFunc, error) {
	md, disco, err := metadataAndDiscovery(cc)
	if err != nil {
		return nil, err
	}
	gc, err := garbagecollector.New(md, disco, garbagecollector.Options{})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(garbagecollector.Name)
	return func(ctx context.Context) error { return gc.Run(ctx, workers) }, nil
}

// metadataAndDiscovery makes the clients of controllers that work on every
// resource.
func metadataAndDiscovery(cc ControllerContext) (*metadata.Client, *discovery.Client, error) {
	md, err := metadata.NewForConfig(cc.RESTConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("metadata client: %w", err)
	}
	disco, err := discovery.NewForConfig(cc.RESTConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("discovery client: %w", err)
	}
	return md, disco, nil
}

func startNodeLifecycleController(_ context.Context, cc ControllerContext) (RunFunc, error) {
	c, err := nodelifecycle.New(cc.Client, cc.InformerFactory, cc.Recorder("node-controller"), nodelifecycle.Options{
		NodeMonitorGracePeriod: cc.NodeMonitorGracePeriod,
		EvictionRate:           cc.NodeEvictionRate,
	})
	if err != nil {
		return nil, err
	}
	workers := cc.Workers(nodelifecycle.Name)
	return func(ctx context.Context) error { return c.Run(ctx, workers) }, nil
}
