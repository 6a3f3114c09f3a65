package replicaset

import (
	"context"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// ReplicationControllerName is the ReplicationController controller's
// name in the controller-manager and its queue.
const ReplicationControllerName = "replicationcontroller"

// rcKind is the kind of the owner references the ReplicationController
// controller sets.
var rcKind = corev1.SchemeGroupVersion.WithKind("ReplicationController")

// ReplicationControllerClient reads and writes the replication controllers
// of one namespace; the typed client satisfies it.
type ReplicationControllerClient interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ReplicationController, error)
	UpdateStatus(ctx context.Context, rc *corev1.ReplicationController, opts metav1.UpdateOptions) (*corev1.ReplicationController, error)
}

// NewReplicationController returns the ReplicationController controller:
// the ReplicaSet sync over replication controllers seen as ReplicaSets
// whose selector is their label map, owning their pods as
// ReplicationControllers.
func NewReplicationController(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	rcClient := func(ns string) ReplicationControllerClient { return client.CoreV1().ReplicationControllers(ns) }
	c := newRCController(rcClient, podcontrol.PatchPod(client.CoreV1()),
		podcontrol.PodControl{Pods: func(ns string) podcontrol.PodWriter { return client.CoreV1().Pods(ns) }, Recorder: opts.Recorder},
		cache.Lister[*corev1.ReplicationController]{}, cache.Lister[*corev1.Pod]{}, opts)
	rcInformer := controller.Informer(c.Controller, factory, informers.ReplicationControllers)
	podInformer := controller.Informer(c.Controller, factory, informers.Pods)
	rcLister := rcInformer.Lister()
	c.get = rcGetter(rcLister)
	c.podLister = podInformer.Lister()
	controller.Watch(c, rcInformer, controller.ForgetOnDelete[*corev1.ReplicationController](c.expectations.DeleteExpectations))
	controller.Watch(c, podInformer, controller.Owned[*corev1.ReplicationController, *corev1.Pod]{
		Kind:         rcKind.GroupKind(),
		Owners:       rcLister,
		Expectations: c.expectations,
		Adopters: func(pod *corev1.Pod) []string {
			rcs, _ := rcLister.Namespaced(pod.Namespace).List(labels.Everything())
			return controller.SelectorKeys(rcs, rcSelector, pod)
		},
		RequeueAfter: func(rc *corev1.ReplicationController, old, cur *corev1.Pod) time.Duration {
			return podcontrol.AvailableAfter(rc.Spec.MinReadySeconds, old, cur)
		},
	}.Handler(c))
	return c, c.Err()
}

// newRCController builds the ReplicationController controller over its
// clients and listers.
func newRCController(rcs func(string) ReplicationControllerClient, patchPod controller.PatchFunc, podControl podcontrol.Interface,
	rcLister cache.Lister[*corev1.ReplicationController], podLister cache.Lister[*corev1.Pod], opts Options) *Controller {
	c := newWorkloadController(ReplicationControllerName, rcKind,
		func(ns string) ReplicaSetClient { return rcAsReplicaSets{rcs(ns)} }, patchPod, podControl, podLister, opts)
	c.get = rcGetter(rcLister)
	return c
}

func rcGetter(l cache.Lister[*corev1.ReplicationController]) func(context.Context, string) (*appsv1.ReplicaSet, bool, error) {
	return func(ctx context.Context, key string) (*appsv1.ReplicaSet, bool, error) {
		rc, ok, err := controller.Get(ctx, l, key)
		if !ok {
			return nil, false, err
		}
		return replicaSetOf(rc), true, err
	}
}

// rcSelector is a replication controller's selector as a label selector;
// nil (matching nothing) when it has none.
func rcSelector(rc *corev1.ReplicationController) *metav1.LabelSelector {
	if len(rc.Spec.Selector) == 0 {
		return nil
	}
	return &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
}

// rcAsReplicaSets is the ReplicaSetClient of replication controllers.
type rcAsReplicaSets struct{ rcs ReplicationControllerClient }

var _ ReplicaSetClient = rcAsReplicaSets{}

func (a rcAsReplicaSets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.ReplicaSet, error) {
	rc, err := a.rcs.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return replicaSetOf(rc), nil
}

func (a rcAsReplicaSets) UpdateStatus(ctx context.Context, rs *appsv1.ReplicaSet, opts metav1.UpdateOptions) (*appsv1.ReplicaSet, error) {
	rc, err := a.rcs.UpdateStatus(ctx, replicationControllerOf(rs), opts)
	if err != nil {
		return nil, err
	}
	return replicaSetOf(rc), nil
}

// replicaSetOf is rc as the ReplicaSet the sync works on. Its TypeMeta
// stays the replication controller's, so that Events name it.
func replicaSetOf(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: rcKind.GroupVersion().String(), Kind: rcKind.Kind},
		ObjectMeta: *rc.ObjectMeta.DeepCopy(),
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        rc.Spec.Replicas,
			MinReadySeconds: rc.Spec.MinReadySeconds,
			Selector:        rcSelector(rc),
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas:             rc.Status.Replicas,
			FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas:        rc.Status.ReadyReplicas,
			AvailableReplicas:    rc.Status.AvailableReplicas,
			ObservedGeneration:   rc.Status.ObservedGeneration,
		},
	}
	if rs.Spec.Selector == nil {
		// Validation requires a selector; this one selects nothing.
		rs.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubecore.io/no-selector", Operator: metav1.LabelSelectorOpExists}}}
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template.DeepCopy()
	}
	for _, cond := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetConditionType(cond.Type), Status: cond.Status,
			LastTransitionTime: cond.LastTransitionTime, Reason: cond.Reason, Message: cond.Message,
		})
	}
	return rs
}

// replicationControllerOf is the replication controller a ReplicaSet of
// replicaSetOf stands for, with its status.
func replicationControllerOf(rs *appsv1.ReplicaSet) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{
		ObjectMeta: *rs.ObjectMeta.DeepCopy(),
		Spec: corev1.ReplicationControllerSpec{
			Replicas:        rs.Spec.Replicas,
			MinReadySeconds: rs.Spec.MinReadySeconds,
			Template:        rs.Spec.Template.DeepCopy(),
		},
		Status: corev1.ReplicationControllerStatus{
			Replicas:             rs.Status.Replicas,
			FullyLabeledReplicas: rs.Status.FullyLabeledReplicas,
			ReadyReplicas:        rs.Status.ReadyReplicas,
			AvailableReplicas:    rs.Status.AvailableReplicas,
			ObservedGeneration:   rs.Status.ObservedGeneration,
		},
	}
	if rs.Spec.Selector != nil {
		rc.Spec.Selector = rs.Spec.Selector.MatchLabels
	}
	for _, cond := range rs.Status.Conditions {
		rc.Status.Conditions = append(rc.Status.Conditions, corev1.ReplicationControllerCondition{
			Type: corev1.ReplicationControllerConditionType(cond.Type), Status: cond.Status,
			LastTransitionTime: cond.LastTransitionTime, Reason: cond.Reason, Message: cond.Message,
		})
	}
	return rc
}
