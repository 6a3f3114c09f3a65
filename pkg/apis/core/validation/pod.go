// Package validation checks core/v1 objects as the Kubernetes API server
// does, returning field errors with Kubernetes' paths and messages.
package validation

import (
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodName checks a pod name (a DNS subdomain).
var ValidatePodName = apivalidation.NameIsDNSSubdomain

// podUpdatableFields lists what a pod update may change, as the message of
// a refused update says.
var podUpdatableFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// ValidatePod checks a new pod.
func ValidatePod(pod *corev1.Pod) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&pod.ObjectMeta, true, ValidatePodName, field.NewPath("metadata"))
	if len(pod.Spec.EphemeralContainers) > 0 {
		// Added later, through pods/ephemeralcontainers only.
		errs = append(errs, field.Forbidden(field.NewPath("spec", "ephemeralContainers"), "cannot be set on create"))
	}
	return append(errs, ValidatePodSpec(&pod.Spec, field.NewPath("spec"))...)
}

// ValidatePodTemplateSpec checks the pod template of a workload.
func ValidatePodTemplateSpec(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	errs := apivalidation.ValidateLabels(t.Labels, fldPath.Child("metadata", "labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(t.Annotations, fldPath.Child("metadata", "annotations"))...)
	return append(errs, ValidatePodSpec(&t.Spec, fldPath.Child("spec"))...)
}

// ValidatePodSpec checks a pod spec wherever it appears.
func ValidatePodSpec(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	volumes := map[string]bool{}
	for i, v := range spec.Volumes {
		p := fldPath.Child("volumes").Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case volumes[v.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), v.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), v.Name, msg))
			}
		}
		volumes[v.Name] = true
	}
	names := map[string]bool{}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(fldPath.Child("containers"), ""))
	}
	for i := range spec.InitContainers {
		errs = append(errs, validateContainer(&spec.InitContainers[i], names, volumes, fldPath.Child("initContainers").Index(i))...)
	}
	for i := range spec.Containers {
		errs = append(errs, validateContainer(&spec.Containers[i], names, volumes, fldPath.Child("containers").Index(i))...)
	}
	errs = append(errs, validateEnum(spec.RestartPolicy, fldPath.Child("restartPolicy"),
		[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})...)
	errs = append(errs, validateEnum(spec.DNSPolicy, fldPath.Child("dnsPolicy"),
		[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})...)
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*g, fldPath.Child("terminationGracePeriodSeconds"))...)
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > 2147483647) {
		errs = append(errs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, 2147483647)))
	}
	if spec.NodeName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(spec.NodeName) {
			errs = append(errs, field.Invalid(fldPath.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if spec.ServiceAccountName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(spec.ServiceAccountName) {
			errs = append(errs, field.Invalid(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	errs = append(errs, apivalidation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	for i, t := range spec.Tolerations {
		errs = append(errs, validateToleration(t, fldPath.Child("tolerations").Index(i))...)
	}
	errs = append(errs, validateAffinity(spec.Affinity, fldPath.Child("affinity"))...)
	errs = append(errs, validateSysctls(spec.SecurityContext, fldPath.Child("securityContext", "sysctls"))...)
	if spec.Hostname != "" {
		for _, msg := range validation.IsDNS1123Label(spec.Hostname) {
			errs = append(errs, field.Invalid(fldPath.Child("hostname"), spec.Hostname, msg))
		}
	}
	if spec.Subdomain != "" {
		for _, msg := range validation.IsDNS1123Label(spec.Subdomain) {
			errs = append(errs, field.Invalid(fldPath.Child("subdomain"), spec.Subdomain, msg))
		}
	}
	return errs
}

// validateEnum reports an empty value as required and an unknown one as
// not supported.
func validateEnum[T ~string](v T, fldPath *field.Path, valid []T) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	for _, ok := range valid {
		if v == ok {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(fldPath, v, valid)}
}

func validateContainer(c *corev1.Container, names, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case c.Name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case names[c.Name]:
		errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
	default:
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
		}
	}
	names[c.Name] = true
	if strings.TrimSpace(c.Image) == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	} else if c.Image != strings.TrimSpace(c.Image) {
		errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	errs = append(errs, validatePorts(c.Ports, p.Child("ports"))...)
	for i, e := range c.Env {
		ep := p.Child("env").Index(i)
		if e.Name == "" {
			errs = append(errs, field.Required(ep.Child("name"), ""))
		}
		if e.Value != "" && e.ValueFrom != nil {
			errs = append(errs, field.Invalid(ep.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
		}
	}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(mp.Child("name"), ""))
		} else if !volumes[m.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(mp.Child("mountPath"), ""))
		}
		errs = append(errs, validateSubPath(m.SubPath, mp.Child("subPath"))...)
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(mp.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, validateSubPath(m.SubPathExpr, mp.Child("subPathExpr"))...)
		}
	}
	errs = append(errs, ValidateResourceRequirements(&c.Resources, p.Child("resources"))...)
	for _, pr := range []struct {
		probe *corev1.Probe
		name  string
	}{{c.LivenessProbe, "livenessProbe"}, {c.ReadinessProbe, "readinessProbe"}, {c.StartupProbe, "startupProbe"}} {
		errs = append(errs, validateProbe(pr.probe, p.Child(pr.name))...)
	}
	if c.ImagePullPolicy != "" {
		errs = append(errs, validateEnum(c.ImagePullPolicy, p.Child("imagePullPolicy"),
			[]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever})...)
	}
	return errs
}

