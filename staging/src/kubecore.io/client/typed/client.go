// Package typed is the typed client of kubecore: one generic implementation
// of the API verbs serving every built-in resource, and a Clientset over it.
package typed

import (
	"context"
	"fmt"
	"reflect"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
)

// Object is an API object the typed client can read and write.
type Object interface {
	runtime.Object
	metav1.Object
}

// List is the list type of a resource.
type List interface {
	runtime.Object
	metav1.ListInterface
}

// Resource describes one resource to the generic client: where it is
// served, its kind, its scope, and how to make its Go values.
type Resource[T Object, L List] struct {
	GroupVersionResource schema.GroupVersionResource
	Kind                 string
	Namespaced           bool

	newObject func() T
	newList   func() L
}

// NewResource describes a resource whose object type is *E and list type
// *LE:
//
//	typed.NewResource[corev1.Pod, corev1.PodList](corev1.SchemeGroupVersion.WithResource("pods"), "Pod", true)
func NewResource[E, LE any, T interface {
	*E
	Object
}, L interface {
	*LE
	List
}](gvr schema.GroupVersionResource, kind string, namespaced bool) Resource[T, L] {
	return Resource[T, L]{
		GroupVersionResource: gvr,
		Kind:                 kind,
		Namespaced:           namespaced,
		newObject:            func() T { return T(new(E)) },
		newList:              func() L { return L(new(LE)) },
	}
}

// GroupResource returns the resource qualified by its group, for errors.
func (r Resource[T, L]) GroupResource() schema.GroupResource {
	return r.GroupVersionResource.GroupResource()
}

// NewObject returns a new, empty object of the resource.
func (r Resource[T, L]) NewObject() T { return r.newObject() }

// NewList returns a new, empty list of the resource.
func (r Resource[T, L]) NewList() L { return r.newList() }

// Client reads and writes one resource, in one namespace for a namespaced
// resource (all namespaces for List, Watch and DeleteCollection when the
// namespace is empty).
type Client[T Object, L List] struct {
	rc        *rest.Client
	res       Resource[T, L]
	namespace string
}

// NewClient returns a client of res through rc, which must serve res's
// group version. namespace is ignored for a cluster-scoped resource.
func NewClient[T Object, L List](rc *rest.Client, res Resource[T, L], namespace string) *Client[T, L] {
	if !res.Namespaced {
		namespace = ""
	}
	return &Client[T, L]{rc: rc, res: res, namespace: namespace}
}

// Resource returns the resource the client serves.
func (c *Client[T, L]) Resource() Resource[T, L] { return c.res }

// Namespace returns the client's namespace; empty for a cluster-scoped
// resource or all namespaces.
func (c *Client[T, L]) Namespace() string { return c.namespace }

// RESTClient returns the underlying REST client.
func (c *Client[T, L]) RESTClient() *rest.Client { return c.rc }

// collection starts a request on the resource's collection.
func (c *Client[T, L]) collection(verb string) *rest.Request {
	return c.rc.Verb(verb).Namespace(c.namespace).Resource(c.res.GroupVersionResource.Resource)
}

// item starts a request on one object; a namespaced resource needs a
// namespace.
func (c *Client[T, L]) item(verb, name string) (*rest.Request, error) {
	if c.res.Namespaced && c.namespace == "" {
		return nil, fmt.Errorf("%s %s %q: a namespace is required for namespaced resources", verb, c.res.GroupResource(), name)
	}
	return c.collection(verb).Name(name), nil
}

// Get returns the named object.
func (c *Client[T, L]) Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error) {
	out := c.res.newObject()
	req, err := c.item("GET", name)
	if err != nil {
		return zero[T](), err
	}
	if err := req.VersionedParams(&opts).Do(ctx).Into(out); err != nil {
		return zero[T](), err
	}
	return out, nil
}

// List returns the objects matching opts.
func (c *Client[T, L]) List(ctx context.Context, opts metav1.ListOptions) (L, error) {
	out := c.res.newList()
	if err := c.collection("GET").VersionedParams(&opts).Do(ctx).Into(out); err != nil {
		var zeroL L
		return zeroL, err
	}
	return out, nil
}

// Watch watches the objects matching opts (opts.Watch is implied).
func (c *Client[T, L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	w, err := c.collection("GET").VersionedParams(&opts).
		WatchObject(func() runtime.Object { return c.res.newObject() }).Watch(ctx)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Create creates obj and returns the object the server stored.
func (c *Client[T, L]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	if isNil(obj) {
		return zero[T](), fmt.Errorf("create %s: object is nil", c.res.GroupResource())
	}
	if c.res.Namespaced && c.namespace == "" {
		return zero[T](), fmt.Errorf("create %s: a namespace is required for namespaced resources", c.res.GroupResource())
	}
	out := c.res.newObject()
	if err := c.collection("POST").VersionedParams(&opts).Body(obj).Do(ctx).Into(out); err != nil {
		return zero[T](), err
	}
	return out, nil
}

// Update replaces the object named by obj.
func (c *Client[T, L]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return c.put(ctx, obj, opts, "")
}

// UpdateStatus replaces the status of the object named by obj.
func (c *Client[T, L]) UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return c.put(ctx, obj, opts, "status")
}

func (c *Client[T, L]) put(ctx context.Context, obj T, opts metav1.UpdateOptions, subresource string) (T, error) {
	if isNil(obj) {
		return zero[T](), fmt.Errorf("update %s: object is nil", c.res.GroupResource())
	}
	req, err := c.item("PUT", obj.GetName())
	if err != nil {
		return zero[T](), err
	}
	if subresource != "" {
		req.SubResource(subresource)
	}
	out := c.res.newObject()
	if err := req.VersionedParams(&opts).Body(obj).Do(ctx).Into(out); err != nil {
		return zero[T](), err
	}
	return out, nil
}

// Patch applies a patch of type pt to the named object, or to one of its
// subresources (e.g. "status").
func (c *Client[T, L]) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error) {
	req, err := c.item("PATCH", name)
	if err != nil {
		return zero[T](), err
	}
	if len(subresources) > 0 {
		req.SubResource(subresources[0]).Suffix(subresources[1:]...)
	}
	out := c.res.newObject()
	err = req.SetHeader("Content-Type", string(pt)).VersionedParams(&opts).Body(data).Do(ctx).Into(out)
	if err != nil {
		return zero[T](), err
	}
	return out, nil
}

// Delete deletes the named object. Preconditions and the grace period
// travel in the body, as DeleteOptions.
func (c *Client[T, L]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	req, err := c.item("DELETE", name)
	if err != nil {
		return err
	}
	return req.Body(&opts).Do(ctx).Error()
}

// DeleteCollection deletes the objects matching listOpts.
func (c *Client[T, L]) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	return c.collection("DELETE").VersionedParams(&listOpts).Body(&opts).Do(ctx).Error()
}

// subresource sends obj (nil for none) to a subresource of the named object
// and decodes the answer into out (nil to ignore it).
func (c *Client[T, L]) subresource(ctx context.Context, verb, name, sub string, params rest.Queryer, body any, out runtime.Object) error {
	req, err := c.item(verb, name)
	if err != nil {
		return err
	}
	req.SubResource(sub)
	if params != nil {
		req.VersionedParams(params)
	}
	if body != nil {
		req.Body(body)
	}
	res := req.Do(ctx)
	if out == nil {
		return res.Error()
	}
	return res.Into(out)
}

func zero[T any]() T {
	var z T
	return z
}

// isNil reports whether obj is a nil interface or a nil pointer.
func isNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
