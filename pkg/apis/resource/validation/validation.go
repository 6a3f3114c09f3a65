// Package validation checks the resource.k8s.io/v1 objects of dynamic
// resource allocation as the Kubernetes API server does, with its field
// paths and messages. CEL selector expressions are checked to be set and
// bounded in size, then compiled by the SelectorChecker the caller gives.
package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	resourcev1 "kubecore.io/api/resource/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	utilvalidation "kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// The bounds Kubernetes puts on the objects.
const (
	maxSelectors          = 32
	maxConfigs            = 32
	maxRequests           = 32
	maxConstraints        = 32
	maxSubRequests        = 8
	maxDevicesPerSlice    = 128
	maxReservedFor        = 256
	maxSelectorLength     = 10 * 1024
	maxAttributesCapacity = 32
	maxAttributeStringLen = 64
	maxOpaqueParamsSize   = 10 * 1024
	maxTolerations        = 16
)

var (
	allocationModes = []resourcev1.DeviceAllocationMode{resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount}
	taintEffects    = []resourcev1.DeviceTaintEffect{resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule}
	tolerationOps   = []resourcev1.DeviceTolerationOperator{resourcev1.DeviceTolerationOpEqual, resourcev1.DeviceTolerationOpExists}
)

// SelectorChecker compiles the CEL expression of a device selector and
// returns the error of a bad one at p (the expression's field), nil for
// a good one. The API server gives pkg/cel's DRA environment; a nil
// SelectorChecker leaves expressions uncompiled.
type SelectorChecker interface {
	Check(expression string, p *field.Path) *field.Error
}

// ValidateDeviceClass checks a DeviceClass.
func ValidateDeviceClass(c *resourcev1.DeviceClass, sel SelectorChecker) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	errs = append(errs, validateSelectors(c.Spec.Selectors, sel, sp.Child("selectors"))...)
	if len(c.Spec.Config) > maxConfigs {
		errs = append(errs, field.TooMany(sp.Child("config"), len(c.Spec.Config), maxConfigs))
	}
	for i, cfg := range c.Spec.Config {
		errs = append(errs, validateDeviceConfiguration(cfg.DeviceConfiguration, sp.Child("config").Index(i))...)
	}
	if n := c.Spec.ExtendedResourceName; n != nil {
		for _, msg := range utilvalidation.IsQualifiedName(*n) {
			errs = append(errs, field.Invalid(sp.Child("extendedResourceName"), *n, msg))
		}
	}
	return errs
}

// ValidateDeviceClassUpdate checks an update of a DeviceClass.
func ValidateDeviceClassUpdate(c, old *resourcev1.DeviceClass, sel SelectorChecker) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateDeviceClass(c, sel)...)
}

// ValidateResourceClaim checks a ResourceClaim.
func ValidateResourceClaim(c *resourcev1.ResourceClaim, sel SelectorChecker) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateClaimSpec(&c.Spec, sel, field.NewPath("spec"))...)
}

// ValidateResourceClaimUpdate checks an update of a ResourceClaim: the
// spec is immutable.
func ValidateResourceClaimUpdate(c, old *resourcev1.ResourceClaim, sel SelectorChecker) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateImmutableField(c.Spec, old.Spec, field.NewPath("spec"))...)
	if len(errs) == 0 {
		errs = append(errs, validateClaimSpec(&c.Spec, sel, field.NewPath("spec"))...)
	}
	return errs
}

