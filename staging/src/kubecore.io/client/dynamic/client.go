// Package dynamic reads and writes objects of any resource as Unstructured
// JSON maps, for tools such as kubectl that handle kinds they were not
// compiled with.
package dynamic

import (
	"context"
	"fmt"
	"path"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
)

// Client reaches every resource of one server.
type Client struct {
	rc *rest.Client
}

// NewForConfig returns a dynamic client for config's server.
func NewForConfig(config *rest.Config) (*Client, error) {
	rc, err := rest.NewClient(config, rest.ClientOptions{})
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	return &Client{rc: rc}, nil
}

// NewClient returns a dynamic client over rc, a client of absolute paths
// (rest.ClientOptions.GroupVersion empty).
func NewClient(rc *rest.Client) *Client { return &Client{rc: rc} }

// RESTClient returns the underlying REST client.
func (c *Client) RESTClient() *rest.Client { return c.rc }

// Resource returns the client of one resource in all namespaces (or of a
// cluster-scoped resource); Namespace narrows it.
func (c *Client) Resource(gvr schema.GroupVersionResource) *ResourceClient {
	return &ResourceClient{rc: c.rc, gvr: gvr}
}

// ResourceClient reaches the objects of one resource, in one namespace or
// all of them.
type ResourceClient struct {
	rc        *rest.Client
	gvr       schema.GroupVersionResource
	namespace string
}

// Namespace returns the client of the resource in ns ("" for all, or for a
// cluster-scoped resource).
func (c *ResourceClient) Namespace(ns string) *ResourceClient {
	out := *c
	out.namespace = ns
	return &out
}

// Path returns the URL path of the collection, or of the named object and
// its subresources.
func (c *ResourceClient) Path(name string, subresources ...string) string {
	seg := []string{"/apis", c.gvr.Group, c.gvr.Version}
	if c.gvr.Group == "" {
		seg = []string{"/api", c.gvr.Version}
	}
	if c.namespace != "" {
		seg = append(seg, "namespaces", c.namespace)
	}
	seg = append(seg, c.gvr.Resource)
	if name != "" {
		seg = append(seg, name)
		seg = append(seg, subresources...)
	}
	return path.Join(seg...)
}

// NewRequest starts a request to the collection (name empty) or to the
// named object, for callers that set their own headers (a Table Accept).
func (c *ResourceClient) NewRequest(verb, name string, subresources ...string) (*rest.Request, error) {
	for _, s := range append([]string{name}, subresources...) {
		if s != "" && (s == "." || s == ".." || path.Base("/"+s) != s) {
			return nil, fmt.Errorf("%s %s: invalid name %q", verb, c.gvr.GroupResource(), s)
		}
	}
	return c.rc.Verb(verb).AbsPath(c.Path(name, subresources...)), nil
}

func (c *ResourceClient) itemRequest(verb, name string, subresources ...string) (*rest.Request, error) {
	if name == "" {
		return nil, fmt.Errorf("%s %s: a name is required", verb, c.gvr.GroupResource())
	}
	return c.NewRequest(verb, name, subresources...)
}

func decode(res rest.Result) (*Unstructured, error) {
	out := &Unstructured{}
	if err := res.Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns the named object (or its subresource).
func (c *ResourceClient) Get(ctx context.Context, name string, opts metav1.GetOptions, subresources ...string) (*Unstructured, error) {
	req, err := c.itemRequest("GET", name, subresources...)
	if err != nil {
		return nil, err
	}
	return decode(req.VersionedParams(&opts).Do(ctx))
}

// List returns the objects matching opts as a list object.
func (c *ResourceClient) List(ctx context.Context, opts metav1.ListOptions) (*Unstructured, error) {
	req, err := c.NewRequest("GET", "")
	if err != nil {
		return nil, err
	}
	return decode(req.VersionedParams(&opts).Do(ctx))
}

// Watch watches the objects matching opts; event objects are
// *Unstructured.
func (c *ResourceClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	req, err := c.NewRequest("GET", "")
	if err != nil {
		return nil, err
	}
	opts.Watch = true
	w, err := req.VersionedParams(&opts).
		WatchObject(func() runtime.Object { return &Unstructured{} }).Watch(ctx)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Create creates obj (or a subresource of the named object) and returns
// what the server stored.
func (c *ResourceClient) Create(ctx context.Context, obj *Unstructured, opts metav1.CreateOptions, subresources ...string) (*Unstructured, error) {
	name := ""
	if len(subresources) > 0 {
		name = obj.GetName()
	}
	req, err := c.NewRequest("POST", name, subresources...)
	if err != nil {
		return nil, err
	}
	return decode(req.VersionedParams(&opts).Body(obj).Do(ctx))
}

// Update replaces the object named by obj (or its subresource).
func (c *ResourceClient) Update(ctx context.Context, obj *Unstructured, opts metav1.UpdateOptions, subresources ...string) (*Unstructured, error) {
	req, err := c.itemRequest("PUT", obj.GetName(), subresources...)
	if err != nil {
		return nil, err
	}
	return decode(req.VersionedParams(&opts).Body(obj).Do(ctx))
}

// Patch applies a patch of type pt to the named object (or a subresource
// of it) and returns the result.
func (c *ResourceClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*Unstructured, error) {
	req, err := c.itemRequest("PATCH", name, subresources...)
	if err != nil {
		return nil, err
	}
	return decode(req.SetHeader("Content-Type", string(pt)).VersionedParams(&opts).Body(data).Do(ctx))
}

// Delete deletes the named object and returns what the server answered:
// the object when its deletion is pending (finalizers, a grace period), or
// nil with a Success Status.
func (c *ResourceClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) (*Unstructured, error) {
	req, err := c.itemRequest("DELETE", name)
	if err != nil {
		return nil, err
	}
	out := &Unstructured{}
	if err := req.Body(&opts).Do(ctx).Into(out); err != nil {
		return nil, err
	}
	if out.Object == nil {
		return nil, nil
	}
	return out, nil
}
