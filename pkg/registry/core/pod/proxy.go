package pod

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// NewProxyREST returns the pods/proxy storage: HTTP to the pod's IP and a
// port ("[scheme:]name[:port]", the port a number or a container port's
// name), and the paths below it.
func NewProxyREST(pods rest.Getter) *proxy.REST {
	return proxy.NewREST(func() runtime.Object { return &corev1.Pod{} }, "PodProxyOptions",
		func(ctx context.Context, t proxy.Target) (proxy.Location, error) {
			pod, err := getPod(ctx, pods, t.Name)
			if err != nil {
				return proxy.Location{}, err
			}
			if pod.Status.PodIP == "" {
				return proxy.Location{}, apierrors.NewBadRequest(fmt.Sprintf("address not allowed: pod %s has no IP yet", pod.Name))
			}
			port, err := podPort(pod, t.Port)
			if err != nil {
				return proxy.Location{}, err
			}
			host := pod.Status.PodIP
			if port != "" {
				host = net.JoinHostPort(host, port)
			} else if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
				host = "[" + host + "]"
			}
			return proxy.Location{URL: &url.URL{Host: host}}, nil
		})
}

// podPort is the port number a pods/proxy name gives: a number, or the
// name of one of the pod's container ports. Without one it is, as in
// Kubernetes, the first port of the first container that declares any,
// and "" (the scheme's default port) when no container does.
func podPort(pod *corev1.Pod, port string) (string, error) {
	if port == "" {
		for _, c := range pod.Spec.Containers {
			if len(c.Ports) > 0 {
				return strconv.Itoa(int(c.Ports[0].ContainerPort)), nil
			}
		}
		return "", nil
	}
	if n, err := strconv.ParseUint(port, 10, 16); err == nil && n > 0 {
		return port, nil
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == port {
				return strconv.Itoa(int(p.ContainerPort)), nil
			}
		}
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("pod %s has no port named %q", pod.Name, port))
}