// ValidateResourceClaimStatusUpdate checks an update of a claim's status:
// an allocation is not changed once made, only removed with the
// reservations gone, and reservations are unique and bounded.
func ValidateResourceClaimStatusUpdate(c, old *resourcev1.ResourceClaim) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	sp := field.NewPath("status")
	if len(c.Status.ReservedFor) > maxReservedFor {
		errs = append(errs, field.TooMany(sp.Child("reservedFor"), len(c.Status.ReservedFor), maxReservedFor))
	}
	uids := map[string]bool{}
	for i, r := range c.Status.ReservedFor {
		p := sp.Child("reservedFor").Index(i)
		if r.Resource == "" {
			errs = append(errs, field.Required(p.Child("resource"), ""))
		}
		if r.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if r.UID == "" {
			errs = append(errs, field.Required(p.Child("uid"), ""))
		} else if uids[string(r.UID)] {
			errs = append(errs, field.Duplicate(p.Child("uid"), r.UID))
		}
		uids[string(r.UID)] = true
	}
	if len(c.Status.ReservedFor) > 0 && c.Status.Allocation == nil {
		errs = append(errs, field.Forbidden(sp.Child("reservedFor"), "may not be specified when `allocated` is not set"))
	}
	if old.Status.Allocation != nil && c.Status.Allocation != nil {
		errs = append(errs, apivalidation.ValidateImmutableField(c.Status.Allocation, old.Status.Allocation, sp.Child("allocation"))...)
	}
	if old.Status.Allocation != nil && c.Status.Allocation == nil && len(old.Status.ReservedFor) > 0 {
		errs = append(errs, field.Forbidden(sp.Child("allocation"), "may not be cleared while `reservedFor` is set"))
	}
	if a := c.Status.Allocation; a != nil {
		for i, r := range a.Devices.Results {
			p := sp.Child("allocation", "devices", "results").Index(i)
			errs = append(errs, validateDriverName(r.Driver, p.Child("driver"))...)
			errs = append(errs, validatePoolName(r.Pool, p.Child("pool"))...)
			errs = append(errs, validateDNSLabel(r.Device, p.Child("device"))...)
			if r.Request == "" {
				errs = append(errs, field.Required(p.Child("request"), ""))
			}
		}
	}
	return errs
}

// ValidateResourceClaimTemplate checks a ResourceClaimTemplate.
func ValidateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate, sel SelectorChecker) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&t.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	mp := field.NewPath("spec", "metadata")
	errs = append(errs, apivalidation.ValidateLabels(t.Spec.Labels, mp.Child("labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(t.Spec.Annotations, mp.Child("annotations"))...)
	return append(errs, validateClaimSpec(&t.Spec.Spec, sel, field.NewPath("spec", "spec"))...)
}

// ValidateResourceClaimTemplateUpdate checks an update of a template: its
// spec is immutable.
func ValidateResourceClaimTemplateUpdate(t, old *resourcev1.ResourceClaimTemplate, sel SelectorChecker) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateImmutableField(t.Spec, old.Spec, field.NewPath("spec"))...)
	if len(errs) == 0 {
		errs = append(errs, ValidateResourceClaimTemplate(t, sel)...)
	}
	return errs
}

