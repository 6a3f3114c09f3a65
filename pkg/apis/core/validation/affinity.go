package validation

import (
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// validateAffinity checks node affinity (operators, values, field
// selectors, weights) and pod (anti-)affinity terms (selectors, topology
// keys, weights), with Kubernetes' paths and messages, so that a pod the
// scheduler could not parse is refused at the door.
func validateAffinity(a *corev1.Affinity, p *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			rp := np.Child("requiredDuringSchedulingIgnoredDuringExecution")
			if len(req.NodeSelectorTerms) == 0 {
				errs = append(errs, field.Required(rp.Child("nodeSelectorTerms"), "must have at least one node selector term"))
			}
			for i, term := range req.NodeSelectorTerms {
				errs = append(errs, validateNodeSelectorTerm(term, rp.Child("nodeSelectorTerms").Index(i))...)
			}
		}
		for i, pref := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			pp := np.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, validateWeight(pref.Weight, pp.Child("weight"))...)
			errs = append(errs, validateNodeSelectorTerm(pref.Preference, pp.Child("preference"))...)
		}
	}
	podTerms := func(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, pp *field.Path) {
		for i, term := range required {
			errs = append(errs, validatePodAffinityTerm(term, pp.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
		}
		for i, w := range preferred {
			wp := pp.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, validateWeight(w.Weight, wp.Child("weight"))...)
			errs = append(errs, validatePodAffinityTerm(w.PodAffinityTerm, wp.Child("podAffinityTerm"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		podTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))
	}
	if pa := a.PodAntiAffinity; pa != nil {
		podTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))
	}
	return errs
}

func validateWeight(w int32, p *field.Path) field.ErrorList {
	if w < 1 || w > 100 {
		return field.ErrorList{field.Invalid(p, w, "must be in the range 1-100")}
	}
	return nil
}

func validateNodeSelectorTerm(term corev1.NodeSelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range term.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(r, p.Child("matchExpressions").Index(i))...)
	}
	for i, r := range term.MatchFields {
		fp := p.Child("matchFields").Index(i)
		if r.Key != "metadata.name" {
			errs = append(errs, field.NotSupported(fp.Child("key"), r.Key, []string{"metadata.name"}))
		}
		switch r.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(fp.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, field.Invalid(fp.Child("operator"), r.Operator, "not a valid selector operator"))
		}
	}
	return errs
}

func validateNodeSelectorRequirement(r corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
		for i, v := range r.Values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, field.Invalid(p.Child("values").Index(i), v, "must be an integer"))
			}
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	return append(errs, apivalidation.ValidateLabelName(r.Key, p.Child("key"))...)
}

func validatePodAffinityTerm(term corev1.PodAffinityTerm, p *field.Path) field.ErrorList {
	errs := apivalidation.ValidateLabelSelector(term.LabelSelector, p.Child("labelSelector"))
	errs = append(errs, apivalidation.ValidateLabelSelector(term.NamespaceSelector, p.Child("namespaceSelector"))...)
	for i, ns := range term.Namespaces {
		for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
			errs = append(errs, field.Invalid(p.Child("namespaces").Index(i), ns, msg))
		}
	}
	if term.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	} else {
		errs = append(errs, apivalidation.ValidateLabelName(term.TopologyKey, p.Child("topologyKey"))...)
	}
	return errs
}
