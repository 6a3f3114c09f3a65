// Package v1 registers the resource.k8s.io/v1 kinds with a server's scheme
// together with their defaults.
package v1

import (
	resourcev1 "kubecore.io/api/resource/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the resource.k8s.io/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := resourcev1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, func(c *resourcev1.ResourceClaim) { SetDefaultsClaimSpec(&c.Spec) })
	runtime.AddDefaultingFunc(s, func(t *resourcev1.ResourceClaimTemplate) { SetDefaultsClaimSpec(&t.Spec.Spec) })
	return nil
}

// SetDefaultsClaimSpec gives each request the allocation mode ExactCount
// with a count of one, and each toleration the operator Equal, as
// Kubernetes does.
func SetDefaultsClaimSpec(spec *resourcev1.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if e := r.Exactly; e != nil {
			defaultMode(&e.AllocationMode, &e.Count)
			defaultTolerations(e.Tolerations)
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			defaultMode(&sub.AllocationMode, &sub.Count)
			defaultTolerations(sub.Tolerations)
		}
	}
}

func defaultMode(mode *resourcev1.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourcev1.DeviceAllocationModeExactCount
	}
	if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

func defaultTolerations(ts []resourcev1.DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}
