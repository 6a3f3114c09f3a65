package helper

import corev1 "kubecore.io/api/core/v1"

// DefaultServiceAccountName is the service account of a pod that names
// none, as the ServiceAccount admission plugin of Kubernetes sets it.
const DefaultServiceAccountName = "default"

// DefaultServiceAccount names the default service account in a pod that
// names none (mirror pods, which run with none, excepted), and keeps the
// deprecated spec.serviceAccount equal to spec.serviceAccountName.
func DefaultServiceAccount(p *corev1.Pod) {
	if p.Spec.ServiceAccountName == "" {
		p.Spec.ServiceAccountName = p.Spec.DeprecatedServiceAccount
	}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; p.Spec.ServiceAccountName == "" && !mirror {
		p.Spec.ServiceAccountName = DefaultServiceAccountName
	}
	p.Spec.DeprecatedServiceAccount = p.Spec.ServiceAccountName
}
