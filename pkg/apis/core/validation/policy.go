package validation

import (
	"fmt"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

const isNegativeErrorMsg = "must be greater than or equal to 0"

// validateResourceName checks a resource name: a standard name or one
// qualified by a domain.
func validateResourceName(name corev1.ResourceName, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(string(name), "/") && !isStandardResourceName(name) {
		errs = append(errs, field.Invalid(p, name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// standardQuotaResources are the names a quota or limit range may use
// without a domain.
var standardQuotaResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsStorage, corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
	corev1.ResourceSecrets, corev1.ResourcePersistentVolumeClaims, corev1.ResourceConfigMaps,
	corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

func isStandardResourceName(name corev1.ResourceName) bool {
	s := string(name)
	return slices.Contains(standardQuotaResources, name) ||
		strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, "requests."+corev1.ResourceHugePagesPrefix) ||
		strings.HasPrefix(s, "limits."+corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, "count/") ||
		strings.HasSuffix(s, ".storageclass.storage.k8s.io/requests.storage") ||
		strings.HasSuffix(s, ".storageclass.storage.k8s.io/persistentvolumeclaims")
}

// isIntegerResourceName says whether a quota of name counts objects, which
// only whole numbers can.
func isIntegerResourceName(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
		corev1.ResourceSecrets, corev1.ResourcePersistentVolumeClaims, corev1.ResourceConfigMaps,
		corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers:
		return true
	}
	return strings.HasPrefix(string(name), "count/")
}

// validateResourceQuantity checks a quantity of a quota or limit: not
// negative, whole for object counts.
func validateResourceQuantity(name corev1.ResourceName, q resource.Quantity, p *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(p, q.String(), isNegativeErrorMsg)}
	}
	if isIntegerResourceName(name) && q.MilliValue()%1000 != 0 {
		return field.ErrorList{field.Invalid(p, q.String(), "must be an integer")}
	}
	return nil
}

func validateResourceList(l corev1.ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedNames(l) {
		rp := p.Key(string(k))
		errs = append(errs, validateResourceName(k, rp)...)
		errs = append(errs, validateResourceQuantity(k, l[k], rp)...)
	}
	return errs
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// ValidateLimitRange checks a limit range as Kubernetes does: one item per
// type, min <= default request <= default <= max, ratios at least 1.
func ValidateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	errs := metaOnly(&lr.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	seen := map[corev1.LimitType]bool{}
	limitsPath := field.NewPath("spec", "limits")
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		ip := limitsPath.Index(i)
		if seen[item.Type] {
			errs = append(errs, field.Duplicate(ip.Child("type"), item.Type))
		}
		seen[item.Type] = true
		errs = append(errs, validateLimitRangeItem(item, ip)...)
	}
	return errs
}

// ValidateLimitRangeUpdate checks an update of a limit range.
func ValidateLimitRangeUpdate(lr, old *corev1.LimitRange) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&lr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateLimitRange(lr)...)
}

