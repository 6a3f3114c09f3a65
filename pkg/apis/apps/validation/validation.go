// Package validation checks apps/v1 objects as the Kubernetes API server
// does, returning field errors with Kubernetes' paths and messages.
package validation

import (
	"fmt"
	"slices"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	corevalidation "kubecore.io/kubecore/pkg/apis/core/validation"
)

var specPath = field.NewPath("spec")

// validateWorkload checks what every workload shares: the replicas, a
// non-empty selector that matches the template's labels, and the template.
func validateWorkload(kind string, replicas *int32, sel *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec) field.ErrorList {
	var errs field.ErrorList
	if replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*replicas), specPath.Child("replicas"))...)
	}
	if sel == nil {
		errs = append(errs, field.Required(specPath.Child("selector"), ""))
	} else if selErrs := apivalidation.ValidateLabelSelector(sel, specPath.Child("selector")); len(selErrs) > 0 {
		errs = append(errs, selErrs...)
	} else if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(specPath.Child("selector"), sel, fmt.Sprintf("empty selector is invalid for %s", kind)))
	} else {
		// A valid selector must select the template's pods, whatever else
		// is wrong.
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err == nil && !s.Empty() && !s.Matches(labels.Set(tmpl.Labels)) {
			errs = append(errs, field.Invalid(specPath.Child("template", "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, corevalidation.ValidatePodTemplateSpec(tmpl, specPath.Child("template"))...)
	return errs
}

// validateAlwaysRestart: controllers replace pods, so they restart always.
func validateAlwaysRestart(tmpl *corev1.PodTemplateSpec) field.ErrorList {
	if p := tmpl.Spec.RestartPolicy; p != "" && p != corev1.RestartPolicyAlways {
		return field.ErrorList{field.NotSupported(specPath.Child("template", "spec", "restartPolicy"), p, []corev1.RestartPolicy{corev1.RestartPolicyAlways})}
	}
	return nil
}

func validateMeta(m *metav1.ObjectMeta) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

func validateSelectorUpdate(sel, old *metav1.LabelSelector) field.ErrorList {
	return apivalidation.ValidateImmutableField(sel, old, specPath.Child("selector"))
}

// ValidateDeployment checks a deployment.
func ValidateDeployment(d *appsv1.Deployment) field.ErrorList {
	errs := validateMeta(&d.ObjectMeta)
	errs = append(errs, validateWorkload("deployment", d.Spec.Replicas, d.Spec.Selector, &d.Spec.Template)...)
	errs = append(errs, validateAlwaysRestart(&d.Spec.Template)...)
	st := d.Spec.Strategy
	stPath := specPath.Child("strategy")
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(stPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if ru := st.RollingUpdate; ru != nil {
			ruPath := stPath.Child("rollingUpdate")
			errs = append(errs, validatePositiveIntOrPercent(ru.MaxUnavailable, ruPath.Child("maxUnavailable"))...)
			errs = append(errs, validatePositiveIntOrPercent(ru.MaxSurge, ruPath.Child("maxSurge"))...)
			if isZero(ru.MaxUnavailable) && isZero(ru.MaxSurge) {
				errs = append(errs, field.Invalid(ruPath.Child("maxUnavailable"), ru.MaxUnavailable.String(), "may not be 0 when `maxSurge` is 0"))
			}
		}
	default:
		errs = append(errs, field.NotSupported(stPath.Child("type"), st.Type, []appsv1.DeploymentStrategyType{appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType}))
	}
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(d.Spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
	if l := d.Spec.RevisionHistoryLimit; l != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*l), specPath.Child("revisionHistoryLimit"))...)
	}
	if p := d.Spec.ProgressDeadlineSeconds; p != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*p), specPath.Child("progressDeadlineSeconds"))...)
		if *p <= d.Spec.MinReadySeconds {
			errs = append(errs, field.Invalid(specPath.Child("progressDeadlineSeconds"), *p, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func isZero(v *intstr.IntOrString) bool {
	if v == nil {
		return false
	}
	if v.Type == intstr.Int {
		return v.IntVal == 0
	}
	return v.StrVal == "0%"
}

func validatePositiveIntOrPercent(v *intstr.IntOrString, p *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	if v.Type == intstr.Int {
		return apivalidation.ValidateNonnegativeField(int64(v.IntVal), p)
	}
	var n int
	if _, err := fmt.Sscanf(v.StrVal, "%d%%", &n); err != nil || fmt.Sprintf("%d%%", n) != v.StrVal {
		return field.ErrorList{field.Invalid(p, v.StrVal, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")}
	}
	if n > 100 {
		return field.ErrorList{field.Invalid(p, v.StrVal, "must not be greater than 100%")}
	}
	return nil
}

// ValidateDeploymentUpdate checks an update: the selector is immutable.
func ValidateDeploymentUpdate(d, old *appsv1.Deployment) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSelectorUpdate(d.Spec.Selector, old.Spec.Selector)...)
	return append(errs, ValidateDeployment(d)...)
}

// ValidateReplicaSet checks a replica set.
func ValidateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	errs := validateMeta(&rs.ObjectMeta)
	errs = append(errs, validateWorkload("replicaset", rs.Spec.Replicas, rs.Spec.Selector, &rs.Spec.Template)...)
	errs = append(errs, validateAlwaysRestart(&rs.Spec.Template)...)
	return append(errs, apivalidation.ValidateNonnegativeField(int64(rs.Spec.MinReadySeconds), specPath.Child("minReadySeconds"))...)
}

// ValidateReplicaSetUpdate checks an update: the selector is immutable.
func ValidateReplicaSetUpdate(rs, old *appsv1.ReplicaSet) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSelectorUpdate(rs.Spec.Selector, old.Spec.Selector)...)
	return append(errs, ValidateReplicaSet(rs)...)
}

