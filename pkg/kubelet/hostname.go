package kubelet

import (
	"strings"

	corev1 "kubecore.io/api/core/v1"
)

// maxHostnameLength is the longest hostname a pod gets: one DNS label.
const maxHostnameLength = 63

// podHostname is the hostname the processes of a pod with a network of its
// own see, as Kubernetes gives it: spec.hostname when set, else the pod's
// name, cut to 63 characters without a trailing '-' or '.'. Pods on the
// host's network keep the node's, and get "".
func podHostname(pod *corev1.Pod) string {
	if pod.Spec.HostNetwork {
		return ""
	}
	name := pod.Name
	if pod.Spec.Hostname != "" {
		name = pod.Spec.Hostname
	}
	if len(name) > maxHostnameLength {
		name = strings.TrimRight(name[:maxHostnameLength], "-.")
	}
	return name
}
