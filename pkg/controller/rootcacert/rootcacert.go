// Package rootcacert is the root CA certificate publisher: every active
// namespace has a ConfigMap kube-root-ca.crt holding the cluster CA, which
// pods mount with their service account token to verify the API server.
package rootcacert

import (
	"context"
	"errors"
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
const Name = "root-ca-cert-publisher"

// ConfigMapName is the published ConfigMap; DataKey holds the PEM.
const (
	ConfigMapName = "kube-root-ca.crt"
	DataKey       = "ca.crt"
)

// descriptionAnnotation says what the ConfigMap is for, as Kubernetes does.
const descriptionAnnotation = "kubernetes.io/description"

const description = "The cluster CA bundle, for pods to verify the API server at its in-cluster endpoints " +
	"(the kubernetes service, kubernetes.default.svc)."

// Controller keeps kube-root-ca.crt in every namespace equal to the CA.
// Its keys are namespace names.
type Controller struct {
	client     *typed.Clientset
	ca         string
	namespaces cache.Lister[*corev1.Namespace]
	configMaps cache.Lister[*corev1.ConfigMap]
	queue      workqueue.TypedRateLimitingInterface[string]
	synced     []func() bool
	runner     controller.Runner
}

// New returns a controller publishing ca (PEM) fed by the factory's
// informers; it watches only the config maps named ConfigMapName.
func New(client *typed.Clientset, factory *informers.SharedInformerFactory, ca []byte) (*Controller, error) {
	if len(ca) == 0 {
		return nil, errors.New("root CA publisher: no CA certificate to publish")
	}
	namespaces, err := informers.For[*corev1.Namespace](factory, corev1.SchemeGroupVersion.WithResource("namespaces"))
	if err != nil {
		return nil, fmt.Errorf("root CA publisher: %w", err)
	}
	byName := factory.Restricted(informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + ConfigMapName
	}))
	configMaps, err := informers.For[*corev1.ConfigMap](byName, corev1.SchemeGroupVersion.WithResource("configmaps"))
	if err != nil {
		return nil, fmt.Errorf("root CA publisher: %w", err)
	}
	c := &Controller{
		client:     client,
		ca:         string(ca),
		namespaces: namespaces.Lister(),
		configMaps: configMaps.Lister(),
		queue:      workqueue.NewTypedRateLimitingQueueWithConfig[string](nil, workqueue.TypedRateLimitingQueueConfig[string]{Name: Name}),
	}
	nsReg, err := namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Namespace]{
		AddFunc:    func(ns *corev1.Namespace, _ bool) { c.queue.Add(ns.Name) },
		UpdateFunc: func(_, ns *corev1.Namespace) { c.queue.Add(ns.Name) },
	})
	if err != nil {
		return nil, fmt.Errorf("root CA publisher: %w", err)
	}
	cmReg, err := configMaps.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.ConfigMap]{
		UpdateFunc: func(_, cm *corev1.ConfigMap) { c.queue.Add(cm.Namespace) },
		DeleteFunc: func(cm *corev1.ConfigMap) { c.queue.Add(cm.Namespace) },
	})
	if err != nil {
		return nil, fmt.Errorf("root CA publisher: %w", err)
	}
	c.synced = []func() bool{nsReg.HasSynced, cmReg.HasSynced}
	return c, nil
}

// Run runs workers until ctx ends, once the informers have synced.
func (c *Controller) Run(ctx context.Context, workers int) error {
	return c.runner.Run(ctx, Name, workers, c.queue, c.sync, c.synced...)
}

// sync makes or repairs the ConfigMap of an active namespace.
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
	cms := c.client.CoreV1().ConfigMaps(namespace)
	cm, err := c.configMaps.Namespaced(namespace).Get(ConfigMapName)
	switch {
	case apierrors.IsNotFound(err):
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: ConfigMapName, Annotations: map[string]string{descriptionAnnotation: description}},
			Data:       map[string]string{DataKey: c.ca},
		}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
			// Forbidden: the namespace started terminating meanwhile.
			return fmt.Errorf("create %s/%s: %w", namespace, ConfigMapName, err)
		}
		return nil
	case err != nil:
		return err
	}
	if len(cm.Data) == 1 && cm.Data[DataKey] == c.ca && cm.Annotations[descriptionAnnotation] == description {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = map[string]string{DataKey: c.ca}
	cm.BinaryData = nil
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[descriptionAnnotation] = description
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update %s/%s: %w", namespace, ConfigMapName, err)
	}
	return nil
}
