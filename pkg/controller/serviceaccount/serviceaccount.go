// Package serviceaccount is the service-account controller: every active
// namespace has a ServiceAccount named default, made again if deleted, as
// pods that name no service account run as it.
package serviceaccount

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "serviceaccount"

// DefaultName is the service account every namespace has.
const DefaultName = "default"

// Controller keeps the default service account of every namespace. Its
// keys are namespace names.
type Controller struct {
	*controller.Controller
	client     Client
	namespaces cache.Lister[*corev1.Namespace]
	accounts   cache.Lister[*corev1.ServiceAccount]
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// New returns a controller working through client, fed by the informers
// of factory.
func New(client Client, factory *informers.SharedInformerFactory) (*Controller, error) {
	c := &Controller{client: client}
	c.Controller = controller.New(Name, c.sync)
	namespaces := controller.Informer(c.Controller, factory, informers.Namespaces)
	accounts := controller.Informer(c.Controller, factory, informers.ServiceAccounts)
	c.namespaces, c.accounts = namespaces.Lister(), accounts.Lister()
	controller.Watch(c, namespaces, controller.Upserts(controller.KeyOf[*corev1.Namespace]))
	controller.Watch(c, accounts, controller.Handler[*corev1.ServiceAccount]{Delete: func(sa *corev1.ServiceAccount) []string {
		if sa.Name != DefaultName {
			return nil
		}
		return controller.NamespaceOf(sa)
	}})
	return c, c.Err()
}

// sync makes the default service account of namespace when the namespace
// is active and has none.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	if active, err := controller.NamespaceActive(c.namespaces, namespace); !active || err != nil {
		return err
	}
	if _, err := c.accounts.Namespaced(namespace).Get(DefaultName); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: DefaultName}}
	_, err := c.client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
		// Forbidden: the namespace started terminating meanwhile.
		return fmt.Errorf("create the default service account of %s: %w", namespace, err)
	}
	return nil
}
