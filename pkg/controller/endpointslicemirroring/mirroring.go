// Package endpointslicemirroring is the EndpointSlice mirroring
// controller: for every Endpoints object of a Service without a selector
// (Endpoints its owner writes by hand, which no controller computes), it
// keeps EndpointSlices that list the same addresses and ports, so that
// consumers of slices (the proxy, the DNS) see custom endpoints too. The
// slices are owned by the Endpoints and labelled as Kubernetes labels
// them; they go when the Endpoints or the Service goes, when the Service
// gains a selector, or when the Endpoints opts out with the skip-mirror
// label.
package endpointslicemirroring

import (
	"context"
	"maps"
	"strings"

	"k8s.io/klog/v2"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"

	"kubecore.io/kubecore/pkg/controller/sliceplan"
)

const (
	// Name is the controller's name in the controller-manager and its
	// queue, Kubernetes' name for it.
	Name = "endpointslicemirroring"
	// ManagedBy is the managed-by label of the slices this controller
	// writes, Kubernetes' value.
	ManagedBy = "endpointslicemirroring-controller.k8s.io"
	// DefaultMaxEndpointsPerSubset is how many addresses of one subset
	// are mirrored at most, Kubernetes' default: the rest are skipped,
	// with a warning Event on the Endpoints.
	DefaultMaxEndpointsPerSubset = 1000
	// LeaderAnnotation marks an Endpoints object used as a leader
	// election lock, which is not mirrored.
	LeaderAnnotation = "control-plane.alpha.kubernetes.io/leader"
)

// The reasons of the controller's Events on an Endpoints object.
const (
	ReasonInvalidIPAddress         = "InvalidIPAddress"
	ReasonTooManyAddressesToMirror = "TooManyAddressesToMirror"
)

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	sliceplan.Client
}

// Options tune a Controller.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// MaxEndpointsPerSubset is how many addresses of a subset are
	// mirrored at most (at most 1000, what a slice holds); 0 is
	// DefaultMaxEndpointsPerSubset.
	MaxEndpointsPerSubset int
}

// Controller mirrors custom Endpoints into EndpointSlices. Its keys are
// "namespace/name" of Endpoints objects, the same as their Services'.
type Controller struct {
	*controller.Controller
	endpoints cache.Lister[*corev1.Endpoints]
	services  cache.Lister[*corev1.Service]
	slices    cache.Lister[*discoveryv1.EndpointSlice]
	// writer writes the slices and holds, per key, those created but not
	// yet seen by the informer.
	writer       *sliceplan.Writer
	recorder     record.EventRecorder
	maxPerSubset int
}

// New returns a controller working through client, fed by the informers
// of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := newController(sliceplan.SlicesOf(client), opts)
	endpoints := controller.Informer(c.Controller, factory, informers.Endpoints)
	services := controller.Informer(c.Controller, factory, informers.Services)
	endpointSlices := controller.Informer(c.Controller, factory, informers.EndpointSlices)
	c.endpoints, c.services, c.slices = endpoints.Lister(), services.Lister(), endpointSlices.Lister()
	controller.Watch(c, endpoints, endpointsHandler())
	controller.Watch(c, services, servicesHandler())
	// Our slices changed or deleted by someone else are put back; their
	// creations are counted off as they appear.
	controller.Watch(c, endpointSlices, c.writer.Handler(ManagedBy))
	return c, c.Err()
}

// newController builds the controller without its listers, which the
// caller sets.
func newController(slices func(namespace string) sliceplan.SliceClient, opts Options) *Controller {
	c := &Controller{
		writer:       sliceplan.NewWriter(slices),
		recorder:     record.OrDiscard(opts.Recorder),
		maxPerSubset: min(controller.OrDefault(opts.MaxEndpointsPerSubset, DefaultMaxEndpointsPerSubset), DefaultMaxEndpointsPerSubset),
	}
	c.Controller = controller.New(Name, c.sync)
	return c
}

// endpointsHandler enqueues the Endpoints objects that are mirrored, or
// were before an update.
func endpointsHandler() controller.Handler[*corev1.Endpoints] {
	ifMirrored := func(ep *corev1.Endpoints) []string {
		if !mirrored(ep) {
			return nil
		}
		return controller.KeyOf(ep)
	}
	return controller.Handler[*corev1.Endpoints]{
		Add: ifMirrored,
		Update: func(old, ep *corev1.Endpoints) []string {
			if !mirrored(old) && !mirrored(ep) {
				return nil
			}
			return controller.KeyOf(ep)
		},
		Delete: ifMirrored,
	}
}