func validateLimitRangeItem(item *corev1.LimitRangeItem, ip *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, part := range []struct {
		name string
		l    corev1.ResourceList
	}{{"max", item.Max}, {"min", item.Min}, {"default", item.Default}, {"defaultRequest", item.DefaultRequest}, {"maxLimitRequestRatio", item.MaxLimitRequestRatio}} {
		errs = append(errs, validateResourceList(part.l, ip.Child(part.name))...)
	}
	if item.Type == corev1.LimitTypePod {
		if len(item.Default) > 0 {
			errs = append(errs, field.Forbidden(ip.Child("default"), "may not be specified when `type` is 'Pod'"))
		}
		if len(item.DefaultRequest) > 0 {
			errs = append(errs, field.Forbidden(ip.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
		}
	}
	if item.Type == corev1.LimitTypePersistentVolumeClaim {
		_, minFound := item.Min[corev1.ResourceStorage]
		_, maxFound := item.Max[corev1.ResourceStorage]
		if !minFound && !maxFound {
			errs = append(errs, field.Required(ip.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
		}
	}
	names := map[corev1.ResourceName]bool{}
	for _, l := range []corev1.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
		for k := range l {
			names[k] = true
		}
	}
	sorted := make([]corev1.ResourceName, 0, len(names))
	for k := range names {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		errs = append(errs, compareLimits(item, k, ip)...)
	}
	return errs
}

// compareLimits checks the order of the bounds of one resource k.
func compareLimits(item *corev1.LimitRangeItem, k corev1.ResourceName, ip *field.Path) field.ErrorList {
	var errs field.ErrorList
	key := string(k)
	maxQ, maxFound := item.Max[k]
	minQ, minFound := item.Min[k]
	defQ, defFound := item.Default[k]
	reqQ, reqFound := item.DefaultRequest[k]
	ratio, ratioFound := item.MaxLimitRequestRatio[k]
	if minFound && maxFound && minQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(ip.Child("min").Key(key), minQ.String(), fmt.Sprintf("min value %s is greater than max value %s", minQ.String(), maxQ.String())))
	}
	if reqFound && minFound && minQ.Cmp(reqQ) > 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("min value %s is greater than default request value %s", minQ.String(), reqQ.String())))
	}
	if reqFound && maxFound && reqQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("default request value %s is greater than max value %s", reqQ.String(), maxQ.String())))
	}
	if reqFound && defFound && reqQ.Cmp(defQ) > 0 {
		errs = append(errs, field.Invalid(ip.Child("defaultRequest").Key(key), reqQ.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", reqQ.String(), defQ.String())))
	}
	if defFound && minFound && minQ.Cmp(defQ) > 0 {
		errs = append(errs, field.Invalid(ip.Child("default").Key(key), minQ.String(), fmt.Sprintf("min value %s is greater than default value %s", minQ.String(), defQ.String())))
	}
	if defFound && maxFound && defQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(ip.Child("default").Key(key), maxQ.String(), fmt.Sprintf("default value %s is greater than max value %s", defQ.String(), maxQ.String())))
	}
	if ratioFound {
		one := resource.MustParse("1")
		if ratio.Cmp(one) < 0 {
			errs = append(errs, field.Invalid(ip.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
		}
		if ratio.Cmp(one) > 0 && maxFound && minFound && minQ.Sign() > 0 {
			maxRatio := float64(maxQ.MilliValue()) / float64(minQ.MilliValue())
			if float64(ratio.MilliValue())/1000 > maxRatio {
				errs = append(errs, field.Invalid(ip.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), maxRatio)))
			}
		}
	}
	return errs
}

// standardScopes are the scopes a quota may name.
var standardScopes = []corev1.ResourceQuotaScope{
	corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort,
	corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity,
	corev1.ResourceQuotaScopeVolumeAttributesClass,
}

// podScopeResources are the resources a pod scope may limit.
var podScopeResources = []corev1.ResourceName{
	corev1.ResourcePods, corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage,
}

// scopeAllows says whether a quota scoped to scope may limit name.
func scopeAllows(scope corev1.ResourceQuotaScope, name corev1.ResourceName) bool {
	switch scope {
	case corev1.ResourceQuotaScopeBestEffort:
		return name == corev1.ResourcePods
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return name == corev1.ResourcePersistentVolumeClaims || name == corev1.ResourceRequestsStorage
	}
	s := string(name)
	return slices.Contains(podScopeResources, name) || name == "count/pods" ||
		strings.HasPrefix(s, "requests."+corev1.ResourceHugePagesPrefix) || strings.Contains(s, "/")
}

// ValidateResourceQuota checks a resource quota: resource names and
// quantities of spec.hard, scopes and their selector.
func ValidateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	errs := metaOnly(&q.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	errs = append(errs, validateResourceQuotaSpec(&q.Spec, field.NewPath("spec"))...)
	return append(errs, validateResourceQuotaStatus(&q.Status, field.NewPath("status"))...)
}

