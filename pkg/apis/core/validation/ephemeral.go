package validation

import (
	"fmt"
	"reflect"

	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ephemeralForbidden is the message of a field ephemeral containers may
// not set.
const ephemeralForbidden = "cannot be set for an Ephemeral Container"

// ValidatePodEphemeralContainersUpdate checks an update of
// pods/ephemeralcontainers: ephemeral containers may only be added, each
// a valid container without ports, probes, lifecycle or resources, whose
// targetContainerName (if any) is a container of the pod.
func ValidatePodEphemeralContainersUpdate(pod, old *corev1.Pod) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	ecPath := specPath.Child("ephemeralContainers")
	errs = append(errs, validateEphemeralContainers(&pod.Spec, ecPath)...)

	current := make(map[string]*corev1.EphemeralContainer, len(pod.Spec.EphemeralContainers))
	index := make(map[string]int, len(pod.Spec.EphemeralContainers))
	for i := range pod.Spec.EphemeralContainers {
		ec := &pod.Spec.EphemeralContainers[i]
		current[ec.Name], index[ec.Name] = ec, i
	}
	for i := range old.Spec.EphemeralContainers {
		prev := &old.Spec.EphemeralContainers[i]
		ec, ok := current[prev.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(ecPath, fmt.Sprintf("existing ephemeral containers %q may not be removed", prev.Name)))
		case !reflect.DeepEqual(prev, ec):
			errs = append(errs, field.Forbidden(ecPath.Index(index[prev.Name]), fmt.Sprintf("existing ephemeral containers %q may not be changed", prev.Name)))
		}
	}
	return errs
}

// validateEphemeralContainers checks the ephemeral containers of spec.
func validateEphemeralContainers(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	targets := map[string]bool{}
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			names[c.Name], targets[c.Name] = true, true
		}
	}
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
	}
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		ep := p.Index(i)
		c := corev1.Container{
			Name: ec.Name, Image: ec.Image, Command: ec.Command, Args: ec.Args, WorkingDir: ec.WorkingDir,
			EnvFrom: ec.EnvFrom, Env: ec.Env, VolumeMounts: ec.VolumeMounts, ImagePullPolicy: ec.ImagePullPolicy,
		}
		errs = append(errs, validateContainer(&c, names, volumes, ep)...)
		for _, f := range []struct {
			set  bool
			name string
		}{
			{len(ec.Ports) > 0, "ports"},
			{ec.LivenessProbe != nil, "livenessProbe"},
			{ec.ReadinessProbe != nil, "readinessProbe"},
			{ec.StartupProbe != nil, "startupProbe"},
			{ec.Lifecycle != nil, "lifecycle"},
			{len(ec.Resources.Limits) > 0 || len(ec.Resources.Requests) > 0, "resources"},
			{len(ec.ResizePolicy) > 0, "resizePolicy"},
			{ec.RestartPolicy != nil, "restartPolicy"},
		} {
			if f.set {
				errs = append(errs, field.Forbidden(ep.Child(f.name), ephemeralForbidden))
			}
		}
		for j, m := range ec.VolumeMounts {
			if m.SubPath != "" {
				errs = append(errs, field.Forbidden(ep.Child("volumeMounts").Index(j).Child("subPath"), ephemeralForbidden))
			}
		}
		if ec.TargetContainerName != "" && !targets[ec.TargetContainerName] {
			errs = append(errs, field.NotFound(ep.Child("targetContainerName"), ec.TargetContainerName))
		}
	}
	return errs
}
