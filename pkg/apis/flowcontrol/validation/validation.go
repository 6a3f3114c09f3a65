// Package validation checks the flowcontrol.apiserver.k8s.io/v1 kinds as
// the Kubernetes API server does.
package validation

import (
	"fmt"
	"math"
	"slices"
	"strings"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// maxHashBits is the entropy a flow's hand of queues may take.
const maxHashBits = 60

// ValidateFlowSchema checks a FlowSchema.
func ValidateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&fs.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	s := fs.Spec
	if p := s.MatchingPrecedence; p <= 0 || p > 10000 {
		errs = append(errs, field.Invalid(sp.Child("matchingPrecedence"), p, "must be a positive value no more than 10000"))
	}
	if d := s.DistinguisherMethod; d != nil && d.Type != flowcontrolv1.FlowDistinguisherMethodByUserType && d.Type != flowcontrolv1.FlowDistinguisherMethodByNamespaceType {
		errs = append(errs, field.NotSupported(sp.Child("distinguisherMethod", "type"), d.Type, []string{"ByNamespace", "ByUser"}))
	}
	plp := sp.Child("priorityLevelConfiguration", "name")
	if s.PriorityLevelConfiguration.Name == "" {
		errs = append(errs, field.Required(plp, "must reference a priority level"))
	} else {
		for _, msg := range validation.IsDNS1123Subdomain(s.PriorityLevelConfiguration.Name) {
			errs = append(errs, field.Invalid(plp, s.PriorityLevelConfiguration.Name, msg))
		}
	}
	for i, r := range s.Rules {
		errs = append(errs, validateRules(r, sp.Child("rules").Index(i))...)
	}
	return errs
}

// ValidateFlowSchemaUpdate checks an update.
func ValidateFlowSchemaUpdate(fs, old *flowcontrolv1.FlowSchema) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&fs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateFlowSchema(fs)...)
}

// ValidateFlowSchemaStatusUpdate checks an update of the status.
func ValidateFlowSchemaStatusUpdate(fs, old *flowcontrolv1.FlowSchema) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&fs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	cp := field.NewPath("status", "conditions")
	seen := map[flowcontrolv1.FlowSchemaConditionType]bool{}
	for i, c := range fs.Status.Conditions {
		if c.Type == "" {
			errs = append(errs, field.Required(cp.Index(i).Child("type"), "must not be empty"))
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(cp.Index(i).Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}

func validateRules(r flowcontrolv1.PolicyRulesWithSubjects, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i, s := range r.Subjects {
		errs = append(errs, validateSubject(s, p.Child("subjects").Index(i))...)
	}
	if len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i, rr := range r.ResourceRules {
		rp := p.Child("resourceRules").Index(i)
		errs = append(errs, wildcardList(rr.Verbs, rp.Child("verbs"), "verbs")...)
		errs = append(errs, wildcardList(rr.APIGroups, rp.Child("apiGroups"), "api groups")...)
		errs = append(errs, wildcardList(rr.Resources, rp.Child("resources"), "resources")...)
		np := rp.Child("namespaces")
		if len(rr.Namespaces) == 0 && !rr.ClusterScope {
			errs = append(errs, field.Required(np, "resource rules that are not cluster scoped must supply at least one namespace"))
		} else if len(rr.Namespaces) > 1 && slices.Contains(rr.Namespaces, flowcontrolv1.NamespaceEvery) {
			errs = append(errs, field.Invalid(np, rr.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
		for j, ns := range rr.Namespaces {
			if ns == flowcontrolv1.NamespaceEvery {
				continue
			}
			for _, msg := range validation.IsDNS1123Label(ns) {
				errs = append(errs, field.Invalid(np.Index(j), ns, msg))
			}
		}
	}
	for i, nr := range r.NonResourceRules {
		np := p.Child("nonResourceRules").Index(i)
		errs = append(errs, wildcardList(nr.Verbs, np.Child("verbs"), "verbs")...)
		up := np.Child("nonResourceURLs")
		errs = append(errs, wildcardList(nr.NonResourceURLs, up, "non-resource urls")...)
		for j, u := range nr.NonResourceURLs {
			switch {
			case u == flowcontrolv1.NonResourceAll:
			case u == "":
				errs = append(errs, field.Invalid(up.Index(j), u, "must not be empty"))
			case !strings.HasPrefix(u, "/"):
				errs = append(errs, field.Invalid(up.Index(j), u, "must start with slash"))
			case strings.Contains(strings.TrimSuffix(u, "*"), "*"):
				errs = append(errs, field.Invalid(up.Index(j), u, "wildcard is only allowed as the last character"))
			case strings.HasSuffix(u, "*") && !strings.HasSuffix(u, "/*"):
				errs = append(errs, field.Invalid(up.Index(j), u, "wildcard must be prefixed by a slash"))
			}
		}
	}
	return errs
}

// wildcardList checks a list of a rule: not empty, and "*" alone.
func wildcardList(values []string, p *field.Path, what string) field.ErrorList {
	if len(values) == 0 {
		return field.ErrorList{field.Required(p, what+" must contain at least one value")}
	}
	if len(values) > 1 && slices.Contains(values, "*") {
		return field.ErrorList{field.Invalid(p, values, "if '*' is present, must not specify other "+what)}
	}
	return nil
}

func validateSubject(s flowcontrolv1.Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return append(errs, field.Required(p.Child("serviceAccount"), "serviceAccount is required when subject kind is 'ServiceAccount'"))
		}
		sp := p.Child("serviceAccount")
		if s.ServiceAccount.Name == "" {
			errs = append(errs, field.Required(sp.Child("name"), ""))
		} else if s.ServiceAccount.Name != flowcontrolv1.NameAll {
			for _, msg := range apivalidation.NameIsDNSSubdomain(s.ServiceAccount.Name, false) {
				errs = append(errs, field.Invalid(sp.Child("name"), s.ServiceAccount.Name, msg))
			}
		}
		if s.ServiceAccount.Namespace == "" {
			errs = append(errs, field.Required(sp.Child("namespace"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Label(s.ServiceAccount.Namespace) {
				errs = append(errs, field.Invalid(sp.Child("namespace"), s.ServiceAccount.Namespace, msg))
			}
		}
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			return append(errs, field.Required(p.Child("user"), "user is required when subject kind is 'User'"))
		}
		if s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), ""))
		}
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			return append(errs, field.Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		}
		if s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), ""))
		}
	default:
		return append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{"Group", "ServiceAccount", "User"}))
	}
	for _, other := range []struct {
		kind  flowcontrolv1.SubjectKind
		child string
		set   bool
	}{{flowcontrolv1.SubjectKindServiceAccount, "serviceAccount", s.ServiceAccount != nil}, {flowcontrolv1.SubjectKindUser, "user", s.User != nil}, {flowcontrolv1.SubjectKindGroup, "group", s.Group != nil}} {
		if other.set && other.kind != s.Kind {
			errs = append(errs, field.Forbidden(p.Child(other.child), fmt.Sprintf("%s is forbidden when subject kind is '%s'", other.child, s.Kind)))
		}
	}
	return errs
}

