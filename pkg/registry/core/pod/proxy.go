package pod

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ProxyREST serves pods/proxy: HTTP to the pod's IP and a port
// ("[scheme:]name[:port]", the port a number or a container port's name),
// and the paths below it.
type ProxyREST struct {
	pods      rest.Getter
	transport http.RoundTripper
}

var (
	_ rest.SubpathConnecter = (*ProxyREST)(nil)
	_ rest.KindProvider     = (*ProxyREST)(nil)
)

// NewProxyREST returns the pods/proxy storage.
func NewProxyREST(pods rest.Getter) *ProxyREST {
	return &ProxyREST{pods: pods, transport: proxy.DefaultTransport()}
}

// New implements rest.Connecter.
func (r *ProxyREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy implements rest.Storage.
func (r *ProxyREST) Destroy() {}

// GroupVersionKind implements rest.KindProvider.
func (r *ProxyREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind("PodProxyOptions")
}

// ConnectMethods implements rest.Connecter.
func (r *ProxyREST) ConnectMethods() []string { return proxy.Methods }

// ServesSubpaths implements rest.SubpathConnecter.
func (r *ProxyREST) ServesSubpaths() bool { return true }

// Connect implements rest.Connecter.
func (r *ProxyREST) Connect(ctx context.Context, id string, _ url.Values, resp rest.Responder) (http.Handler, error) {
	t, err := proxy.ParseName(id)
	if err != nil {
		return nil, err
	}
	pod, err := getPod(ctx, r.pods, t.Name)
	if err != nil {
		return nil, err
	}
	if pod.Status.PodIP == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("address not allowed: pod %s has no IP yet", pod.Name))
	}
	port, err := podPort(pod, t.Port)
	if err != nil {
		return nil, err
	}
	scheme := t.Scheme
	if scheme == "" {
		scheme = "http"
	}
	host := pod.Status.PodIP
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = "[" + host + "]"
	}
	return proxy.Handler(ctx, &url.URL{Scheme: scheme, Host: host}, r.transport, resp), nil
}

// podPort is the port number a pods/proxy name gives: a number, or the
// name of one of the pod's container ports.
func podPort(pod *corev1.Pod, port string) (string, error) {
	if port == "" {
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