// servicesHandler enqueues the Endpoints of the Services without a
// selector as they come and go, and of those that gain or lose one.
func servicesHandler() controller.Handler[*corev1.Service] {
	ifSelectorless := func(svc *corev1.Service) []string {
		if svc.Spec.Selector != nil {
			return nil
		}
		return controller.KeyOf(svc)
	}
	return controller.Handler[*corev1.Service]{
		Add: ifSelectorless,
		Update: func(old, svc *corev1.Service) []string {
			if (old.Spec.Selector == nil) == (svc.Spec.Selector == nil) {
				return nil
			}
			return controller.KeyOf(svc)
		},
		Delete: ifSelectorless,
	}
}

// mirrored reports whether ep is mirrored when its Service has no
// selector: unless it opts out with the skip-mirror label or is a leader
// election lock.
func mirrored(ep *corev1.Endpoints) bool {
	if ep.Labels[discoveryv1.LabelSkipMirror] == "true" {
		return false
	}
	_, lock := ep.Annotations[LeaderAnnotation]
	return !lock
}

// sync mirrors the Endpoints key into its slices, or deletes them when the
// Endpoints is gone or not mirrored, or its Service is gone or has a
// selector.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	ep, ok, err := controller.Get(ctx, c.endpoints, key)
	if err != nil {
		return err
	}
	if ok && mirrored(ep) {
		svc, found, err := controller.Get(ctx, c.services, key)
		if err != nil {
			return err
		}
		ok = found && svc.Spec.Selector == nil
	} else {
		ok = false
	}
	if !ok {
		c.writer.Forget(key)
		existing, err := sliceplan.List(c.slices, namespace, name, ManagedBy)
		if err != nil || len(existing) == 0 {
			return err
		}
		klog.FromContext(ctx).V(2).Info("Deleting mirrored EndpointSlices", "endpoints", klog.KRef(namespace, name), "count", len(existing))
		return c.writer.Apply(ctx, namespace, name, sliceplan.Plan{Deletes: existing})
	}
	if !c.writer.Synced(key) {
		// The informer has not seen our last creations yet; their add
		// events queue key again.
		return nil
	}
	existing, err := sliceplan.List(c.slices, namespace, name, ManagedBy)
	if err != nil {
		return err
	}
	m := mirror(ep.Subsets, c.maxPerSubset)
	if m.invalid > 0 {
		c.recorder.Eventf(ep, corev1.EventTypeWarning, ReasonInvalidIPAddress,
			"Skipped %d invalid IP addresses when mirroring to EndpointSlices", m.invalid)
	}
	if m.skipped > m.invalid {
		c.recorder.Eventf(ep, corev1.EventTypeWarning, ReasonTooManyAddressesToMirror,
			"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped", c.maxPerSubset, m.skipped)
	}
	plan := planSlices(ep, m.groups, existing, c.maxPerSubset)
	if ep.DeletionTimestamp != nil {
		// Being deleted: no new slices.
		plan.Creates = nil
	}
	if plan.Empty() {
		return nil
	}
	klog.FromContext(ctx).V(4).Info("Mirroring Endpoints", "endpoints", klog.KObj(ep),
		"creates", len(plan.Creates), "updates", len(plan.Updates), "deletes", len(plan.Deletes))
	return c.writer.Apply(ctx, namespace, name, plan)
}

// planSlices is the writes that make the slices existing of ep list
// groups: one slice per group, owned by ep and carrying its labels and
// annotations (but the last-applied configuration and the last change
// trigger time) besides the service-name and managed-by labels.
func planSlices(ep *corev1.Endpoints, groups []*sliceplan.Group, existing []*discoveryv1.EndpointSlice, maxPerSubset int) sliceplan.Plan {
	lbls := maps.Clone(ep.Labels)
	if lbls == nil {
		lbls = map[string]string{}
	}
	lbls[discoveryv1.LabelServiceName] = ep.Name
	lbls[discoveryv1.LabelManagedBy] = ManagedBy
	annotations := maps.Clone(ep.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	delete(annotations, corev1.LastAppliedConfigAnnotation)
	delete(annotations, corev1.EndpointsLastChangeTriggerTime)
	meta := sliceplan.Meta{
		Namespace:    ep.Namespace,
		GenerateName: ep.Name + "-",
		Labels:       lbls,
		Annotations:  annotations,
		Owner:        *metav1.NewControllerRef(ep, corev1.SchemeGroupVersion.WithKind("Endpoints")),
	}
	return sliceplan.Compute(meta, groups, existing, sliceplan.Options{MaxEndpoints: maxPerSubset, ID: endpointID})
}
