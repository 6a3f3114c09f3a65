package service

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/webhook"
)

// ProxyREST serves services/proxy: HTTP to a ready endpoint of one of the
// Service's ports ("[scheme:]name[:port]", the port the Service port's
// name or number), and the paths below it. The API server reaches the
// endpoint itself, so it works without a cluster network.
type ProxyREST struct {
	services rest.Getter
	resolver webhook.Resolver
}

var (
	_ rest.SubpathConnecter = (*ProxyREST)(nil)
	_ rest.KindProvider     = (*ProxyREST)(nil)
)

// NewProxyREST returns the services/proxy storage.
func NewProxyREST(services, endpoints rest.Getter) *ProxyREST {
	return &ProxyREST{services: services, resolver: webhook.Resolver{Services: services, Endpoints: endpoints}}
}

// New implements rest.Connecter.
func (r *ProxyREST) New() runtime.Object { return &corev1.Service{} }

// Destroy implements rest.Storage.
func (r *ProxyREST) Destroy() {}

// GroupVersionKind implements rest.KindProvider.
func (r *ProxyREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind("ServiceProxyOptions")
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
	obj, err := r.services.Get(ctx, t.Name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("not a Service: %T", obj))
	}
	host, err := r.resolver.ServiceEndpoint(ctx, svc, t.Port)
	if err != nil {
		return nil, err
	}
	scheme := t.Scheme
	if scheme == "" {
		scheme = "http"
	}
	return proxy.Handler(ctx, &url.URL{Scheme: scheme, Host: host}, proxy.DefaultTransport(), resp), nil
}
