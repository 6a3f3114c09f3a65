package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ProxyREST serves services/proxy: HTTP to a ready endpoint of one of the
// Service's ports ("[scheme:]name[:port]", the port the Service port's
// name or number), and the paths below it. The API server reaches the
// endpoint itself, so it works without a cluster network.
type ProxyREST struct {
	services, endpoints rest.Getter
}

var (
	_ rest.SubpathConnecter = (*ProxyREST)(nil)
	_ rest.KindProvider     = (*ProxyREST)(nil)
)

// NewProxyREST returns the services/proxy storage.
func NewProxyREST(services, endpoints rest.Getter) *ProxyREST {
	return &ProxyREST{services: services, endpoints: endpoints}
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
	host, err := r.endpoint(ctx, svc, t.Port)
	if err != nil {
		return nil, err
	}
	scheme := t.Scheme
	if scheme == "" {
		scheme = "http"
	}
	return proxy.Handler(ctx, &url.URL{Scheme: scheme, Host: host}, proxy.DefaultTransport(), resp), nil
}

// endpoint picks a ready address of the Service port named or numbered
// port ("" for the Service's only unnamed port).
func (r *ProxyREST) endpoint(ctx context.Context, svc *corev1.Service, port string) (string, error) {
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.Name == port || (port != "" && strconv.Itoa(int(p.Port)) == port) {
			sp = p
			break
		}
	}
	if sp == nil {
		return "", apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %q found for service %q", port, svc.Name))
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(sp.Port))), nil
	}
	obj, err := r.endpoints.Get(ctx, svc.Name, &metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return "", apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", svc.Name))
		}
		return "", err
	}
	eps, ok := obj.(*corev1.Endpoints)
	if !ok {
		return "", apierrors.NewInternalError(fmt.Errorf("not Endpoints: %T", obj))
	}
	var hosts []string
	for _, ss := range eps.Subsets {
		for _, p := range ss.Ports {
			if p.Name != sp.Name {
				continue
			}
			for _, a := range ss.Addresses {
				hosts = append(hosts, net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	if len(hosts) == 0 {
		return "", apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", svc.Name))
	}
	return hosts[rand.IntN(len(hosts))], nil
}
