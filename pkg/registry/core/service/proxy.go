package service

import (
	"context"
	"fmt"
	"net/url"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/core/proxy"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/webhook"
)

// NewProxyREST returns the services/proxy storage: HTTP to a ready
// endpoint of one of the Service's ports ("[scheme:]name[:port]", the port
// the Service port's name or number), and the paths below it. The API
// server reaches the endpoint itself, so it works without a cluster
// network.
func NewProxyREST(services, endpoints rest.Getter) *proxy.REST {
	resolver := webhook.Resolver{Services: services, Endpoints: endpoints}
	return proxy.NewREST(func() runtime.Object { return &corev1.Service{} }, "ServiceProxyOptions",
		func(ctx context.Context, t proxy.Target) (proxy.Location, error) {
			obj, err := services.Get(ctx, t.Name, &metav1.GetOptions{})
			if err != nil {
				return proxy.Location{}, err
			}
			svc, ok := obj.(*corev1.Service)
			if !ok {
				return proxy.Location{}, apierrors.NewInternalError(fmt.Errorf("not a Service: %T", obj))
			}
			host, err := resolver.ServiceEndpoint(ctx, svc, t.Port)
			if err != nil {
				return proxy.Location{}, err
			}
			return proxy.Location{URL: &url.URL{Host: host}}, nil
		})
}
