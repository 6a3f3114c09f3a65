package helper

import (
	corev1 "kubecore.io/api/core/v1"
)

// PodQOSClass is the quality of service a pod spec's containers (init and
// app) give it, from their requests and limits of cpu and memory only:
// BestEffort when none sets any, Guaranteed when every container limits
// both and requests what it limits, Burstable otherwise. The apiserver
// stores it in status.qosClass at creation; a resize may not change it.
func PodQOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	anySet, guaranteed := false, true
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, hasReq := r.Requests[name]
				lim, hasLim := r.Limits[name]
				if hasReq && !req.IsZero() || hasLim && !lim.IsZero() {
					anySet = true
				}
				if !hasLim || hasReq && req.Cmp(lim) != 0 {
					guaranteed = false
				}
			}
		}
	}
	switch {
	case !anySet:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
