// Package metadata reads and writes the metadata of objects of any resource,
// as PartialObjectMetadata, for controllers that work across every resource.
package metadata

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
	"kubecore.io/client/tools/cache"
)

// acceptObject and acceptList ask the server for the metadata only; JSON of
// the whole object is the fallback a server without the conversion gives.
const (
	acceptObject = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	acceptList   = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

// Client reaches the metadata of every resource of one server.
type Client struct {
	rc *rest.Client
}

// NewForConfig returns a metadata client for config's server.
func NewForConfig(config *rest.Config) (*Client, error) {
	rc, err := rest.NewClient(config, rest.ClientOptions{})
	if err != nil {
		return nil, fmt.Errorf("metadata client: %w", err)
	}
	return &Client{rc: rc}, nil
}

// NewClient returns a metadata client over rc, a client of absolute paths
// (rest.ClientOptions.GroupVersion empty).
func NewClient(rc *rest.Client) *Client { return &Client{rc: rc} }

// Resource returns the client of one resource in all namespaces (or a
// cluster-scoped resource); Namespace narrows it.
func (c *Client) Resource(gvr schema.GroupVersionResource) *ResourceClient {
	return &ResourceClient{rc: c.rc, gvr: gvr}
}

// ListWatch returns the ListerWatcher of gvr in namespace ("" for all), so
// that a Client is the source of a shared informer factory of
// *metav1.PartialObjectMetadata:
//
//	factory := informers.NewSharedInformerFactory(metadataClient)
//	inf, err := informers.For[*metav1.PartialObjectMetadata](factory, gvr)
func (c *Client) ListWatch(gvr schema.GroupVersionResource, namespace string) (cache.ListerWatcher, error) {
	if gvr.Version == "" || gvr.Resource == "" {
		return nil, fmt.Errorf("list and watch %s: version and resource are required", gvr)
	}
	return cache.ListWatchFromClient[*metav1.PartialObjectMetadataList](c.Resource(gvr).Namespace(namespace)), nil
}

// ResourceClient reaches the objects of one resource, in one namespace or
// all of them.
type ResourceClient struct {
	rc        *rest.Client
	gvr       schema.GroupVersionResource
	namespace string
}

// Namespace returns the client of the resource in ns.
func (c *ResourceClient) Namespace(ns string) *ResourceClient {
	out := *c
	out.namespace = ns
	return &out
}

// segments is the path of the collection, or of one object and its
// subresources.
func (c *ResourceClient) segments(name string, subresources ...string) []string {
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
	return seg
}

func (c *ResourceClient) request(verb, name string, subresources ...string) (*rest.Request, error) {
	for _, s := range append([]string{name}, subresources...) {
		if s != "" && (s == "." || s == ".." || path.Base("/"+s) != s) {
			return nil, fmt.Errorf("%s %s: invalid name %q", verb, c.gvr.GroupResource(), s)
		}
	}
	return c.rc.Verb(verb).AbsPath(c.segments(name, subresources...)...), nil
}

func (c *ResourceClient) itemRequest(verb, name string, subresources ...string) (*rest.Request, error) {
	if name == "" {
		return nil, fmt.Errorf("%s %s: a name is required", verb, c.gvr.GroupResource())
	}
	return c.request(verb, name, subresources...)
}

// Get returns the metadata of the named object.
func (c *ResourceClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*metav1.PartialObjectMetadata, error) {
	req, err := c.itemRequest("GET", name)
	if err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadata{}
	if err := req.SetHeader("Accept", acceptObject).VersionedParams(&opts).Do(ctx).Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns the metadata of the objects matching opts.
func (c *ResourceClient) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	req, err := c.request("GET", "")
	if err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadataList{}
	if err := req.SetHeader("Accept", acceptList).VersionedParams(&opts).Do(ctx).Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Watch watches the metadata of the objects matching opts.
func (c *ResourceClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	req, err := c.request("GET", "")
	if err != nil {
		return nil, err
	}
	opts.Watch = true
	w, err := req.SetHeader("Accept", acceptObject).VersionedParams(&opts).
		WatchObject(func() runtime.Object { return &metav1.PartialObjectMetadata{} }).Watch(ctx)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Delete deletes the named object; preconditions, the grace period and the
// propagation policy travel in opts.
func (c *ResourceClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	req, err := c.itemRequest("DELETE", name)
	if err != nil {
		return err
	}
	return req.Body(&opts).Do(ctx).Error()
}

// DeleteCollection deletes the objects matching listOpts.
func (c *ResourceClient) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	req, err := c.request("DELETE", "")
	if err != nil {
		return err
	}
	return req.VersionedParams(&listOpts).Body(&opts).Do(ctx).Error()
}

// Patch applies a patch of type pt to the named object (or a subresource of
// it) and returns the metadata of the result.
func (c *ResourceClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*metav1.PartialObjectMetadata, error) {
	req, err := c.itemRequest("PATCH", name, subresources...)
	if err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadata{}
	err = req.SetHeader("Content-Type", string(pt)).SetHeader("Accept", acceptObject).
		VersionedParams(&opts).Body(data).Do(ctx).Into(out)
	if err != nil {
		return nil, err
	}
	return out, nil
}
