package node

import (
	"context"
	"net"
	"net/http"
	"net/url"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ProxyREST serves nodes/proxy: HTTP to the node's kubelet (with the API
// server's kubelet client certificate), or to another port of the node
// ("[scheme:]name[:port]"), and the paths below it.
type ProxyREST struct {
	kubelets *KubeletConnections
}

var (
	_ rest.SubpathConnecter = (*ProxyREST)(nil)
	_ rest.KindProvider     = (*ProxyREST)(nil)
)

// NewProxyREST returns the nodes/proxy storage.
func NewProxyREST(kubelets *KubeletConnections) *ProxyREST { return &ProxyREST{kubelets: kubelets} }

// New implements rest.Connecter.
func (r *ProxyREST) New() runtime.Object { return &corev1.Node{} }

// Destroy implements rest.Storage.
func (r *ProxyREST) Destroy() {}

// GroupVersionKind implements rest.KindProvider.
func (r *ProxyREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind("NodeProxyOptions")
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
	info, err := r.kubelets.GetConnectionInfo(ctx, t.Name)
	if err != nil {
		return nil, err
	}
	if t.Port == "" || t.Port == info.Port {
		scheme := info.Scheme
		if t.Scheme != "" {
			scheme = t.Scheme
		}
		return proxy.Handler(ctx, &url.URL{Scheme: scheme, Host: info.Host()}, info.Transport, resp), nil
	}
	scheme := t.Scheme
	if scheme == "" {
		scheme = "http"
	}
	return proxy.Handler(ctx, &url.URL{Scheme: scheme, Host: net.JoinHostPort(info.Hostname, t.Port)}, proxy.DefaultTransport(), resp), nil
}
