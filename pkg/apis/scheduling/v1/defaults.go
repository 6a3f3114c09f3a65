// Package v1 registers the scheduling.k8s.io/v1 kinds with a server's
// scheme together with their defaults.
package v1

import (
	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the scheduling.k8s.io/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := schedulingv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsPriorityClass)
	return nil
}

// SetDefaultsPriorityClass: a class preempts lower priorities unless it
// says otherwise.
func SetDefaultsPriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &p
	}
}
