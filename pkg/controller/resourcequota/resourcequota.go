// Package resourcequota is the quota controller: it computes each
// ResourceQuota's status (hard from spec.hard, used summed over the
// namespace's objects its scopes select) when a quota changes, when an
// object that frees quota goes away, and on a periodic full resync.
package resourcequota

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/apis/core/quota"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "resourcequota"

// DefaultResyncPeriod is how often every quota is recomputed, catching
// charges admission made for writes that then failed (Kubernetes'
// --resource-quota-sync-period).
const DefaultResyncPeriod = 5 * time.Minute

// QuotaClient writes the status of the quotas of one namespace; the typed
// client satisfies it.
type QuotaClient interface {
	UpdateStatus(ctx context.Context, q *corev1.ResourceQuota, opts metav1.UpdateOptions) (*corev1.ResourceQuota, error)
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// Options tune a Controller; the zero value gives the defaults.
type Options struct {
	// ResyncPeriod is the period of full recomputations; default
	// DefaultResyncPeriod.
	ResyncPeriod time.Duration
}

// tracked is a resource whose objects the controller counts.
type tracked struct {
	gr   schema.GroupResource
	list func(namespace string) ([]runtime.Object, error)
}

// Controller is the quota controller.
type Controller struct {
	*controller.Controller
	quotas  func(namespace string) QuotaClient
	lister  cache.Lister[*corev1.ResourceQuota]
	tracked []tracked
}

// New returns the quota controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := &Controller{quotas: func(ns string) QuotaClient { return client.CoreV1().ResourceQuotas(ns) }}
	c.Controller = controller.New(Name, c.sync)
	quotas := controller.Informer(c.Controller, factory, informers.ResourceQuotas)
	c.lister = quotas.Lister()
	controller.Watch(c, quotas, controller.Handler[*corev1.ResourceQuota]{
		Add: controller.KeyOf[*corev1.ResourceQuota],
		Update: func(old, cur *corev1.ResourceQuota) []string {
			// Admission's charges change status.used only: leave them be.
			if quota.Equal(cur.Spec.Hard, cur.Status.Hard) && quota.Equal(old.Spec.Hard, cur.Spec.Hard) && cur.Status.Used != nil {
				return nil
			}
			return controller.KeyOf(cur)
		},
	})
	track(c, factory, corev1.Resource("pods"), informers.Pods)
	track(c, factory, corev1.Resource("services"), informers.Services)
	track(c, factory, corev1.Resource("secrets"), informers.Secrets)
	track(c, factory, corev1.Resource("configmaps"), informers.ConfigMaps)
	track(c, factory, corev1.Resource("persistentvolumeclaims"), persistentVolumeClaims)
	track(c, factory, corev1.Resource("replicationcontrollers"), informers.ReplicationControllers)
	track(c, factory, corev1.Resource("resourcequotas"), informers.ResourceQuotas)
	track(c, factory, appsv1.Resource("deployments"), informers.Deployments)
	track(c, factory, appsv1.Resource("replicasets"), informers.ReplicaSets)
	track(c, factory, appsv1.Resource("statefulsets"), informers.StatefulSets)
	track(c, factory, batchv1.Resource("jobs"), informers.Jobs)
	track(c, factory, batchv1.Resource("cronjobs"), informers.CronJobs)
	period := controller.OrDefault(opts.ResyncPeriod, DefaultResyncPeriod)
	c.AddLoop(controller.Every(period, func(context.Context) { c.enqueueAll("") }))
	return c, c.Err()
}

