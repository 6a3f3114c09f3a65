// Package validation checks autoscaling/v2 HorizontalPodAutoscalers (and
// so the v1 ones, converted) as the Kubernetes API server does, with its
// field paths and messages.
package validation

import (
	"strings"

	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

const (
	// maxPeriodSeconds bounds a scaling policy's period (30 minutes).
	maxPeriodSeconds = 1800
	// maxStabilizationWindowSeconds bounds a stabilization window (1 hour).
	maxStabilizationWindowSeconds = 3600
)

var (
	metricSourceTypes = []autoscalingv2.MetricSourceType{
		autoscalingv2.ObjectMetricSourceType, autoscalingv2.PodsMetricSourceType, autoscalingv2.ResourceMetricSourceType,
		autoscalingv2.ExternalMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType,
	}
	selectPolicies = []autoscalingv2.ScalingPolicySelect{autoscalingv2.DisabledPolicySelect, autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect}
	policyTypes    = []autoscalingv2.HPAScalingPolicyType{autoscalingv2.PercentScalingPolicy, autoscalingv2.PodsScalingPolicy}
)

// ValidateHorizontalPodAutoscaler checks an autoscaler.
func ValidateHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&hpa.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateSpec(&hpa.Spec, field.NewPath("spec"))...)
}

// ValidateHorizontalPodAutoscalerUpdate checks an update of an autoscaler.
func ValidateHorizontalPodAutoscalerUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateSpec(&hpa.Spec, field.NewPath("spec"))...)
}

// ValidateHorizontalPodAutoscalerStatusUpdate checks an update of an
// autoscaler's status: replica counts are not negative.
func ValidateHorizontalPodAutoscalerStatusUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	sp := field.NewPath("status")
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(hpa.Status.CurrentReplicas), sp.Child("currentReplicas"))...)
	return append(errs, apivalidation.ValidateNonnegativeField(int64(hpa.Status.DesiredReplicas), sp.Child("desiredReplicas"))...)
}

func validateSpec(s *autoscalingv2.HorizontalPodAutoscalerSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.MinReplicas != nil && *s.MinReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), *s.MinReplicas, "must be greater than or equal to 1"))
	}
	if s.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), s.MaxReplicas, "must be greater than 0"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateReference(s.ScaleTargetRef, p.Child("scaleTargetRef"))...)
	for i, m := range s.Metrics {
		errs = append(errs, validateMetricSpec(m, p.Child("metrics").Index(i))...)
	}
	if b := s.Behavior; b != nil {
		bp := p.Child("behavior")
		errs = append(errs, validateScalingRules(b.ScaleUp, bp.Child("scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, bp.Child("scaleDown"))...)
	}
	return errs
}

// validateReference checks a CrossVersionObjectReference: kind and name
// are set and are path segments.
func validateReference(ref autoscalingv2.CrossVersionObjectReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ref.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else {
		for _, msg := range pathSegment(ref.Kind) {
			errs = append(errs, field.Invalid(p.Child("kind"), ref.Kind, msg))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range pathSegment(ref.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
		}
	}
	return errs
}

// pathSegment checks that name can be one segment of a URL path.
func pathSegment(name string) []string {
	if name == "." || name == ".." {
		return []string{"may not be '" + name + "'"}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, "may not contain '"+bad+"'")
		}
	}
	return msgs
}

func validateMetricSpec(m autoscalingv2.MetricSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric source type"))
	} else if !oneOf(m.Type, metricSourceTypes) {
		errs = append(errs, field.NotSupported(p.Child("type"), m.Type, metricSourceTypes))
	}
	present := map[autoscalingv2.MetricSourceType]string{}
	if m.Object != nil {
		present[autoscalingv2.ObjectMetricSourceType] = "object"
	}
	if m.External != nil {
		present[autoscalingv2.ExternalMetricSourceType] = "external"
	}
	if m.Pods != nil {
		present[autoscalingv2.PodsMetricSourceType] = "pods"
	}
	if m.Resource != nil {
		present[autoscalingv2.ResourceMetricSourceType] = "resource"
	}
	if m.ContainerResource != nil {
		present[autoscalingv2.ContainerResourceMetricSourceType] = "containerResource"
	}
	if len(present) > 1 {
		for _, t := range metricSourceTypes {
			if name, ok := present[t]; ok && t != m.Type {
				errs = append(errs, field.Forbidden(p.Child(name), "must populate the given metric source only"))
			}
		}
	}
	missing := func(name string) field.ErrorList {
		return field.ErrorList{field.Required(p.Child(name), "must populate information for the given metric source")}
	}
	switch m.Type {
	case autoscalingv2.ObjectMetricSourceType:
		if m.Object == nil {
			return append(errs, missing("object")...)
		}
		errs = append(errs, validateObjectSource(m.Object, p.Child("object"))...)
	case autoscalingv2.ExternalMetricSourceType:
		if m.External == nil {
			return append(errs, missing("external")...)
		}
		errs = append(errs, validateExternalSource(m.External, p.Child("external"))...)
	case autoscalingv2.PodsMetricSourceType:
		if m.Pods == nil {
			return append(errs, missing("pods")...)
		}
		errs = append(errs, validatePodsSource(m.Pods, p.Child("pods"))...)
	case autoscalingv2.ResourceMetricSourceType:
		if m.Resource == nil {
			return append(errs, missing("resource")...)
		}
		errs = append(errs, validateResourceSource(string(m.Resource.Name), "", false, m.Resource.Target, p.Child("resource"))...)
	case autoscalingv2.ContainerResourceMetricSourceType:
		if m.ContainerResource == nil {
			return append(errs, missing("containerResource")...)
		}
		c := m.ContainerResource
		errs = append(errs, validateResourceSource(string(c.Name), c.Container, true, c.Target, p.Child("containerResource"))...)
	}
	return errs
}

