// Package runtimeclass is the RuntimeClass admission plugin: a new pod
// that names a RuntimeClass gets the class's overhead and scheduling
// constraints, and is refused when the class does not exist.
package runtimeclass

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "kubecore.io/api/core/v1"
	nodev1 "kubecore.io/api/node/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
)

// Getter reads the RuntimeClasses pods name.
type Getter interface {
	// GetRuntimeClass returns the named class, or an error for which
	// apierrors.IsNotFound holds when there is none.
	GetRuntimeClass(ctx context.Context, name string) (*nodev1.RuntimeClass, error)
}

// New returns RuntimeClass admission, a plugin of the mutating phase on
// pod creates, reading classes through classes.
func New(classes Getter) admission.MutationInterface {
	return admission.PodCreateMutator(func(ctx context.Context, pod *corev1.Pod) error {
		return admit(ctx, classes, pod)
	})
}

// admit applies the pod's RuntimeClass: its overhead becomes the pod's
// (a pod stating another overhead, or one without a class overhead, is
// refused), its node selector is added to the pod's (a conflicting key is
// refused) and its tolerations to the pod's.
func admit(ctx context.Context, classes Getter, pod *corev1.Pod) error {
	forbidden := func(err error) error {
		return apierrors.NewForbidden(corev1.Resource("pods"), pod.Name, err)
	}
	if pod.Spec.RuntimeClassName == nil || *pod.Spec.RuntimeClassName == "" {
		if pod.Spec.Overhead != nil {
			return forbidden(errors.New("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
		}
		return nil
	}
	name := *pod.Spec.RuntimeClassName
	rc, err := classes.GetRuntimeClass(ctx, name)
	switch {
	case apierrors.IsNotFound(err):
		return forbidden(fmt.Errorf("pod rejected: RuntimeClass %q not found", name))
	case err != nil:
		return apierrors.NewInternalError(fmt.Errorf("read RuntimeClass %q: %w", name, err))
	}
	if rc.Overhead != nil {
		switch {
		case pod.Spec.Overhead == nil:
			pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
		case !sameResources(pod.Spec.Overhead, rc.Overhead.PodFixed):
			return forbidden(errors.New("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
	} else if pod.Spec.Overhead != nil {
		return forbidden(errors.New("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	if s := rc.Scheduling; s != nil {
		for _, k := range slices.Sorted(maps.Keys(s.NodeSelector)) {
			v := s.NodeSelector[k]
			if have, ok := pod.Spec.NodeSelector[k]; ok && have != v {
				return forbidden(fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, have))
			}
			if pod.Spec.NodeSelector == nil {
				pod.Spec.NodeSelector = map[string]string{}
			}
			pod.Spec.NodeSelector[k] = v
		}
		for _, t := range s.Tolerations {
			if !slices.ContainsFunc(pod.Spec.Tolerations, func(have corev1.Toleration) bool { return equalToleration(have, t) }) {
				pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
			}
		}
	}
	return nil
}

// sameResources says a and b name the same resources in equal quantities.
func sameResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		if other, ok := b[k]; !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

func equalToleration(a, b corev1.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		((a.TolerationSeconds == nil && b.TolerationSeconds == nil) ||
			(a.TolerationSeconds != nil && b.TolerationSeconds != nil && *a.TolerationSeconds == *b.TolerationSeconds))
}
