// Package deployment is the Deployment controller: it rolls a Deployment's pod
// template out through ReplicaSets (RollingUpdate or Recreate) and reports status.
package deployment

import (
	"context"
	"fmt"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "deployment"

var (
	controllerKind = appsv1.SchemeGroupVersion.WithKind("Deployment")
	rsKind         = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
)

// DeploymentClient writes the Deployments of one namespace; the typed
// client satisfies it.
type DeploymentClient interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.Deployment, error)
	UpdateStatus(ctx context.Context, d *appsv1.Deployment, opts metav1.UpdateOptions) (*appsv1.Deployment, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*appsv1.Deployment, error)
}

// ReplicaSetClient writes the ReplicaSets of one namespace; the typed
// client satisfies it.
type ReplicaSetClient interface {
	Create(ctx context.Context, rs *appsv1.ReplicaSet, opts metav1.CreateOptions) (*appsv1.ReplicaSet, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.ReplicaSet, error)
	Update(ctx context.Context, rs *appsv1.ReplicaSet, opts metav1.UpdateOptions) (*appsv1.ReplicaSet, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*appsv1.ReplicaSet, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	AppsV1() typed.AppsV1
}

// Options tune a Controller; the zero value gives the defaults.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// Now reads the clock (progress deadlines); nil means time.Now.
	Now func() time.Time
}

// Controller is the Deployment controller.
type Controller struct {
	*controller.Controller
	deployments func(ns string) DeploymentClient
	replicaSets func(ns string) ReplicaSetClient
	dLister     cache.Lister[*appsv1.Deployment]
	rsLister    cache.Lister[*appsv1.ReplicaSet]
	podLister   cache.Lister[*corev1.Pod]
	recorder    record.EventRecorder
	now         func() time.Time
}

// New returns a Deployment controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := newController(
		func(ns string) DeploymentClient { return client.AppsV1().Deployments(ns) },
		func(ns string) ReplicaSetClient { return client.AppsV1().ReplicaSets(ns) },
		opts)
	dInformer := controller.Informer(c.Controller, factory, informers.Deployments)
	rsInformer := controller.Informer(c.Controller, factory, informers.ReplicaSets)
	podInformer := controller.Informer(c.Controller, factory, informers.Pods)
	c.dLister, c.rsLister, c.podLister = dInformer.Lister(), rsInformer.Lister(), podInformer.Lister()
	controller.Watch(c, dInformer, controller.ObjectKeys[*appsv1.Deployment]())
	controller.Watch(c, rsInformer, controller.Owned[*appsv1.Deployment, *appsv1.ReplicaSet]{
		Kind:   controllerKind.GroupKind(),
		Owners: c.dLister,
		Adopters: func(rs *appsv1.ReplicaSet) []string {
			ds, _ := c.dLister.Namespaced(rs.Namespace).List(labels.Everything())
			return controller.SelectorKeys(ds, func(d *appsv1.Deployment) *metav1.LabelSelector { return d.Spec.Selector }, rs)
		},
	}.Handler(c))
	controller.Watch(c, podInformer, controller.Handler[*corev1.Pod]{Delete: c.podDeleted})
	return c, c.Err()
}

func newController(deployments func(string) DeploymentClient, replicaSets func(string) ReplicaSetClient, opts Options) *Controller {
	opts.Now = controller.OrNow(opts.Now)
	c := &Controller{
		deployments: deployments,
		replicaSets: replicaSets,
		recorder:    record.OrDiscard(opts.Recorder),
		now:         opts.Now,
	}
	c.Controller = controller.New(Name, c.sync)
	return c
}

// ownerOf returns the Deployment controlling obj, if we know it.
func (c *Controller) ownerOf(obj metav1.Object) (*appsv1.Deployment, bool) {
	return controller.ResolveControllerRef(metav1.GetControllerOf(obj), controllerKind.GroupKind(), c.dLister.Namespaced(obj.GetNamespace()).Get)
}

// podDeleted wakes a Recreate Deployment waiting for its old pods to go.
func (c *Controller) podDeleted(pod *corev1.Pod) []string {
	rs, ok := controller.ResolveControllerRef(metav1.GetControllerOf(pod), rsKind.GroupKind(), c.rsLister.Namespaced(pod.Namespace).Get)
	if !ok {
		return nil
	}
	if d, ok := c.ownerOf(rs); ok && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return controller.KeyOf(d)
	}
	return nil
}

// sync brings the Deployment named by key one step closer to its spec.
func (c *Controller) sync(ctx context.Context, key string) error {
	cached, ok, err := controller.Get(ctx, c.dLister, key)
	if !ok {
		return err
	}
	d := cached.DeepCopy()
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || selector.Empty() {
		c.recorder.Eventf(d, corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			_, err := c.deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
			return err
		}
		return nil
	}
	rsList, err := c.claimReplicaSets(ctx, d, selector)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return c.syncStatusOnly(ctx, d, rsList)
	}
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.syncScaleOnly(ctx, d, rsList)
	}
	if isScalingEvent(d, rsList) {
		return c.syncScaleOnly(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return c.rolloutRecreate(ctx, d, rsList)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return c.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("deployment %s: unexpected strategy type %q", key, d.Spec.Strategy.Type)
}

// claimReplicaSets returns the ReplicaSets d controls, adopting matching
// orphans and releasing those that stopped matching.
func (c *Controller) claimReplicaSets(ctx context.Context, d *appsv1.Deployment, selector labels.Selector) ([]*appsv1.ReplicaSet, error) {
	canAdopt := controller.RecheckDeletionTimestamp(d, func(ctx context.Context) (metav1.Object, error) {
		return c.deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
	})
	patch := func(ctx context.Context, ns, name string, data []byte) error {
		_, err := c.replicaSets(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{})
		return err
	}
	return controller.ClaimFrom(ctx, controller.NewRefManager[*appsv1.ReplicaSet](d, controllerKind, selector, patch, canAdopt), c.rsLister)
}

// isScalingEvent reports whether d's replicas changed since its active
// ReplicaSets were last sized.
func isScalingEvent(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) bool {
	for _, rs := range activeReplicaSets(rsList) {
		desired, ok := annotationInt(rs, appsv1.DesiredReplicasAnnotation)
		if ok && desired != replicasOf(d.Spec.Replicas) {
			return true
		}
	}
	return false
}