func validateResourceQuotaSpec(spec *corev1.ResourceQuotaSpec, p *field.Path) field.ErrorList {
	errs := validateResourceList(spec.Hard, p.Child("hard"))
	scopes := map[corev1.ResourceQuotaScope]bool{}
	for _, s := range spec.Scopes {
		if !slices.Contains(standardScopes, s) {
			errs = append(errs, field.Invalid(p.Child("scopes"), spec.Scopes, "unsupported scope"))
		}
		scopes[s] = true
	}
	if spec.ScopeSelector != nil {
		mp := p.Child("scopeSelector", "matchExpressions")
		for i, req := range spec.ScopeSelector.MatchExpressions {
			errs = append(errs, validateScopedResourceSelectorRequirement(req, mp.Index(i))...)
			scopes[req.ScopeName] = true
		}
	}
	for s := range scopes {
		for name := range spec.Hard {
			if slices.Contains(standardScopes, s) && !scopeAllows(s, name) {
				errs = append(errs, field.Invalid(p.Child("hard"), spec.Hard, "unsupported scope applied to resource"))
				break
			}
		}
	}
	if (scopes[corev1.ResourceQuotaScopeTerminating] && scopes[corev1.ResourceQuotaScopeNotTerminating]) ||
		(scopes[corev1.ResourceQuotaScopeBestEffort] && scopes[corev1.ResourceQuotaScopeNotBestEffort]) {
		errs = append(errs, field.Invalid(p.Child("scopes"), spec.Scopes, "conflicting scopes"))
	}
	return errs
}

func validateScopedResourceSelectorRequirement(req corev1.ScopedResourceSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(standardScopes, req.ScopeName) {
		errs = append(errs, field.Invalid(p.Child("scopeName"), req.ScopeName, "unsupported scope"))
	}
	switch req.ScopeName {
	case corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
		corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		if req.Operator != corev1.ScopeSelectorOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), req.Operator,
				"must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
		}
	}
	switch req.Operator {
	case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
		if len(req.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
		}
	case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
		if len(req.Values) != 0 {
			errs = append(errs, field.Invalid(p.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("operator"), req.Operator, []corev1.ScopeSelectorOperator{
			corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn, corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist}))
	}
	return errs
}

func validateResourceQuotaStatus(s *corev1.ResourceQuotaStatus, p *field.Path) field.ErrorList {
	errs := validateResourceList(s.Hard, p.Child("hard"))
	return append(errs, validateResourceList(s.Used, p.Child("used"))...)
}

// ValidateResourceQuotaUpdate checks an update: the scopes are immutable.
func ValidateResourceQuotaUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateResourceQuotaSpec(&q.Spec, field.NewPath("spec"))...)
	if !slices.Equal(q.Spec.Scopes, old.Spec.Scopes) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "scopes"), q.Spec.Scopes, "field is immutable"))
	}
	return errs
}

// ValidateResourceQuotaStatusUpdate checks a write of /status.
func ValidateResourceQuotaStatusUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateResourceQuotaStatus(&q.Status, field.NewPath("status"))...)
}

// ValidateReplicationController checks a replication controller: a
// non-empty selector matching the template's labels, a template that
// always restarts.
func ValidateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	errs := metaOnly(&rc.ObjectMeta, true, apivalidation.NameIsDNSSubdomain)
	sp := field.NewPath("spec")
	if rc.Spec.Replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*rc.Spec.Replicas), sp.Child("replicas"))...)
	}
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(rc.Spec.MinReadySeconds), sp.Child("minReadySeconds"))...)
	if len(rc.Spec.Selector) == 0 {
		errs = append(errs, field.Required(sp.Child("selector"), ""))
	} else {
		errs = append(errs, apivalidation.ValidateLabels(rc.Spec.Selector, sp.Child("selector"))...)
	}
	tp := sp.Child("template")
	if rc.Spec.Template == nil {
		return append(errs, field.Required(tp, ""))
	}
	if len(rc.Spec.Selector) > 0 && !labels.SelectorFromSet(rc.Spec.Selector).Matches(labels.Set(rc.Spec.Template.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), rc.Spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, ValidatePodTemplateSpec(rc.Spec.Template, tp)...)
	if p := rc.Spec.Template.Spec.RestartPolicy; p != "" && p != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), p, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if rc.Spec.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(tp.Child("spec", "activeDeadlineSeconds"), *rc.Spec.Template.Spec.ActiveDeadlineSeconds, "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

// ValidateReplicationControllerUpdate checks an update; unlike a
// ReplicaSet's, the selector may change.
func ValidateReplicationControllerUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateReplicationController(rc)...)
}

// ValidateBinding checks a binding posted to the bindings collection.
func ValidateBinding(b *corev1.Binding) field.ErrorList {
	return ValidatePodBinding(b)
}
