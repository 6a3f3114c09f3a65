// Package namespace is the namespace controller: it empties a Terminating
// namespace of every namespaced object, then releases its "kubernetes" finalizer.
package namespace

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/discovery"
	"kubecore.io/client/informers"
	"kubecore.io/client/metadata"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/retry"
	"kubecore.io/client/util/workqueue"

	"k8s.io/klog/v2"
)

// Name is the controller's name in the controller-manager.
const Name = "namespace"

// Discoverer lists the resources the server serves; *discovery.Client is one.
type Discoverer interface {
	ServerPreferredResources(ctx context.Context) ([]*metav1.APIResourceList, error)
}

// Client is what the controller asks of the API server: namespaces, and
// the metadata of every resource to empty them.
type Client interface {
	CoreV1() typed.CoreV1
	Metadata() *metadata.Client
	Discovery() *discovery.Client
}

// Controller deletes the content of Terminating namespaces.
type Controller struct {
	*controller.Controller
	namespaces *cache.Informer[*corev1.Namespace]
	client     *typed.Client[*corev1.Namespace, *corev1.NamespaceList]
	deleter    *contentDeleter
	now        func() time.Time
}

// New returns a namespace controller reading namespaces from factory and
// deleting their content through client.
func New(client Client, factory *informers.SharedInformerFactory) (*Controller, error) {
	c := &Controller{
		client:  client.CoreV1().Namespaces(),
		deleter: &contentDeleter{disco: client.Discovery(), content: metadataContent{client.Metadata()}},
		now:     time.Now,
	}
	c.deleter.now = c.now
	c.Controller = controller.New(Name, c.sync, controller.QueueOptions{RateLimiter: workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 60*time.Second),
		workqueue.NewTypedBucketRateLimiter[string](10, 100),
	)})
	c.namespaces = controller.Informer(c.Controller, factory, informers.Namespaces)
	terminating := func(ns *corev1.Namespace) []string {
		if ns.DeletionTimestamp == nil {
			return nil
		}
		return []string{ns.Name}
	}
	controller.Watch(c, c.namespaces, controller.Upserts(terminating))
	return c, c.Err()
}

// sync deletes the content of the namespace named key if it is
// Terminating, and finalizes it once nothing is left.
func (c *Controller) sync(ctx context.Context, key string) error {
	cached, err := c.namespaces.Lister().Get(key)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if cached.DeletionTimestamp == nil {
		return nil
	}
	// The cache may lag: act on the namespace as it is now.
	ns, err := c.client.Get(ctx, key, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get namespace %s: %w", key, err)
	}
	if ns.DeletionTimestamp == nil {
		return nil
	}
	logger := klog.FromContext(ctx).WithValues("namespace", key)
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return c.deleteIfFinalized(ctx, ns)
	}
	if ns.Status.Phase != corev1.NamespaceTerminating {
		ns.Status.Phase = corev1.NamespaceTerminating
		if ns, err = c.client.UpdateStatus(ctx, ns, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("mark namespace %s terminating: %w", key, err)
		}
	}

	res := c.deleter.deleteContent(ctx, key)
	if changed := setConditions(&ns.Status, res.conditions(c.now())); changed {
		if _, err := c.client.UpdateStatus(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			// The conditions are reported again next time.
			logger.V(4).Info("Could not update namespace conditions", "err", err)
		}
	}
	if err := res.err(); err != nil {
		return fmt.Errorf("delete content of namespace %s: %w", key, err)
	}
	if res.left() {
		wait := res.requeueAfter()
		logger.V(4).Info("Content remains, checking again later", "after", wait)
		c.Queue().AddAfter(key, wait)
		return nil
	}
	logger.V(2).Info("Namespace is empty, finalizing")
	return c.finalize(ctx, key)
}

// finalize removes the "kubernetes" finalizer through /finalize, then
// deletes the namespace if no finalizer is left.
func (c *Controller) finalize(ctx context.Context, name string) error {
	var out *corev1.Namespace
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ns, err := c.client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
			out = ns
			return nil
		}
		ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool {
			return f == corev1.FinalizerKubernetes
		})
		fresh := &corev1.Namespace{}
		err = c.client.RESTClient().Put().Resource("namespaces").Name(name).SubResource("finalize").
			Body(ns).Do(ctx).Into(fresh)
		if err != nil {
			return err
		}
		out = fresh
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finalize namespace %s: %w", name, err)
	}
	return c.deleteIfFinalized(ctx, out)
}

// deleteIfFinalized deletes a Terminating namespace whose spec finalizers
// are all gone; the API server then removes it (or waits for its metadata
// finalizers).
func (c *Controller) deleteIfFinalized(ctx context.Context, ns *corev1.Namespace) error {
	if len(ns.Spec.Finalizers) > 0 {
		return nil
	}
	uid := ns.UID
	err := c.client.Delete(ctx, ns.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("delete finalized namespace %s: %w", ns.Name, err)
}
