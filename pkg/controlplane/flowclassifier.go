package controlplane

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/registry/generic"
)

// flowConfig feeds API priority and fairness the stored FlowSchemas and
// PriorityLevelConfigurations through in-process informers, and keeps
// the FlowSchemas' Dangling conditions, as Kubernetes' APF configuration
// controller does.
type flowConfig struct{ in *Instance }

var _ apiserver.FlowConfigSource = flowConfig{}

// FlowConfig returns the source of the API priority and fairness
// configuration.
func (in *Instance) FlowConfig() apiserver.FlowConfigSource { return flowConfig{in} }

// RunFlowConfig implements apiserver.FlowConfigSource.
func (f flowConfig) RunFlowConfig(ctx context.Context, apply func([]*flowcontrolv1.FlowSchema, []*flowcontrolv1.PriorityLevelConfiguration)) error {
	schemas := cache.NewInformer[*flowcontrolv1.FlowSchema](generic.InProcessListerWatcher(f.in.flowSchemas),
		cache.InformerOptions{Resource: flowcontrolv1.Resource("flowschemas")})
	levels := cache.NewInformer[*flowcontrolv1.PriorityLevelConfiguration](generic.InProcessListerWatcher(f.in.priorityLevels),
		cache.InformerOptions{Resource: flowcontrolv1.Resource("prioritylevelconfigurations")})
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := schemas.AddEventHandler(onAnyChange[*flowcontrolv1.FlowSchema](poke)); err != nil {
		return fmt.Errorf("watch flowschemas: %w", err)
	}
	if _, err := levels.AddEventHandler(onAnyChange[*flowcontrolv1.PriorityLevelConfiguration](poke)); err != nil {
		return fmt.Errorf("watch prioritylevelconfigurations: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go schemas.Run(ctx)
	go levels.Run(ctx)
	if !cache.WaitForCacheSync(ctx, schemas.HasSynced, levels.HasSynced) {
		return nil
	}
	for {
		fs, _ := schemas.Lister().List(labels.Everything())
		pl, _ := levels.Lister().List(labels.Everything())
		apply(fs, pl)
		klog.FromContext(ctx).V(2).Info("Applied the priority and fairness configuration", "flowSchemas", len(fs), "priorityLevels", len(pl))
		if err := f.in.updateDangling(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Cannot update the FlowSchemas' Dangling conditions")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
	}
}

// onAnyChange calls f on every event.
func onAnyChange[T cache.Object](f func()) cache.ResourceEventHandlerFuncs[T] {
	return cache.ResourceEventHandlerFuncs[T]{
		AddFunc:    func(T, bool) { f() },
		UpdateFunc: func(T, T) { f() },
		DeleteFunc: func(T) { f() },
	}
}
