// Package webhook is how the API server reaches servers its users run:
// admission webhooks, CRD conversion webhooks, aggregated API servers and
// the services/proxy subresource. It finds a ready endpoint of a Service
// itself, from the Service and Endpoints objects, so none of these needs a
// cluster network, and it builds the TLS client that trusts a caBundle
// and names the Service as Kubernetes does (<name>.<namespace>.svc).
package webhook

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Resolver finds the endpoints of Services from the API server's own
// storage of Services and Endpoints.
type Resolver struct {
	Services, Endpoints rest.Getter
}

// fromCache reads from the watch cache: a resolution per request must not
// cost an etcd read.
var fromCache = &metav1.GetOptions{ResourceVersion: "0"}

// Service returns the Service namespace/name.
func (r Resolver) Service(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	obj, err := r.Services.Get(apirequest.WithNamespace(ctx, namespace), name, fromCache)
	if err != nil {
		return nil, err
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("not a Service: %T", obj))
	}
	return svc, nil
}

// Endpoint returns "host:port" of one ready address, picked at random,
// behind the port of Service namespace/name that port names or numbers
// ("" for the Service's only unnamed port). A Service of type ExternalName
// resolves to its external name. The errors are 404 for a missing Service
// and 503 Statuses worded as Kubernetes words them for a missing port or
// no ready endpoint.
func (r Resolver) Endpoint(ctx context.Context, namespace, name, port string) (string, error) {
	svc, err := r.Service(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	return r.ServiceEndpoint(ctx, svc, port)
}

// ServiceEndpoint is Endpoint for a Service already read.
func (r Resolver) ServiceEndpoint(ctx context.Context, svc *corev1.Service, port string) (string, error) {
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
	obj, err := r.Endpoints.Get(apirequest.WithNamespace(ctx, svc.Namespace), svc.Name, fromCache)
	if apierrors.IsNotFound(err) {
		return "", apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", svc.Name))
	}
	if err != nil {
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
