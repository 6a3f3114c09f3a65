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
	*controller.Controller
	client     Client
	ca         string
	namespaces cache.Lister[*corev1.Namespace]
	configMaps cache.Lister[*corev1.ConfigMap]
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// Options configure the controller.
type Options struct {
	// CA is the PEM bundle to publish; it is required.
	CA []byte
}

// New returns a controller publishing opts.CA through client, fed by the
// informers of factory; it watches only the config maps named
// ConfigMapName.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	if len(opts.CA) == 0 {
		return nil, errors.New("root CA publisher: no CA certificate to publish")
	}
	c := &Controller{client: client, ca: string(opts.CA)}
	c.Controller = controller.New(Name, c.sync)
	byName := factory.Restricted(informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + ConfigMapName
	}))
	namespaces := controller.Informer(c.Controller, factory, informers.Namespaces)
	configMaps := controller.Informer(c.Controller, byName, informers.ConfigMaps)
	c.namespaces, c.configMaps = namespaces.Lister(), configMaps.Lister()
	controller.Watch(c, namespaces, controller.Upserts(controller.KeyOf[*corev1.Namespace]))
	// A ConfigMap changed or deleted by someone else is put back.
	changes := controller.Keys(controller.NamespaceOf[*corev1.ConfigMap])
	changes.Add = nil
	controller.Watch(c, configMaps, changes)
	return c, c.Err()
}

// sync makes or repairs the ConfigMap of an active namespace.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	if active, err := controller.NamespaceActive(c.namespaces, namespace); !active || err != nil {
		return err
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