func validateProbe(pr *corev1.Probe, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	for _, f := range []struct {
		v    int32
		name string
	}{{pr.InitialDelaySeconds, "initialDelaySeconds"}, {pr.TimeoutSeconds, "timeoutSeconds"}, {pr.PeriodSeconds, "periodSeconds"}, {pr.SuccessThreshold, "successThreshold"}, {pr.FailureThreshold, "failureThreshold"}} {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(f.v), p.Child(f.name))...)
	}
	n := 0
	for _, set := range []bool{pr.Exec != nil, pr.HTTPGet != nil, pr.TCPSocket != nil, pr.GRPC != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(p, "must specify a handler type"))
	case n > 1:
		errs = append(errs, field.Forbidden(p, "may not specify more than 1 handler type"))
	}
	return errs
}

func validatePorts(ports []corev1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		pp := p.Index(i)
		if port.Name != "" {
			for _, msg := range validation.IsValidPortName(port.Name) {
				errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
			}
			if names[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(pp.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(pp.Child("hostPort"), port.HostPort, msg))
			}
		}
		errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
	}
	return errs
}

func validateProtocol(proto corev1.Protocol, p *field.Path) field.ErrorList {
	return validateEnum(proto, p, []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP})
}

// ValidateResourceRequirements checks that quantities are not negative and
// that every request is at most its limit.
func ValidateResourceRequirements(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	zero := resource.Quantity{}
	for name, q := range r.Limits {
		if q.Cmp(zero) < 0 {
			errs = append(errs, field.Invalid(p.Child("limits").Key(string(name)), q.String(), "must be greater than or equal to 0"))
		}
	}
	for name, q := range r.Requests {
		rp := p.Child("requests").Key(string(name))
		if q.Cmp(zero) < 0 {
			errs = append(errs, field.Invalid(rp, q.String(), "must be greater than or equal to 0"))
		}
		if limit, ok := r.Limits[name]; ok && q.Cmp(limit) > 0 {
			errs = append(errs, field.Invalid(rp, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return errs
}

// ValidateToleration checks one toleration, as pods and RuntimeClasses
// carry them.
func ValidateToleration(t corev1.Toleration, p *field.Path) field.ErrorList {
	return validateToleration(t, p)
}

func validateToleration(t corev1.Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Key != "" {
		errs = append(errs, apivalidation.ValidateLabelName(t.Key, p.Child("key"))...)
	}
	switch t.Operator {
	case corev1.TolerationOpEqual, "":
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
		}
	case corev1.TolerationOpExists:
		if t.Value != "" {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
	}
	if t.Key == "" && t.Operator != corev1.TolerationOpExists {
		errs = append(errs, field.Invalid(p.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
	}
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
	}
	if t.Effect != "" {
		errs = append(errs, validateEnum(t.Effect, p.Child("effect"), []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute})...)
	}
	return errs
}

// ValidatePodUpdate checks a pod update: the spec is immutable except for
// container images, a shorter activeDeadlineSeconds, added tolerations and
// a negative grace period raised to 1.
func ValidatePodUpdate(pod, old *corev1.Pod) field.ErrorList {
	specPath := field.NewPath("spec")
	errs := apivalidation.ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePodSpec(&pod.Spec, specPath)...)
	if len(errs) > 0 {
		return errs
	}
	if n, o := pod.Spec.ActiveDeadlineSeconds, old.Spec.ActiveDeadlineSeconds; o != nil {
		p := specPath.Child("activeDeadlineSeconds")
		switch {
		case n == nil:
			errs = append(errs, field.Invalid(p, n, "must not update from a positive integer to nil value"))
		case *n > *o:
			errs = append(errs, field.Invalid(p, *n, "must be less than or equal to previous value"))
		}
	}
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return append(errs, field.Forbidden(specPath, "pod updates may not add or remove containers"))
	}
	// Compare the spec with the updatable fields taken from the old one.
	cmp := pod.Spec.DeepCopy()
	for i := range cmp.Containers {
		cmp.Containers[i].Image = old.Spec.Containers[i].Image
	}
	for i := range cmp.InitContainers {
		cmp.InitContainers[i].Image = old.Spec.InitContainers[i].Image
	}
	cmp.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	if g, og := pod.Spec.TerminationGracePeriodSeconds, old.Spec.TerminationGracePeriodSeconds; g != nil && og != nil && *og < 0 && *g == 1 {
		cmp.TerminationGracePeriodSeconds = og
	}
	if tolerationsAdded(pod.Spec.Tolerations, old.Spec.Tolerations) {
		cmp.Tolerations = old.Spec.Tolerations
	}
	if diff := specDiff(cmp, &old.Spec); diff != "" {
		errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("pod updates may not change fields other than %s\n%s", strings.Join(podUpdatableFields, ","), diff)))
	}
	return errs
}

