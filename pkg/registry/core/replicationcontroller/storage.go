// Package replicationcontroller serves replicationcontrollers with their
// status and scale subresources through the generic Store.
package replicationcontroller

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Scalable maps the scale of a replication controller: its selector is a
// plain label map, which the Scale shows as a selector string.
func Scalable() strategy.Scalable[*corev1.ReplicationController] {
	return strategy.Scalable[*corev1.ReplicationController]{
		Replicas:       func(rc *corev1.ReplicationController) int32 { return strategy.ReplicasOf(rc.Spec.Replicas) },
		SetReplicas:    func(rc *corev1.ReplicationController, n int32) { rc.Spec.Replicas = &n },
		StatusReplicas: func(rc *corev1.ReplicationController) int32 { return rc.Status.Replicas },
		Selector: func(rc *corev1.ReplicationController) *metav1.LabelSelector {
			if len(rc.Spec.Selector) == 0 {
				return nil
			}
			return &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
		},
	}
}

// NewStorage returns the storage of replicationcontrollers, in the "all"
// category, with their status and scale.
func NewStorage(opts generic.StoreOptions) (*strategy.WorkloadStorage[*corev1.ReplicationController], error) {
	s := strategy.SpecAndStatus(validation.ValidateReplicationController, validation.ValidateReplicationControllerUpdate)
	r := strategy.Of[corev1.ReplicationController, corev1.ReplicationControllerList](corev1.Resource("replicationcontrollers"), "replicationcontroller", s).Short("rc").InCategories("all")
	st, err := strategy.NewWithStatus(opts, r)
	if err != nil {
		return nil, err
	}
	return &strategy.WorkloadStorage[*corev1.ReplicationController]{Store: st.Store, Status: st.Status, Scale: strategy.NewScaleREST(st.Store, Scalable())}, nil
}
