package pod

import (
	"fmt"
	"net/url"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// NewPortForwardREST serves pods/portforward: connections to the pod's
// ports, through the kubelet's /portForward (kubectl port-forward).
func NewPortForwardREST(pods rest.Getter, kubelets KubeletConnectionGetter, admission rest.Admission) *StreamREST {
	return &StreamREST{pods: pods, kubelet: kubelets, admission: admission, stream: streamKind{
		subresource: "portforward", kind: "PodPortForwardOptions", kubeletPath: "portForward", request: portForwardRequest,
		options: portForwardOptions,
	}}
}

// portForwardRequest reads the PodPortForwardOptions of a query: the
// ports a WebSocket client names up front (SPDY clients name them per
// stream).
func portForwardRequest(pod *corev1.Pod, query url.Values) (string, url.Values, error) {
	kq := url.Values{}
	for _, p := range query["ports"] {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return "", nil, apierrors.NewBadRequest(fmt.Sprintf("invalid port %q: must be between 1 and 65535", p))
		}
		kq.Add("port", p)
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return "", nil, apierrors.NewBadRequest(fmt.Sprintf("cannot forward ports of pod %s: the pod is %s", pod.Name, pod.Status.Phase))
	}
	return "", kq, nil
}

// portForwardOptions is the PodPortForwardOptions admission sees: the
// ports portForwardRequest checked.
func portForwardOptions(_ string, kq url.Values) runtime.Object {
	opts := &corev1.PodPortForwardOptions{}
	for _, p := range kq["port"] {
		n, err := strconv.ParseUint(p, 10, 16)
		if err == nil {
			opts.Ports = append(opts.Ports, int32(n))
		}
	}
	return opts
}