// tolerationsAdded reports whether every old toleration is still present.
func tolerationsAdded(tols, old []corev1.Toleration) bool {
	for _, o := range old {
		found := false
		for _, t := range tols {
			if t.Key == o.Key && t.Operator == o.Operator && t.Value == o.Value && t.Effect == o.Effect && sameSeconds(t.TolerationSeconds, o.TolerationSeconds) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func sameSeconds(a, b *int64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// ValidatePodStatusUpdate checks an update of /status.
func ValidatePodStatusUpdate(pod, old *corev1.Pod) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	sp := field.NewPath("status")
	if pod.Status.NominatedNodeName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(pod.Status.NominatedNodeName) {
			errs = append(errs, field.Invalid(sp.Child("nominatedNodeName"), pod.Status.NominatedNodeName, msg))
		}
	}
	if isTerminal(old.Status.Phase) && pod.Status.Phase != old.Status.Phase {
		errs = append(errs, field.Forbidden(sp.Child("phase"), fmt.Sprintf("may not transition from %s to %s", old.Status.Phase, pod.Status.Phase)))
	}
	for i, ip := range pod.Status.PodIPs {
		errs = append(errs, validation.IsValidIP(sp.Child("podIPs").Index(i).Child("ip"), ip.IP)...)
	}
	return errs
}

func isTerminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

// ValidatePodBinding checks a binding of a pod to a node.
func ValidatePodBinding(b *corev1.Binding) field.ErrorList {
	var errs field.ErrorList
	if k := b.Target.Kind; k != "" && k != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), k, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	return errs
}

// ValidatePodTemplate checks a PodTemplate object.
func ValidatePodTemplate(t *corev1.PodTemplate) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}

// metaOnly is the metadata validation of objects with no more rules.
func metaOnly(m *metav1.ObjectMeta, namespaced bool, nameFn apivalidation.ValidateNameFunc) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, namespaced, nameFn, field.NewPath("metadata"))
}

// validateSubPath checks that a volume mount's subPath (or subPathExpr,
// before expansion) stays within the volume: relative, with no ".."
// element.
func validateSubPath(p string, fp *field.Path) field.ErrorList {
	if p == "" {
		return nil
	}
	var errs field.ErrorList
	if path.IsAbs(p) {
		errs = append(errs, field.Invalid(fp, p, "must be a relative path"))
	}
	if slices.Contains(strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }), "..") {
		errs = append(errs, field.Invalid(fp, p, "must not contain '..'"))
	}
	return errs
}