// ValidateStatefulSet checks a stateful set.
func ValidateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	errs := validateMeta(&ss.ObjectMeta)
	errs = append(errs, validateWorkload("statefulset", ss.Spec.Replicas, ss.Spec.Selector, templateWithClaims(ss))...)
	errs = append(errs, validateAlwaysRestart(&ss.Spec.Template)...)
	if ss.Spec.ServiceName == "" {
		errs = append(errs, field.Required(specPath.Child("serviceName"), "the headless service that gives the pods their network identity"))
	}
	switch ss.Spec.PodManagementPolicy {
	case "", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(specPath.Child("podManagementPolicy"), ss.Spec.PodManagementPolicy, fmt.Sprintf("must be '%s' or '%s'", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement)))
	}
	us := ss.Spec.UpdateStrategy
	usPath := specPath.Child("updateStrategy")
	switch us.Type {
	case appsv1.OnDeleteStatefulSetStrategyType:
		if us.RollingUpdate != nil {
			errs = append(errs, field.Invalid(usPath.Child("rollingUpdate"), us.RollingUpdate, fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType)))
		}
	case appsv1.RollingUpdateStatefulSetStrategyType, "":
		if ru := us.RollingUpdate; ru != nil && ru.Partition != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*ru.Partition), usPath.Child("rollingUpdate", "partition"))...)
		}
	default:
		errs = append(errs, field.Invalid(usPath, us, fmt.Sprintf("must be '%s' or '%s'", appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType)))
	}
	for i := range ss.Spec.VolumeClaimTemplates {
		p := specPath.Child("volumeClaimTemplates").Index(i)
		errs = append(errs, corevalidation.ValidatePersistentVolumeClaimSpec(&ss.Spec.VolumeClaimTemplates[i].Spec, p.Child("spec"))...)
	}
	if l := ss.Spec.RevisionHistoryLimit; l != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*l), specPath.Child("revisionHistoryLimit"))...)
	}
	return errs
}

// templateWithClaims returns the pod template as the controller stamps it:
// each volumeClaimTemplate becomes a volume of the same name, so that a
// volumeMount may name a claim template.
func templateWithClaims(ss *appsv1.StatefulSet) *corev1.PodTemplateSpec {
	if len(ss.Spec.VolumeClaimTemplates) == 0 {
		return &ss.Spec.Template
	}
	t := ss.Spec.Template.DeepCopy()
	for _, c := range ss.Spec.VolumeClaimTemplates {
		if slices.ContainsFunc(t.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == c.Name }) {
			continue
		}
		t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: c.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name},
		}})
	}
	return t
}

// ValidateStatefulSetUpdate checks an update: only replicas, ordinals,
// template, updateStrategy, revisionHistoryLimit, the claim retention
// policy and minReadySeconds may change.
func ValidateStatefulSetUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&ss.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateStatefulSet(ss)...)
	cmp := ss.Spec.DeepCopy()
	cmp.Replicas, cmp.Ordinals, cmp.Template = old.Spec.Replicas, old.Spec.Ordinals, old.Spec.Template
	cmp.UpdateStrategy, cmp.RevisionHistoryLimit = old.Spec.UpdateStrategy, old.Spec.RevisionHistoryLimit
	cmp.PersistentVolumeClaimRetentionPolicy, cmp.MinReadySeconds = old.Spec.PersistentVolumeClaimRetentionPolicy, old.Spec.MinReadySeconds
	if !apiEqual(cmp, &old.Spec) {
		errs = append(errs, field.Forbidden(specPath, "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
	}
	return errs
}

// ValidateDaemonSet checks a daemon set.
func ValidateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	errs := validateMeta(&ds.ObjectMeta)
	errs = append(errs, validateWorkload("daemonset", nil, ds.Spec.Selector, &ds.Spec.Template)...)
	return append(errs, validateAlwaysRestart(&ds.Spec.Template)...)
}

// ValidateDaemonSetUpdate checks an update: the selector is immutable.
func ValidateDaemonSetUpdate(ds, old *appsv1.DaemonSet) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&ds.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSelectorUpdate(ds.Spec.Selector, old.Spec.Selector)...)
	return append(errs, ValidateDaemonSet(ds)...)
}

// ValidateControllerRevision checks a revision: its revision number is not
// negative.
func ValidateControllerRevision(r *appsv1.ControllerRevision) field.ErrorList {
	errs := validateMeta(&r.ObjectMeta)
	return append(errs, apivalidation.ValidateNonnegativeField(r.Revision, field.NewPath("revision"))...)
}

// ValidateControllerRevisionUpdate checks an update: the data never
// changes.
func ValidateControllerRevisionUpdate(r, old *appsv1.ControllerRevision) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateControllerRevision(r)...)
	if string(r.Data.Raw) != string(old.Data.Raw) {
		errs = append(errs, field.Invalid(field.NewPath("data"), "", apivalidation.FieldImmutableErrorMsg))
	}
	return errs
}