func persistentVolumeClaims(f *informers.SharedInformerFactory) (*cache.Informer[*corev1.PersistentVolumeClaim], error) {
	return informers.For[*corev1.PersistentVolumeClaim](f, corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"))
}

// track counts the objects of gr: the quotas of their namespace are
// recomputed when one is deleted or its usage changes (a pod finishing, a
// claim growing), not when one is created, which admission has charged.
func track[T cache.Object](c *Controller, factory *informers.SharedInformerFactory, gr schema.GroupResource, get func(*informers.SharedInformerFactory) (*cache.Informer[T], error)) {
	inf := controller.Informer(c.Controller, factory, get)
	if inf == nil {
		return
	}
	lister := inf.Lister()
	c.tracked = append(c.tracked, tracked{gr: gr, list: func(ns string) ([]runtime.Object, error) {
		objs, err := lister.Namespaced(ns).List(labels.Everything())
		if err != nil {
			return nil, err
		}
		out := make([]runtime.Object, len(objs))
		for i, o := range objs {
			out[i] = o
		}
		return out, nil
	}})
	controller.Watch(c, inf, controller.Handler[T]{
		Update: func(old, cur T) []string {
			if quota.Equal(quota.Usage(gr, old), quota.Usage(gr, cur)) {
				return nil
			}
			return c.quotaKeys(cur.GetNamespace())
		},
		Delete: func(obj T) []string { return c.quotaKeys(obj.GetNamespace()) },
	})
}

// quotaKeys are the keys of the quotas of namespace.
func (c *Controller) quotaKeys(namespace string) []string {
	qs, err := c.lister.Namespaced(namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	keys := make([]string, 0, len(qs))
	for _, q := range qs {
		keys = append(keys, controller.KeyOf(q)...)
	}
	return keys
}

// enqueueAll queues every quota (of namespace, or all when "").
func (c *Controller) enqueueAll(namespace string) {
	var qs []*corev1.ResourceQuota
	if namespace == "" {
		qs, _ = c.lister.List(labels.Everything())
	} else {
		qs, _ = c.lister.Namespaced(namespace).List(labels.Everything())
	}
	for _, q := range qs {
		for _, k := range controller.KeyOf(q) {
			c.Queue().Add(k)
		}
	}
}

// sync recomputes the status of the quota named by key.
func (c *Controller) sync(ctx context.Context, key string) error {
	q, ok, err := controller.Get(ctx, c.lister, key)
	if !ok {
		return err
	}
	used, err := c.usage(q)
	if err != nil {
		return err
	}
	if quota.Equal(q.Status.Hard, q.Spec.Hard) && quota.Equal(q.Status.Used, used) {
		return nil
	}
	cp := q.DeepCopy()
	cp.Status = corev1.ResourceQuotaStatus{Hard: q.Spec.Hard, Used: used}
	// The lister's resourceVersion guards the write: a charge admission made
	// since is never overwritten; the conflict requeues the quota.
	if _, err := c.quotas(q.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update status of resource quota %s: %w", key, err)
	}
	klog.FromContext(ctx).V(2).Info("Updated resource quota usage", "resourceQuota", klog.KObj(q), "used", quota.Format(used))
	return nil
}

// usage sums, for each resource of spec.hard the controller can count,
// what the namespace's objects selected by q use.
func (c *Controller) usage(q *corev1.ResourceQuota) (corev1.ResourceList, error) {
	names := quota.Names(q.Spec.Hard)
	total := corev1.ResourceList{}
	countable := map[corev1.ResourceName]bool{}
	for _, t := range c.tracked {
		if !relevant(t.gr, names) {
			continue
		}
		for _, n := range names {
			if computes(t.gr, n) {
				countable[n] = true
			}
		}
		objs, err := t.list(q.Namespace)
		if err != nil {
			return nil, fmt.Errorf("list %s of %s: %w", t.gr, q.Namespace, err)
		}
		for _, o := range objs {
			if quota.Matches(q, o) {
				total = quota.Add(total, quota.Usage(t.gr, o))
			}
		}
	}
	used := corev1.ResourceList{}
	for _, n := range names {
		if !countable[n] {
			// A resource no informer counts stays out of status.used:
			// admission refuses what would charge it ("status unknown").
			continue
		}
		if v, ok := total[n]; ok {
			used[n] = v
		} else {
			used[n] = *resource.NewQuantity(0, resource.DecimalSI)
		}
	}
	return used, nil
}

func relevant(gr schema.GroupResource, names []corev1.ResourceName) bool {
	for _, n := range names {
		if computes(gr, n) {
			return true
		}
	}
	return false
}

// computes says whether the objects of gr are what resource n counts.
func computes(gr schema.GroupResource, n corev1.ResourceName) bool {
	if n == quota.CountName(gr) {
		return true
	}
	s := string(n)
	switch gr {
	case corev1.Resource("pods"):
		switch n {
		case corev1.ResourcePods, corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
			corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
			corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage:
			return true
		}
		return strings.HasPrefix(s, "requests.") && (strings.HasPrefix(s, "requests."+corev1.ResourceHugePagesPrefix) || strings.Contains(s, "/"))
	case corev1.Resource("services"):
		return n == corev1.ResourceServices || n == corev1.ResourceServicesNodePorts || n == corev1.ResourceServicesLoadBalancers
	case corev1.Resource("persistentvolumeclaims"):
		return n == corev1.ResourcePersistentVolumeClaims || n == corev1.ResourceRequestsStorage || strings.Contains(s, ".storageclass.storage.k8s.io/")
	case corev1.Resource("secrets"):
		return n == corev1.ResourceSecrets
	case corev1.Resource("configmaps"):
		return n == corev1.ResourceConfigMaps
	case corev1.Resource("replicationcontrollers"):
		return n == corev1.ResourceReplicationControllers
	case corev1.Resource("resourcequotas"):
		return n == corev1.ResourceQuotas
	}
	return false
}