// validateClaimSpec checks the device requests, constraints and config of
// a claim.
func validateClaimSpec(spec *resourcev1.ResourceClaimSpec, sel SelectorChecker, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	dp := p.Child("devices")
	reqs := spec.Devices.Requests
	if len(reqs) > maxRequests {
		errs = append(errs, field.TooMany(dp.Child("requests"), len(reqs), maxRequests))
	}
	names := map[string]bool{}
	for i, r := range reqs {
		rp := dp.Child("requests").Index(i)
		errs = append(errs, validateDNSLabel(r.Name, rp.Child("name"))...)
		if names[r.Name] {
			errs = append(errs, field.Duplicate(rp.Child("name"), r.Name))
		}
		names[r.Name] = true
		switch {
		case r.Exactly == nil && len(r.FirstAvailable) == 0:
			errs = append(errs, field.Required(rp, "exactly one of `exactly` or `firstAvailable` is required"))
		case r.Exactly != nil && len(r.FirstAvailable) > 0:
			errs = append(errs, field.Invalid(rp, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
		case r.Exactly != nil:
			e := r.Exactly
			errs = append(errs, validateRequest(e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count, e.Tolerations, sel, rp.Child("exactly"))...)
		default:
			if len(r.FirstAvailable) > maxSubRequests {
				errs = append(errs, field.TooMany(rp.Child("firstAvailable"), len(r.FirstAvailable), maxSubRequests))
			}
			subNames := map[string]bool{}
			for j, sub := range r.FirstAvailable {
				sp := rp.Child("firstAvailable").Index(j)
				errs = append(errs, validateDNSLabel(sub.Name, sp.Child("name"))...)
				if subNames[sub.Name] {
					errs = append(errs, field.Duplicate(sp.Child("name"), sub.Name))
				}
				subNames[sub.Name] = true
				names[r.Name+"/"+sub.Name] = true
				errs = append(errs, validateRequest(sub.DeviceClassName, sub.Selectors, sub.AllocationMode, sub.Count, sub.Tolerations, sel, sp)...)
			}
		}
	}
	known := func(ref string) bool { return names[ref] || names[strings.SplitN(ref, "/", 2)[0]] }
	if len(spec.Devices.Constraints) > maxConstraints {
		errs = append(errs, field.TooMany(dp.Child("constraints"), len(spec.Devices.Constraints), maxConstraints))
	}
	for i, c := range spec.Devices.Constraints {
		cp := dp.Child("constraints").Index(i)
		errs = append(errs, validateRequestRefs(c.Requests, known, cp.Child("requests"))...)
		switch {
		case c.MatchAttribute == nil && c.DistinctAttribute == nil:
			errs = append(errs, field.Required(cp, "exactly one of `matchAttribute` or `distinctAttribute` is required"))
		case c.MatchAttribute != nil && c.DistinctAttribute != nil:
			errs = append(errs, field.Invalid(cp, nil, "exactly one of `matchAttribute` or `distinctAttribute` is required, but multiple fields are set"))
		case c.MatchAttribute != nil:
			errs = append(errs, validateFullyQualifiedName(*c.MatchAttribute, cp.Child("matchAttribute"))...)
		default:
			errs = append(errs, validateFullyQualifiedName(*c.DistinctAttribute, cp.Child("distinctAttribute"))...)
		}
	}
	if len(spec.Devices.Config) > maxConfigs {
		errs = append(errs, field.TooMany(dp.Child("config"), len(spec.Devices.Config), maxConfigs))
	}
	for i, cfg := range spec.Devices.Config {
		cp := dp.Child("config").Index(i)
		errs = append(errs, validateRequestRefs(cfg.Requests, known, cp.Child("requests"))...)
		errs = append(errs, validateDeviceConfiguration(cfg.DeviceConfiguration, cp)...)
	}
	return errs
}

func validateRequest(className string, selectors []resourcev1.DeviceSelector, mode resourcev1.DeviceAllocationMode, count int64, tolerations []resourcev1.DeviceToleration, sel SelectorChecker, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if className == "" {
		errs = append(errs, field.Required(p.Child("deviceClassName"), ""))
	} else {
		for _, msg := range apivalidation.NameIsDNSSubdomain(className, false) {
			errs = append(errs, field.Invalid(p.Child("deviceClassName"), className, msg))
		}
	}
	errs = append(errs, validateSelectors(selectors, sel, p.Child("selectors"))...)
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			errs = append(errs, field.Invalid(p.Child("count"), count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode)))
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			errs = append(errs, field.Invalid(p.Child("count"), count, "must be greater than zero"))
		}
	case "":
		errs = append(errs, field.Required(p.Child("allocationMode"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("allocationMode"), mode, allocationModes))
	}
	if len(tolerations) > maxTolerations {
		errs = append(errs, field.TooMany(p.Child("tolerations"), len(tolerations), maxTolerations))
	}
	for i, t := range tolerations {
		tp := p.Child("tolerations").Index(i)
		if t.Key != "" {
			errs = append(errs, apivalidation.ValidateLabelName(t.Key, tp.Child("key"))...)
		}
		switch t.Operator {
		case resourcev1.DeviceTolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, "must be empty for operator `Exists`"))
			}
		case resourcev1.DeviceTolerationOpEqual:
			for _, msg := range utilvalidation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, msg))
			}
		case "":
			errs = append(errs, field.Required(tp.Child("operator"), ""))
		default:
			errs = append(errs, field.NotSupported(tp.Child("operator"), t.Operator, tolerationOps))
		}
		if t.Effect != "" && !oneOf(t.Effect, taintEffects) {
			errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect, taintEffects))
		}
	}
	return errs
}

