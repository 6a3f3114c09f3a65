// Package priority is the Priority admission plugin: a new pod's priority
// and preemption policy come from its PriorityClass.
package priority

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
)

// PriorityClassGetter reads the PriorityClasses that pod priority
// admission resolves spec.priorityClassName against.
type PriorityClassGetter interface {
	// GetPriorityClass returns the named class, or an error for which
	// apierrors.IsNotFound holds when there is none.
	GetPriorityClass(ctx context.Context, name string) (*schedulingv1.PriorityClass, error)
	// ListPriorityClasses returns every class.
	ListPriorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error)
}

// New returns Priority admission, a plugin of the mutating phase on pod
// creates, resolving classes through classes.
func New(classes PriorityClassGetter) admission.MutationInterface {
	return admission.PodCreateMutator(func(ctx context.Context, pod *corev1.Pod) error {
		return admitPriority(ctx, classes, pod)
	})
}

// admitPriority is the Priority admission of a new pod: it sets
// spec.priority and spec.preemptionPolicy from the PriorityClass the pod
// names, or from the global default class (the one of lowest value if
// several claim it; priority 0 and PreemptLowerPriority when none does).
// A pod naming no existing class, or setting either field to something
// else than its class gives, is Forbidden.
func admitPriority(ctx context.Context, classes PriorityClassGetter, pod *corev1.Pod) error {
	forbidden := func(format string, args ...any) error {
		return apierrors.NewForbidden(corev1.Resource("pods"), pod.Name, fmt.Errorf(format, args...))
	}
	var (
		name     = pod.Spec.PriorityClassName
		priority int32
		policy   *corev1.PreemptionPolicy
	)
	if name == "" {
		all, err := classes.ListPriorityClasses(ctx)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("error occurred while retrieving default priority class: %w", err))
		}
		var def *schedulingv1.PriorityClass
		for _, pc := range all {
			if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
				def = pc
			}
		}
		if def != nil {
			name, priority, policy = def.Name, def.Value, def.PreemptionPolicy
		} else {
			lower := corev1.PreemptLowerPriority
			policy = &lower
		}
	} else {
		pc, err := classes.GetPriorityClass(ctx, name)
		switch {
		case apierrors.IsNotFound(err):
			return forbidden("no PriorityClass with name %s was found", name)
		case err != nil:
			return apierrors.NewInternalError(fmt.Errorf("failed to resolve PriorityClass with name %s: %w", name, err))
		}
		priority, policy = pc.Value, pc.PreemptionPolicy
	}
	if p := pod.Spec.Priority; p != nil && *p != priority {
		return forbidden("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *p, priority)
	}
	if policy != nil {
		if p := pod.Spec.PreemptionPolicy; p != nil && *p != *policy {
			return forbidden("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *p, *policy)
		}
		v := *policy
		pod.Spec.PreemptionPolicy = &v
	}
	pod.Spec.PriorityClassName = name
	pod.Spec.Priority = &priority
	return nil
}
