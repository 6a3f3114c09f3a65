// Package pod serves pods and their status, binding and eviction
// subresources, with graceful deletion of pods bound to a node.
package pod

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Strategy is the pod strategy: status only through /status, generation
// bumped on spec changes, graceful deletion of bound pods.
type Strategy struct {
	*strategy.Strategy[*corev1.Pod]
}

var _ rest.GracefulDeleteStrategy = Strategy{}

// NewStrategy returns the pod strategy.
func NewStrategy() Strategy {
	return Strategy{&strategy.Strategy[*corev1.Pod]{
		Namespaced:        true,
		StatusSubresource: true,
		Generation:        true,
		PrepareCreate: func(_ context.Context, p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: helper.PodQOSClass(&p.Spec)}
			helper.DefaultServiceAccount(p)
			defaultTolerations(p)
		},
		// As Kubernetes' DefaultTolerationSeconds admission, on updates
		// too: an update that replaces the tolerations keeps the default
		// ones (otherwise it would remove them, which is refused).
		PrepareUpdate: func(_ context.Context, p, _ *corev1.Pod) {
			defaultTolerations(p)
		},
		ValidateFunc:       validation.ValidatePod,
		ValidateUpdateFunc: validation.ValidatePodUpdate,
	}}
}

// CheckGracefulDelete implements rest.GracefulDeleteStrategy: a pod on a
// node gets the requested grace period or its own
// terminationGracePeriodSeconds; an unbound or finished pod goes at once.
func (Strategy) CheckGracefulDelete(_ context.Context, obj runtime.Object, opts *metav1.DeleteOptions) bool {
	pod, ok := obj.(*corev1.Pod)
	if !ok || opts == nil {
		return false
	}
	var period int64
	switch {
	case opts.GracePeriodSeconds != nil:
		period = *opts.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	opts.GracePeriodSeconds = &period
	return true
}

// NewStatusStrategy returns the strategy of pods/status; it also keeps
// the stored owner references, which a kubelet's status write must never
// change (the garbage collector relies on them).
func NewStatusStrategy() *strategy.StatusStrategy[*corev1.Pod] {
	return &strategy.StatusStrategy[*corev1.Pod]{
		Namespaced:     true,
		ValidateStatus: validation.ValidatePodStatusUpdate,
		PrepareStatus: func(_ context.Context, pod, old *corev1.Pod) {
			pod.OwnerReferences = old.OwnerReferences
		},
	}
}

// GetAttrs returns a pod's labels and selectable fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod: %T", obj)
	}
	return labels.Set(pod.Labels), PodToSelectableFields(pod), nil
}

// PodToSelectableFields returns the fields a pod field selector can use.
func PodToSelectableFields(pod *corev1.Pod) fields.Set {
	podIP := ""
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	}
	return fields.Set{
		"metadata.name":            pod.Name,
		"metadata.namespace":       pod.Namespace,
		"spec.nodeName":            pod.Spec.NodeName,
		"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
		"spec.schedulerName":       pod.Spec.SchedulerName,
		"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
		"spec.hostNetwork":         fmt.Sprint(pod.Spec.HostNetwork),
		"status.phase":             string(pod.Status.Phase),
		"status.podIP":             podIP,
		"status.nominatedNodeName": pod.Status.NominatedNodeName,
	}
}

// DefaultTolerationSeconds is how long pods stay on a node that is not
// ready or unreachable unless they say otherwise.
const DefaultTolerationSeconds = 300

// defaultTolerations is the DefaultTolerationSeconds admission: a pod
// that tolerates neither the not-ready nor the unreachable NoExecute taint
// is given a toleration of each for DefaultTolerationSeconds.
func defaultTolerations(pod *corev1.Pod) {
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		tolerated := false
		for _, t := range pod.Spec.Tolerations {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				tolerated = true
				break
			}
		}
		if !tolerated {
			seconds := int64(DefaultTolerationSeconds)
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds,
			})
		}
	}
}