func validateSelectors(selectors []resourcev1.DeviceSelector, sel SelectorChecker, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(selectors) > maxSelectors {
		errs = append(errs, field.TooMany(p, len(selectors), maxSelectors))
	}
	for i, s := range selectors {
		sp := p.Index(i)
		switch {
		case s.CEL == nil:
			errs = append(errs, field.Required(sp.Child("cel"), ""))
		case strings.TrimSpace(s.CEL.Expression) == "":
			errs = append(errs, field.Required(sp.Child("cel", "expression"), ""))
		case len(s.CEL.Expression) > maxSelectorLength:
			errs = append(errs, field.TooLong(sp.Child("cel", "expression"), "", maxSelectorLength))
		case sel != nil:
			if err := sel.Check(s.CEL.Expression, sp.Child("cel", "expression")); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

func validateDeviceConfiguration(c resourcev1.DeviceConfiguration, p *field.Path) field.ErrorList {
	if c.Opaque == nil {
		return field.ErrorList{field.Required(p.Child("opaque"), "")}
	}
	op := p.Child("opaque")
	errs := validateDriverName(c.Opaque.Driver, op.Child("driver"))
	raw := c.Opaque.Parameters.Raw
	var v map[string]any
	switch {
	case len(raw) == 0:
		errs = append(errs, field.Required(op.Child("parameters"), ""))
	case len(raw) > maxOpaqueParamsSize:
		errs = append(errs, field.TooLong(op.Child("parameters"), "", maxOpaqueParamsSize))
	case json.Unmarshal(raw, &v) != nil || v == nil:
		errs = append(errs, field.Invalid(op.Child("parameters"), "<value omitted>", "parameters must be a valid JSON object"))
	}
	return errs
}

func validateRequestRefs(refs []string, known func(string) bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, r := range refs {
		switch {
		case r == "":
			errs = append(errs, field.Required(p.Index(i), ""))
		case !known(r):
			errs = append(errs, field.Invalid(p.Index(i), r, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"))
		case seen[r]:
			errs = append(errs, field.Duplicate(p.Index(i), r))
		}
		seen[r] = true
	}
	return errs
}

func validateDNSLabel(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateDriverName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > 63 {
		errs = append(errs, field.TooLong(p, "", 63))
	}
	for _, msg := range utilvalidation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// validatePoolName checks a pool name: one or more DNS subdomains
// separated by slashes.
func validatePoolName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > 253 {
		errs = append(errs, field.TooLong(p, "", 253))
	}
	for _, part := range strings.Split(name, "/") {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(part) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
	}
	return errs
}

// validateFullyQualifiedName checks "domain/identifier".
func validateFullyQualifiedName(name resourcev1.FullyQualifiedName, p *field.Path) field.ErrorList {
	domain, id, ok := strings.Cut(string(name), "/")
	if !ok || domain == "" {
		return field.ErrorList{field.Required(p, "must include a domain")}
	}
	errs := validateQualifiedName(resourcev1.QualifiedName(domain+"/"+id), p)
	return errs
}

// validateQualifiedName checks an attribute or capacity name: a C
// identifier of at most 32 characters, with an optional DNS subdomain
// prefix.
func validateQualifiedName(name resourcev1.QualifiedName, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	domain, id, hasDomain := strings.Cut(string(name), "/")
	if !hasDomain {
		id = string(name)
	}
	if hasDomain {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(domain) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
	}
	if id == "" {
		errs = append(errs, field.Required(p, "name required"))
	} else {
		for _, msg := range utilvalidation.IsCIdentifier(id) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
		if len(id) > 32 {
			errs = append(errs, field.TooLong(p, "", 32))
		}
	}
	return errs
}

// ValidateResourceSlice checks a ResourceSlice.
func ValidateResourceSlice(s *resourcev1.ResourceSlice) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&s.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	errs = append(errs, validateDriverName(s.Spec.Driver, sp.Child("driver"))...)
	pp := sp.Child("pool")
	errs = append(errs, validatePoolName(s.Spec.Pool.Name, pp.Child("name"))...)
	if s.Spec.Pool.ResourceSliceCount <= 0 {
		errs = append(errs, field.Invalid(pp.Child("resourceSliceCount"), s.Spec.Pool.ResourceSliceCount, "must be greater than zero"))
	}
	if s.Spec.Pool.Generation < 0 {
		errs = append(errs, field.Invalid(pp.Child("generation"), s.Spec.Pool.Generation, "must be greater than or equal to zero"))
	}
	set := 0
	if s.Spec.NodeName != nil {
		set++
		for _, msg := range apivalidation.NameIsDNSSubdomain(*s.Spec.NodeName, false) {
			errs = append(errs, field.Invalid(sp.Child("nodeName"), *s.Spec.NodeName, msg))
		}
	}
	if s.Spec.NodeSelector != nil {
		set++
		if len(s.Spec.NodeSelector.NodeSelectorTerms) == 0 {
			errs = append(errs, field.Required(sp.Child("nodeSelector", "nodeSelectorTerms"), "must have at least one node selector term"))
		}
	}
	if s.Spec.AllNodes != nil && *s.Spec.AllNodes {
		set++
	}
	perDevice := s.Spec.PerDeviceNodeSelection != nil && *s.Spec.PerDeviceNodeSelection
	if perDevice {
		set++
	}
	switch {
	case set == 0:
		errs = append(errs, field.Required(sp, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"))
	case set > 1:
		errs = append(errs, field.Invalid(sp, "{`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`}", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"))
	}
	if len(s.Spec.Devices) > maxDevicesPerSlice {
		errs = append(errs, field.TooMany(sp.Child("devices"), len(s.Spec.Devices), maxDevicesPerSlice))
	}
	names := map[string]bool{}
	for i, d := range s.Spec.Devices {
		dp := sp.Child("devices").Index(i)
		errs = append(errs, validateDNSLabel(d.Name, dp.Child("name"))...)
		if names[d.Name] {
			errs = append(errs, field.Duplicate(dp.Child("name"), d.Name))
		}
		names[d.Name] = true
		if n := len(d.Attributes) + len(d.Capacity); n > maxAttributesCapacity {
			errs = append(errs, field.Invalid(dp, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", maxAttributesCapacity)))
		}
		for name, a := range d.Attributes {
			ap := dp.Child("attributes").Key(string(name))
			errs = append(errs, validateQualifiedName(name, ap)...)
			errs = append(errs, validateAttribute(a, ap)...)
		}
		for name, c := range d.Capacity {
			cp := dp.Child("capacity").Key(string(name))
			errs = append(errs, validateQualifiedName(name, cp)...)
			if c.Value.Sign() < 0 {
				errs = append(errs, field.Invalid(cp.Child("value"), c.Value.String(), apivalidation.IsNegativeErrorMsg))
			}
		}
		deviceSet := 0
		for _, b := range []bool{d.NodeName != nil, d.NodeSelector != nil, d.AllNodes != nil && *d.AllNodes} {
			if b {
				deviceSet++
			}
		}
		switch {
		case perDevice && deviceSet != 1:
			errs = append(errs, field.Required(dp, "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
		case !perDevice && deviceSet > 0:
			errs = append(errs, field.Invalid(dp, d.Name, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
		}
		for j, t := range d.Taints {
			tp := dp.Child("taints").Index(j)
			errs = append(errs, apivalidation.ValidateLabelName(t.Key, tp.Child("key"))...)
			for _, msg := range utilvalidation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(tp.Child("value"), t.Value, msg))
			}
			switch {
			case t.Effect == "":
				errs = append(errs, field.Required(tp.Child("effect"), ""))
			case !oneOf(t.Effect, taintEffects):
				errs = append(errs, field.NotSupported(tp.Child("effect"), t.Effect, taintEffects))
			}
		}
	}
	return errs
}

func validateAttribute(a resourcev1.DeviceAttribute, p *field.Path) field.ErrorList {
	n := 0
	var errs field.ErrorList
	if a.IntValue != nil {
		n++
	}
	if a.BoolValue != nil {
		n++
	}
	if a.StringValue != nil {
		n++
		if len(*a.StringValue) > maxAttributeStringLen {
			errs = append(errs, field.TooLong(p.Child("string"), "", maxAttributeStringLen))
		}
	}
	if a.VersionValue != nil {
		n++
		if len(*a.VersionValue) > maxAttributeStringLen {
			errs = append(errs, field.TooLong(p.Child("version"), "", maxAttributeStringLen))
		}
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(p, "exactly one value must be specified"))
	case n > 1:
		errs = append(errs, field.Invalid(p, a, "exactly one value must be specified"))
	}
	return errs
}

// ValidateResourceSliceUpdate checks an update of a ResourceSlice: driver
// and node name are immutable.
func ValidateResourceSliceUpdate(s, old *resourcev1.ResourceSlice) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateResourceSlice(s)...)
	errs = append(errs, apivalidation.ValidateImmutableField(s.Spec.NodeName, old.Spec.NodeName, field.NewPath("spec", "nodeName"))...)
	return append(errs, apivalidation.ValidateImmutableField(s.Spec.Driver, old.Spec.Driver, field.NewPath("spec", "driver"))...)
}

func oneOf[T comparable](v T, set []T) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}
