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
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/apis/core/helper"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "serviceaccount"

// DefaultName is the service account every namespace has.
const DefaultName = "default"

// Controller keeps the default service account of every namespace. Its
// keys are namespace names.
type Controller struct {
	client     *typed.Clientset
	namespaces cache.Lister[*corev1.Namespace]
	accounts   cache.Lister[*corev1.ServiceAccount]
	queue      workqueue.TypedRateLimitingInterface[string]
	synced     []func() bool
	runner     controller.Runner
}

// New returns a controller fed by the factory's informers.
func New(client *typed.Clientset, factory *informers.SharedInformerFactory) (*Controller, error) {
	namespaces, err := informers.For[*corev1.Namespace](factory, corev1.SchemeGroupVersion.WithResource("namespaces"))
	if err != nil {
		return nil, fmt.Errorf("serviceaccount controller: %w", err)
	}
	accounts, err := informers.For[*corev1.ServiceAccount](factory, corev1.SchemeGroupVersion.WithResource("serviceaccounts"))
	if err != nil {
		return nil, fmt.Errorf("serviceaccount controller: %w", err)
	}
	c := &Controller{
		client:     client,
		namespaces: namespaces.Lister(),
		accounts:   accounts.Lister(),
		queue:      workqueue.NewTypedRateLimitingQueueWithConfig[string](nil, workqueue.TypedRateLimitingQueueConfig[string]{Name: Name}),
	}
	nsReg, err := namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Namespace]{
		AddFunc:    func(ns *corev1.Namespace, _ bool) { c.queue.Add(ns.Name) },
		UpdateFunc: func(_, ns *corev1.Namespace) { c.queue.Add(ns.Name) },
	})
	if err != nil {
		return nil, fmt.Errorf("serviceaccount controller: %w", err)
	}
	saReg, err := accounts.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.ServiceAccount]{
		DeleteFunc: func(sa *corev1.ServiceAccount) {
			if sa.Name == DefaultName {
				c.queue.Add(sa.Namespace)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("serviceaccount controller: %w", err)
	}
	c.synced = []func() bool{nsReg.HasSynced, saReg.HasSynced}
	return c, nil
}

// Run runs workers until ctx ends, once the informers have synced.
func (c *Controller) Run(ctx context.Context, workers int) error {
	return c.runner.Run(ctx, Name, workers, c.queue, c.sync, c.synced...)
}

// sync makes the default service account of namespace when the namespace
// is active and has none.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	ns, err := c.namespaces.Get(namespace)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if helper.NamespaceTerminating(ns) {
		return nil
	}
	if _, err := c.accounts.Namespaced(namespace).Get(DefaultName); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: DefaultName}}
	_, err = c.client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
		// Forbidden: the namespace started terminating meanwhile.
		return fmt.Errorf("create the default service account of %s: %w", namespace, err)
	}
	return nil
}
