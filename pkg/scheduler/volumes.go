package scheduler

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/plugins/volumebinding"
)

// volumeInformers watches claims and volumes for the VolumeBinding plugin:
// their changes move the pods waiting for them. A source that cannot
// watch them leaves the plugin out (pods with claims are then scheduled
// as if they had none).
func (s *Scheduler) volumeInformers(ctx context.Context, cfg Config) (*volumebinding.Args, error) {
	claims, err := informers.For[*corev1.PersistentVolumeClaim](cfg.Informers, corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"))
	if err != nil {
		klog.FromContext(ctx).Info("Scheduling without volume binding: claims cannot be watched", "err", err)
		return nil, nil
	}
	volumes, err := informers.For[*corev1.PersistentVolume](cfg.Informers, corev1.SchemeGroupVersion.WithResource("persistentvolumes"))
	if err != nil {
		klog.FromContext(ctx).Info("Scheduling without volume binding: volumes cannot be watched", "err", err)
		return nil, nil
	}
	move := func(resource framework.EventResource, action framework.ActionType, label string) {
		s.queue.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: resource, ActionType: action, Label: label}, nil)
	}
	claimReg, err := claims.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.PersistentVolumeClaim]{
		AddFunc: func(*corev1.PersistentVolumeClaim, bool) {
			move(framework.PersistentVolumeClaimResource, framework.Add, "PvcAdd")
		},
		UpdateFunc: func(_, _ *corev1.PersistentVolumeClaim) {
			move(framework.PersistentVolumeClaimResource, framework.UpdatePodOther, "PvcUpdate")
		},
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: claims: %w", err)
	}
	volumeReg, err := volumes.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.PersistentVolume]{
		AddFunc: func(*corev1.PersistentVolume, bool) { move(framework.PersistentVolumeResource, framework.Add, "PvAdd") },
		UpdateFunc: func(_, _ *corev1.PersistentVolume) {
			move(framework.PersistentVolumeResource, framework.UpdatePodOther, "PvUpdate")
		},
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: volumes: %w", err)
	}
	s.volumesSynced = []cache.InformerSynced{claimReg.HasSynced, volumeReg.HasSynced}
	claimLister, volumeLister := claims.Lister(), volumes.Lister()
	return &volumebinding.Args{
		Claim: func(ns, name string) (*corev1.PersistentVolumeClaim, error) {
			return claimLister.Namespaced(ns).Get(name)
		},
		Volume: volumeLister.Get,
		PatchClaim: func(ctx context.Context, ns, name string, patch []byte) error {
			_, err := cfg.Client.CoreV1().PersistentVolumeClaims(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		},
	}, nil
}
