// Package v1 registers the apps/v1 kinds with a server's scheme together
// with the defaults the API server applies to them when it decodes a request.
package v1

import (
	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"

	coredefaults "kubecore.io/kubecore/pkg/apis/core/v1"
)

// AddToScheme registers the apps/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := appsv1.AddToScheme(s); err != nil {
		return err
	}
	RegisterDefaults(s)
	return nil
}

// RegisterDefaults adds the apps/v1 defaulting functions to s.
func RegisterDefaults(s *runtime.Scheme) {
	runtime.AddDefaultingFunc(s, SetDefaultsDeployment)
	runtime.AddDefaultingFunc(s, SetDefaultsReplicaSet)
	runtime.AddDefaultingFunc(s, SetDefaultsStatefulSet)
	runtime.AddDefaultingFunc(s, SetDefaultsDaemonSet)
}

func ptr[T any](v T) *T { return &v }

// SetDefaultsDeployment: one replica, a 25%/25% rolling update, ten old
// ReplicaSets kept, a 600 s progress deadline.
func SetDefaultsDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptr[int32](1)
	}
	st := &d.Spec.Strategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if st.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptr(intstr.FromString("25%"))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptr(intstr.FromString("25%"))
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = ptr[int32](10)
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		d.Spec.ProgressDeadlineSeconds = ptr[int32](600)
	}
	coredefaults.SetDefaultsPodTemplateSpec(&d.Spec.Template)
}

// SetDefaultsReplicaSet: one replica.
func SetDefaultsReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr[int32](1)
	}
	coredefaults.SetDefaultsPodTemplateSpec(&rs.Spec.Template)
}

// SetDefaultsStatefulSet: one replica, OrderedReady, a rolling update from
// partition 0, ten revisions kept, claims retained.
func SetDefaultsStatefulSet(ss *appsv1.StatefulSet) {
	sp := &ss.Spec
	if sp.Replicas == nil {
		sp.Replicas = ptr[int32](1)
	}
	if sp.PodManagementPolicy == "" {
		sp.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if sp.UpdateStrategy.Type == "" {
		sp.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if sp.UpdateStrategy.RollingUpdate == nil {
			sp.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if sp.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && sp.UpdateStrategy.RollingUpdate != nil {
		if sp.UpdateStrategy.RollingUpdate.Partition == nil {
			sp.UpdateStrategy.RollingUpdate.Partition = ptr[int32](0)
		}
	}
	if sp.RevisionHistoryLimit == nil {
		sp.RevisionHistoryLimit = ptr[int32](10)
	}
	if sp.PersistentVolumeClaimRetentionPolicy == nil {
		sp.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if sp.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		sp.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	for i := range sp.VolumeClaimTemplates {
		c := &sp.VolumeClaimTemplates[i]
		if c.Spec.VolumeMode == nil {
			c.Spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
		}
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.ClaimPending
		}
	}
	coredefaults.SetDefaultsPodTemplateSpec(&sp.Template)
}

// SetDefaultsDaemonSet: a rolling update of one node at a time without
// surge, ten revisions kept.
func SetDefaultsDaemonSet(ds *appsv1.DaemonSet) {
	us := &ds.Spec.UpdateStrategy
	if us.Type == "" {
		us.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if us.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if us.RollingUpdate == nil {
			us.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if us.RollingUpdate.MaxUnavailable == nil {
			us.RollingUpdate.MaxUnavailable = ptr(intstr.FromInt32(1))
		}
		if us.RollingUpdate.MaxSurge == nil {
			us.RollingUpdate.MaxSurge = ptr(intstr.FromInt32(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = ptr[int32](10)
	}
	coredefaults.SetDefaultsPodTemplateSpec(&ds.Spec.Template)
}
