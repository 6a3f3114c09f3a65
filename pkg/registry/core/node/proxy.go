package node

import (
	"context"
	"net"
	"net/url"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
)

// NewProxyREST returns the nodes/proxy storage: HTTP to the node's kubelet
// (with the API server's kubelet client certificate), or to another port
// of the node ("[scheme:]name[:port]"), and the paths below it.
func NewProxyREST(kubelets *KubeletConnections) *proxy.REST {
	return proxy.NewREST(func() runtime.Object { return &corev1.Node{} }, "NodeProxyOptions",
		func(ctx context.Context, t proxy.Target) (proxy.Location, error) {
			info, err := kubelets.GetConnectionInfo(ctx, t.Name)
			if err != nil {
				return proxy.Location{}, err
			}
			if t.Port == "" || t.Port == info.Port {
				u := &url.URL{Scheme: info.Scheme, Host: info.Host()}
				if t.Scheme != "" {
					u.Scheme = t.Scheme
				}
				return proxy.Location{URL: u, Transport: info.Transport}, nil
			}
			return proxy.Location{URL: &url.URL{Host: net.JoinHostPort(info.Hostname, t.Port)}}, nil
		})
}
