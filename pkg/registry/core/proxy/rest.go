package proxy

import (
	"context"
	"net/http"
	"net/url"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// Location is where a proxy request for one target goes: the scheme and
// host of the backend (its path, if any, is prefixed to the subpath) and
// the transport that reaches it.
type Location struct {
	URL       *url.URL
	Transport http.RoundTripper
}

// Resolver finds the location of a parsed target: a pod's IP and port, a
// service's ready endpoint, a node's kubelet. An empty scheme in the
// returned URL means the target's scheme, else http.
type Resolver func(ctx context.Context, t Target) (Location, error)

// REST is a <resource>/proxy subresource: everything but the resolution
// of a target is the same for pods, services and nodes.
type REST struct {
	newFunc func() runtime.Object
	kind    string
	resolve Resolver
}

var (
	_ rest.SubpathConnecter = (*REST)(nil)
	_ rest.KindProvider     = (*REST)(nil)
)

// NewREST returns the proxy subresource of the resource whose objects
// newFunc makes; kind names its options kind (PodProxyOptions, ...).
func NewREST(newFunc func() runtime.Object, kind string, resolve Resolver) *REST {
	return &REST{newFunc: newFunc, kind: kind, resolve: resolve}
}

// New implements rest.Connecter.
func (r *REST) New() runtime.Object { return r.newFunc() }

// Destroy implements rest.Storage.
func (r *REST) Destroy() {}

// GroupVersionKind implements rest.KindProvider.
func (r *REST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return corev1.SchemeGroupVersion.WithKind(r.kind)
}

// ConnectMethods implements rest.Connecter.
func (r *REST) ConnectMethods() []string { return Methods }

// ServesSubpaths implements rest.SubpathConnecter.
func (r *REST) ServesSubpaths() bool { return true }

// Connect implements rest.Connecter.
func (r *REST) Connect(ctx context.Context, id string, _ url.Values, resp rest.Responder) (http.Handler, error) {
	t, err := ParseName(id)
	if err != nil {
		return nil, err
	}
	loc, err := r.resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	u := *loc.URL
	if u.Scheme == "" {
		u.Scheme = t.Scheme
	}
	if u.Scheme == "" {
		u.Scheme = "http"
	}
	rt := loc.Transport
	if rt == nil {
		rt = DefaultTransport()
	}
	return Handler(ctx, &u, rt, resp), nil
}
