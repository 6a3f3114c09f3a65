package validation

import (
	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/helper"
)

// mirrorPodAnnotation marks the API copy of a static pod.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// ValidatePodResize checks an update of pods/resize, with Kubernetes'
// rules and messages: only the cpu and memory requests and limits of app
// and sidecar containers change, none is removed, the QoS class stays,
// containers keep their names and order; static and Windows pods, and pods
// whose node reports no container resources (a kubelet that cannot
// resize), are not resized.
func ValidatePodResize(pod, old *corev1.Pod) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	errs = append(errs, ValidatePodSpec(&pod.Spec, specPath)...)
	if _, ok := old.Annotations[mirrorPodAnnotation]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods cannot be resized")}
	}
	if old.Spec.OS != nil && old.Spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "windows pods cannot be resized")}
	}
	oldQOS := old.Status.QOSClass
	if oldQOS == "" {
		oldQOS = helper.PodQOSClass(&old.Spec)
	}
	if helper.PodQOSClass(&pod.Spec) != oldQOS {
		errs = append(errs, field.Invalid(specPath, pod.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	if !nodeSupportsResize(old) {
		errs = append(errs, field.Forbidden(specPath, "Pod running on node without support for resize"))
	}
	if order := resizeContainerOrder(pod, old, specPath); len(order) > 0 {
		return append(errs, order...)
	}
	for i := range old.Spec.Containers {
		errs = append(errs, noResourceRemoved(&pod.Spec.Containers[i].Resources, &old.Spec.Containers[i].Resources,
			specPath.Child("containers").Index(i).Child("resources"))...)
	}
	for i := range old.Spec.InitContainers {
		if !isSidecar(&old.Spec.InitContainers[i]) {
			continue
		}
		errs = append(errs, noResourceRemoved(&pod.Spec.InitContainers[i].Resources, &old.Spec.InitContainers[i].Resources,
			specPath.Child("initContainers").Index(i).Child("resources"))...)
	}

	// The new spec with the cpu and memory of every resizable container
	// taken back from the old one must be the old spec.
	masked := pod.Spec.DeepCopy()
	for i := range masked.Containers {
		keepCPUMemory(&masked.Containers[i], &old.Spec.Containers[i])
		if !sameFields(masked.Containers[i], old.Spec.Containers[i]) {
			errs = append(errs, field.Forbidden(specPath, "only cpu and memory resources are mutable"))
		}
	}
	for i := range masked.InitContainers {
		c, prev := &masked.InitContainers[i], &old.Spec.InitContainers[i]
		changed := !sameFields(*c, *prev)
		if !isSidecar(prev) {
			if changed {
				errs = append(errs, field.Forbidden(specPath, "resources for non-sidecar init containers are immutable"))
			}
			continue
		}
		keepCPUMemory(c, prev)
		if !sameFields(*c, *prev) {
			errs = append(errs, field.Forbidden(specPath.Child("initContainers").Index(i), "only cpu and memory resources for init or sidecar containers are mutable"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if !sameFields(*masked, old.Spec) {
		errs = append(errs, field.Forbidden(specPath, "only cpu and memory resources are mutable"))
	}
	return errs
}

// sameFields tells whether a and b encode to the same JSON (quantities
// in canonical form, empty and absent lists alike).
func sameFields(a, b any) bool { return specDiff(a, b) == "" }

func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// nodeSupportsResize tells whether the pod's kubelet can resize it: it
// reports the resources of its running containers. A pod with none
// running cannot tell, and is let through.
func nodeSupportsResize(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			return cs.Resources != nil
		}
	}
	return true
}

// resizeContainerOrder refuses added, removed, renamed or reordered
// containers.
func resizeContainerOrder(pod, old *corev1.Pod, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		name     string
		new, old []corev1.Container
	}{
		{"containers", pod.Spec.Containers, old.Spec.Containers},
		{"initContainers", pod.Spec.InitContainers, old.Spec.InitContainers},
	} {
		p := specPath.Child(l.name)
		if len(l.new) != len(l.old) {
			errs = append(errs, field.Forbidden(p, l.name+" may not be added or removed on resize"))
			continue
		}
		for i := range l.old {
			if l.new[i].Name != l.old[i].Name {
				errs = append(errs, field.Forbidden(p.Index(i).Child("name"), l.name+" may not be renamed or reordered on resize"))
			}
		}
	}
	return errs
}

// noResourceRemoved refuses a resize that drops a request or a limit.
func noResourceRemoved(r, old *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if removed(r.Requests, old.Requests) {
		errs = append(errs, field.Forbidden(p.Child("requests"), "resource requests cannot be removed"))
	}
	if removed(r.Limits, old.Limits) {
		errs = append(errs, field.Forbidden(p.Child("limits"), "resource limits cannot be removed"))
	}
	return errs
}

func removed(l, old corev1.ResourceList) bool {
	for name := range old {
		if _, ok := l[name]; !ok {
			return true
		}
	}
	return false
}

// keepCPUMemory replaces c's cpu and memory requests and limits with
// those of old (dropping them where old has none).
func keepCPUMemory(c, old *corev1.Container) {
	c.Resources.Requests = withCPUMemoryOf(c.Resources.Requests, old.Resources.Requests)
	c.Resources.Limits = withCPUMemoryOf(c.Resources.Limits, old.Resources.Limits)
}

func withCPUMemoryOf(l, old corev1.ResourceList) corev1.ResourceList {
	if l == nil && old == nil {
		return nil
	}
	out := corev1.ResourceList{}
	for name, q := range l {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			out[name] = q
		}
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := old[name]; ok {
			out[name] = q
		}
	}
	if len(out) == 0 && old == nil {
		return nil
	}
	return out
}