func validateObjectSource(s *autoscalingv2.ObjectMetricSource, p *field.Path) field.ErrorList {
	errs := validateReference(s.DescribedObject, p.Child("describedObject"))
	errs = append(errs, validateMetricIdentifier(s.Metric, p.Child("metric"))...)
	errs = append(errs, validateMetricTarget(s.Target, p.Child("target"))...)
	if s.Target.Value == nil && s.Target.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("target").Child("averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

func validateExternalSource(s *autoscalingv2.ExternalMetricSource, p *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(s.Metric, p.Child("metric"))
	errs = append(errs, validateMetricTarget(s.Target, p.Child("target"))...)
	switch {
	case s.Target.Value == nil && s.Target.AverageValue == nil:
		errs = append(errs, field.Required(p.Child("target").Child("averageValue"), "must set either a target value for metric or a per-pod target"))
	case s.Target.Value != nil && s.Target.AverageValue != nil:
		errs = append(errs, field.Forbidden(p.Child("target").Child("value"), "may not set both a target value for metric and a per-pod target"))
	}
	return errs
}

func validatePodsSource(s *autoscalingv2.PodsMetricSource, p *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(s.Metric, p.Child("metric"))
	errs = append(errs, validateMetricTarget(s.Target, p.Child("target"))...)
	if s.Target.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("target").Child("averageValue"), "must specify a positive target averageValue"))
	}
	return errs
}

func validateResourceSource(name, container string, isContainer bool, t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), "must specify a resource name"))
	}
	if isContainer && container == "" {
		errs = append(errs, field.Required(p.Child("container"), "must specify a container"))
	}
	errs = append(errs, validateMetricTarget(t, p.Child("target"))...)
	tp := p.Child("target")
	switch {
	case t.AverageUtilization == nil && t.AverageValue == nil:
		errs = append(errs, field.Required(tp.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	case t.AverageUtilization != nil && t.AverageValue != nil:
		errs = append(errs, field.Forbidden(tp.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if id.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "must specify a metric name"))
	} else {
		for _, msg := range pathSegment(id.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), id.Name, msg))
		}
	}
	return append(errs, apivalidation.ValidateLabelSelector(id.Selector, p.Child("selector"))...)
}

func validateMetricTarget(t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch t.Type {
	case "":
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		errs = append(errs, field.Invalid(p.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("value"), t.Value.String(), "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("averageValue"), t.AverageValue.String(), "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

func validateScalingRules(r *autoscalingv2.HPAScalingRules, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil {
		switch {
		case *w < 0:
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
		case *w > maxStabilizationWindowSeconds:
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be less than or equal to 3600"))
		}
	}
	if sp := r.SelectPolicy; sp != nil && !oneOf(*sp, selectPolicies) {
		errs = append(errs, field.NotSupported(p.Child("selectPolicy"), *sp, selectPolicies))
	}
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(p.Child("policies"), "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		pp := p.Child("policies").Index(i)
		if !oneOf(pol.Type, policyTypes) {
			errs = append(errs, field.NotSupported(pp.Child("type"), pol.Type, policyTypes))
		}
		if pol.Value <= 0 {
			errs = append(errs, field.Invalid(pp.Child("value"), pol.Value, "must be greater than zero"))
		}
		switch {
		case pol.PeriodSeconds <= 0:
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
		case pol.PeriodSeconds > maxPeriodSeconds:
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, "must be less than or equal to 1800"))
		}
	}
	if t := r.Tolerance; t != nil && t.Sign() < 0 {
		errs = append(errs, field.Invalid(p.Child("tolerance"), t.String(), "must be greater than or equal to zero"))
	}
	return errs
}

func oneOf[T comparable](v T, set []T) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}