// ValidatePriorityLevelConfiguration checks a PriorityLevelConfiguration.
func ValidatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&pl.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	s := pl.Spec
	if (pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (s.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		errs = append(errs, field.Invalid(sp.Child("type"), s.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
	}
	switch s.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if s.Limited != nil {
			errs = append(errs, field.Forbidden(sp.Child("limited"), "must be nil if the type is not Limited"))
		}
		if e := s.Exempt; e != nil {
			errs = append(errs, nonNegative(e.NominalConcurrencyShares, sp.Child("exempt", "nominalConcurrencyShares"))...)
			errs = append(errs, percent(e.LendablePercent, sp.Child("exempt", "lendablePercent"))...)
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if s.Exempt != nil {
			errs = append(errs, field.Forbidden(sp.Child("exempt"), "must be nil if the type is Limited"))
		}
		l := s.Limited
		if l == nil {
			errs = append(errs, field.Required(sp.Child("limited"), "must not be empty when type is Limited"))
			break
		}
		lp := sp.Child("limited")
		errs = append(errs, nonNegative(l.NominalConcurrencyShares, lp.Child("nominalConcurrencyShares"))...)
		errs = append(errs, percent(l.LendablePercent, lp.Child("lendablePercent"))...)
		if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
			errs = append(errs, field.Invalid(lp.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
		}
		errs = append(errs, validateLimitResponse(l.LimitResponse, lp.Child("limitResponse"))...)
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), s.Type, []string{"Exempt", "Limited"}))
	}
	return errs
}

func nonNegative(v *int32, p *field.Path) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(p, *v, "must be a non-negative integer")}
	}
	return nil
}

func percent(v *int32, p *field.Path) field.ErrorList {
	if v != nil && (*v < 0 || *v > 100) {
		return field.ErrorList{field.Invalid(p, *v, "must be between 0 and 100, inclusive")}
	}
	return nil
}

func validateLimitResponse(r flowcontrolv1.LimitResponse, p *field.Path) field.ErrorList {
	switch r.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if r.Queuing != nil {
			return field.ErrorList{field.Forbidden(p.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited")}
		}
		return nil
	case flowcontrolv1.LimitResponseTypeQueue:
		q := r.Queuing
		if q == nil {
			return field.ErrorList{field.Required(p.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited")}
		}
		return validateQueuing(q, p.Child("queuing"))
	}
	return field.ErrorList{field.NotSupported(p.Child("type"), r.Type, []string{"Queue", "Reject"})}
}

func validateQueuing(q *flowcontrolv1.QueuingConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, "must be positive"))
	}
	if q.HandSize <= 0 {
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, "must be positive"))
	} else if q.Queues > 0 {
		if q.HandSize > q.Queues {
			errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
		} else if bits := float64(q.HandSize) * math.Log2(float64(q.Queues)); bits > maxHashBits {
			errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize,
				fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
		}
	}
	return errs
}

// ValidatePriorityLevelConfigurationUpdate checks an update.
func ValidatePriorityLevelConfigurationUpdate(pl, old *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&pl.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidatePriorityLevelConfiguration(pl)...)
}

// ValidatePriorityLevelConfigurationStatusUpdate checks an update of the
// status.
func ValidatePriorityLevelConfigurationStatusUpdate(pl, old *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&pl.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	cp := field.NewPath("status", "conditions")
	seen := map[flowcontrolv1.PriorityLevelConfigurationConditionType]bool{}
	for i, c := range pl.Status.Conditions {
		if c.Type == "" {
			errs = append(errs, field.Required(cp.Index(i).Child("type"), "must not be empty"))
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(cp.Index(i).Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}
