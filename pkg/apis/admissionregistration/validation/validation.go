// Package validation checks the admissionregistration.k8s.io/v1 kinds as
// the Kubernetes API server does: webhook configurations, admission
// policies and their bindings. Webhooks' matchConditions are parsed here
// (a syntax error is refused, as Kubernetes refuses it); type-checking CEL
// expressions is the admission plugins' business.
package validation

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// maxMatchConditions is how many match conditions a webhook or policy may
// have.
const maxMatchConditions = 64

func metadata(m *metav1.ObjectMeta) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

func metadataUpdate(m, old *metav1.ObjectMeta) field.ErrorList {
	return apivalidation.ValidateObjectMetaUpdate(m, old, field.NewPath("metadata"))
}

// ValidateValidatingWebhookConfiguration checks a validating webhook
// configuration.
func ValidateValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	errs := metadata(&c.ObjectMeta)
	names := map[string]bool{}
	for i, w := range c.Webhooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(webhook{w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector,
			w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.MatchConditions}, names, p)...)
	}
	return errs
}

// ValidateValidatingWebhookConfigurationUpdate checks an update.
func ValidateValidatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	return append(metadataUpdate(&c.ObjectMeta, &old.ObjectMeta), ValidateValidatingWebhookConfiguration(c)...)
}

// ValidateMutatingWebhookConfiguration checks a mutating webhook
// configuration.
func ValidateMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	errs := metadata(&c.ObjectMeta)
	names := map[string]bool{}
	for i, w := range c.Webhooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(webhook{w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector,
			w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.MatchConditions}, names, p)...)
		if r := w.ReinvocationPolicy; r != nil && *r != admissionregistrationv1.NeverReinvocationPolicy && *r != admissionregistrationv1.IfNeededReinvocationPolicy {
			errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), *r, []string{"IfNeeded", "Never"}))
		}
	}
	return errs
}

// ValidateMutatingWebhookConfigurationUpdate checks an update.
func ValidateMutatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	return append(metadataUpdate(&c.ObjectMeta, &old.ObjectMeta), ValidateMutatingWebhookConfiguration(c)...)
}

// webhook is what validating and mutating webhooks share.
type webhook struct {
	name              string
	clientConfig      admissionregistrationv1.WebhookClientConfig
	rules             []admissionregistrationv1.RuleWithOperations
	failurePolicy     *admissionregistrationv1.FailurePolicyType
	matchPolicy       *admissionregistrationv1.MatchPolicyType
	namespaceSelector *metav1.LabelSelector
	objectSelector    *metav1.LabelSelector
	sideEffects       *admissionregistrationv1.SideEffectClass
	timeoutSeconds    *int32
	reviewVersions    []string
	matchConditions   []admissionregistrationv1.MatchCondition
}

func validateWebhook(w webhook, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("name")
	switch {
	case w.name == "":
		errs = append(errs, field.Required(np, ""))
	default:
		if msgs := validation.IsDNS1123Subdomain(w.name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(np, w.name, strings.Join(msgs, ",")))
		} else if len(strings.Split(w.name, ".")) < 3 {
			errs = append(errs, field.Invalid(np, w.name, "should be a domain with at least three segments separated by dots"))
		}
		if names[w.name] {
			errs = append(errs, field.Duplicate(np, w.name))
		}
		names[w.name] = true
	}
	for i, r := range w.rules {
		errs = append(errs, validateRuleWithOperations(r, p.Child("rules").Index(i))...)
	}
	errs = append(errs, validateFailurePolicy(w.failurePolicy, p.Child("failurePolicy"))...)
	errs = append(errs, validateMatchPolicy(w.matchPolicy, p.Child("matchPolicy"))...)
	errs = append(errs, apivalidation.ValidateLabelSelector(w.namespaceSelector, p.Child("namespaceSelector"))...)
	errs = append(errs, apivalidation.ValidateLabelSelector(w.objectSelector, p.Child("objectSelector"))...)
	switch se := w.sideEffects; {
	case se == nil:
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of None, NoneOnDryRun"))
	case *se != admissionregistrationv1.SideEffectClassNone && *se != admissionregistrationv1.SideEffectClassNoneOnDryRun:
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *se, []string{"None", "NoneOnDryRun"}))
	}
	if t := w.timeoutSeconds; t != nil && (*t < 1 || *t > 30) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateReviewVersions(w.reviewVersions, p.Child("admissionReviewVersions"))...)
	errs = append(errs, validateClientConfig(w.clientConfig, p.Child("clientConfig"))...)
	errs = append(errs, validateMatchConditions(w.matchConditions, p.Child("matchConditions"))...)
	return append(errs, compileWebhookConditions(w.matchConditions, p.Child("matchConditions"))...)
}

// compileWebhookConditions refuses a webhook's matchConditions that do
// not parse, as Kubernetes refuses them at create and update ("compilation
// failed"): one stored would fail every write the webhook's rules match.
// Only the syntax is checked here: the type check needs the CEL library of
// pkg/cel, which this types-side package may not import; the webhook
// admission plugin type-checks when it compiles (a failure is then the
// webhook's failurePolicy).
func compileWebhookConditions(conds []admissionregistrationv1.MatchCondition, p *field.Path) field.ErrorList {
	if len(conds) == 0 {
		return nil
	}
	env, err := cel.NewEnv()
	if err != nil {
		return field.ErrorList{field.InternalError(p, fmt.Errorf("matchConditions environment: %w", err))}
	}
	var errs field.ErrorList
	for i, c := range conds {
		if strings.TrimSpace(c.Expression) == "" {
			continue
		}
		if _, iss := env.Parse(c.Expression); iss.Err() != nil {
			errs = append(errs, field.Invalid(p.Index(i).Child("expression"), c.Expression, fmt.Sprintf("compilation failed: %v", iss.Err())))
		}
	}
	return errs
}

func validateReviewVersions(versions []string, p *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of v1, v1beta1")}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	known := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Duplicate(p.Index(i), v))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		known = known || v == "v1" || v == "v1beta1"
	}
	if !known {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

func validateClientConfig(cc admissionregistrationv1.WebhookClientConfig, p *field.Path) field.ErrorList {
	if (cc.URL == nil) == (cc.Service == nil) {
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	}
	if cc.URL != nil {
		return validateURL(*cc.URL, p.Child("url"))
	}
	s, sp := cc.Service, p.Child("service")
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(sp.Child("name"), "service name is required"))
	}
	if s.Namespace == "" {
		errs = append(errs, field.Required(sp.Child("namespace"), "service namespace is required"))
	}
	if s.Port != nil {
		if msgs := validation.IsValidPortNum(int(*s.Port)); len(msgs) > 0 {
			errs = append(errs, field.Invalid(sp.Child("port"), *s.Port, "port is not valid: "+strings.Join(msgs, ", ")))
		}
	}
	if s.Path == nil {
		return errs
	}
	path, pp := *s.Path, sp.Child("path")
	if path == "/" || path == "" {
		return errs
	}
	if !strings.HasPrefix(path, "/") {
		return append(errs, field.Invalid(pp, path, "must start with a '/'"))
	}
	for i, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if seg == "" {
			errs = append(errs, field.Invalid(pp, path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(seg)) {
			errs = append(errs, field.Invalid(pp, path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

func validateURL(raw string, p *field.Path) field.ErrorList {
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Invalid(p, raw, fmt.Sprintf("must be a valid URL: %v", err))}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

func validateFailurePolicy(fp *admissionregistrationv1.FailurePolicyType, p *field.Path) field.ErrorList {
	if fp != nil && *fp != admissionregistrationv1.Fail && *fp != admissionregistrationv1.Ignore {
		return field.ErrorList{field.NotSupported(p, *fp, []string{"Fail", "Ignore"})}
	}
	return nil
}

func validateMatchPolicy(mp *admissionregistrationv1.MatchPolicyType, p *field.Path) field.ErrorList {
	if mp != nil && *mp != admissionregistrationv1.Equivalent && *mp != admissionregistrationv1.Exact {
		return field.ErrorList{field.NotSupported(p, *mp, []string{"Equivalent", "Exact"})}
	}
	return nil
}

// validateRuleWithOperations checks the operations, then the rule.
func validateRuleWithOperations(r admissionregistrationv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	op := p.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(op, ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionregistrationv1.OperationAll) {
		errs = append(errs, field.Invalid(op, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, o := range r.Operations {
		switch o {
		case admissionregistrationv1.OperationAll, admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete, admissionregistrationv1.Connect:
		default:
			errs = append(errs, field.NotSupported(op.Index(i), o, []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}))
		}
	}
	return append(errs, validateRule(r.Rule, p)...)
}

// validateRule checks groups, versions, resources and scope.
func validateRule(r admissionregistrationv1.Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	list := func(values []string, name, what string, emptyOK bool) {
		lp := p.Child(name)
		if len(values) == 0 {
			errs = append(errs, field.Required(lp, ""))
			return
		}
		if len(values) > 1 && slices.Contains(values, "*") {
			errs = append(errs, field.Invalid(lp, values, "if '*' is present, must not specify other "+what))
		}
		for i, v := range values {
			if v == "" && !emptyOK {
				errs = append(errs, field.Required(lp.Index(i), ""))
			}
		}
	}
	list(r.APIGroups, "apiGroups", "API groups", true)
	list(r.APIVersions, "apiVersions", "API versions", false)
	errs = append(errs, validateResources(r.Resources, p.Child("resources"))...)
	if s := r.Scope; s != nil && *s != admissionregistrationv1.AllScopes && *s != admissionregistrationv1.ClusterScope && *s != admissionregistrationv1.NamespacedScope {
		errs = append(errs, field.NotSupported(p.Child("scope"), *s, []string{"*", "Cluster", "Namespaced"}))
	}
	return errs
}

// validateResources checks the resources of a rule: "*" and "*/*" stand
// alone, and a subresource wildcard excludes naming the same subresource.
func validateResources(resources []string, p *field.Path) field.ErrorList {
	if len(resources) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	subsOf := map[string][]string{} // resource -> subresources
	for i, r := range resources {
		if r == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		res, sub, _ := strings.Cut(r, "/")
		subsOf[res] = append(subsOf[res], sub)
	}
	if len(resources) > 1 && slices.Contains(resources, "*/*") {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if slices.Contains(subsOf["*"], "") && slices.ContainsFunc(resources, func(r string) bool { return r != "*" && !strings.Contains(r, "/") }) {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	for _, sub := range subsOf["*"] {
		if sub == "" || sub == "*" {
			continue
		}
		for res, subs := range subsOf {
			if res != "*" && slices.Contains(subs, sub) {
				errs = append(errs, field.Invalid(p, resources, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, res+"/"+sub)))
			}
		}
	}
	return errs
}

func validateMatchConditions(conds []admissionregistrationv1.MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(conds), maxMatchConditions))
	}
	seen := map[string]bool{}
	for i, c := range conds {
		cp := p.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			for _, msg := range validation.IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
			}
			if seen[c.Name] {
				errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
			}
			seen[c.Name] = true
		}
		if strings.TrimSpace(c.Expression) == "" {
			errs = append(errs, field.Required(cp.Child("expression"), ""))
		}
	}
	return errs
}

func validateParamKind(pk *admissionregistrationv1.ParamKind, p *field.Path) field.ErrorList {
	if pk == nil {
		return nil
	}
	var errs field.ErrorList
	if pk.APIVersion == "" {
		errs = append(errs, field.Required(p.Child("apiVersion"), ""))
	} else if gv, err := schema.ParseGroupVersion(pk.APIVersion); err != nil {
		errs = append(errs, field.Invalid(p.Child("apiVersion"), pk.APIVersion, err.Error()))
	} else if gv.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(gv.Group) {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), gv.Group, msg))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if msgs := validation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// validateMatchResources checks match constraints; a policy's must have
// resource rules, a binding's may leave them to the policy.
func validateMatchResources(m *admissionregistrationv1.MatchResources, p *field.Path, needRules bool) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else {
		errs = append(errs, validateMatchPolicy(m.MatchPolicy, p.Child("matchPolicy"))...)
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, field.Required(p.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, apivalidation.ValidateLabelSelector(m.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, field.Required(p.Child("objectSelector"), ""))
	} else {
		errs = append(errs, apivalidation.ValidateLabelSelector(m.ObjectSelector, p.Child("objectSelector"))...)
	}
	if needRules && len(m.ResourceRules) == 0 {
		errs = append(errs, field.Required(p.Child("resourceRules"), ""))
	}
	for _, rules := range []struct {
		name  string
		rules []admissionregistrationv1.NamedRuleWithOperations
	}{{"resourceRules", m.ResourceRules}, {"excludeResourceRules", m.ExcludeResourceRules}} {
		for i, r := range rules.rules {
			rp := p.Child(rules.name).Index(i)
			for j, n := range r.ResourceNames {
				for _, msg := range pathSegmentName(n) {
					errs = append(errs, field.Invalid(rp.Child("resourceNames").Index(j), n, msg))
				}
			}
			errs = append(errs, validateRuleWithOperations(r.RuleWithOperations, rp)...)
		}
	}
	return errs
}

// pathSegmentName refuses the names that cannot be one segment of a path.
func pathSegmentName(name string) []string {
	if name == "." || name == ".." {
		return []string{fmt.Sprintf("may not be '%s'", name)}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return msgs
}

func validateVariables(vars []admissionregistrationv1.Variable, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vars {
		vp := p.Index(i)
		if v.Name == "" {
			errs = append(errs, field.Required(vp.Child("name"), ""))
		} else if len(validation.IsCIdentifier(v.Name)) > 0 {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, "name is not a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, field.Required(vp.Child("expression"), ""))
		}
	}
	return errs
}

// ValidateValidatingAdmissionPolicy checks a validating admission policy.
func ValidateValidatingAdmissionPolicy(vap *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	errs := metadata(&vap.ObjectMeta)
	sp := field.NewPath("spec")
	s := vap.Spec
	errs = append(errs, validateParamKind(s.ParamKind, sp.Child("paramKind"))...)
	if s.MatchConstraints == nil {
		errs = append(errs, field.Required(sp.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(s.MatchConstraints, sp.Child("matchConstraints"), true)...)
	}
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		errs = append(errs, field.Required(sp.Child("validations"), "validations or auditAnnotations must contain at least one item"),
			field.Required(sp.Child("auditAnnotations"), "validations or auditAnnotations must contain at least one item"))
	}
	for i, v := range s.Validations {
		vp := sp.Child("validations").Index(i)
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, field.Required(vp.Child("expression"), ""))
		}
		if strings.ContainsAny(v.Message, "\r\n") {
			errs = append(errs, field.Invalid(vp.Child("message"), v.Message, "message must not contain line breaks"))
		} else if len(strings.TrimSpace(v.Message)) == 0 && len(v.Message) > 0 {
			errs = append(errs, field.Invalid(vp.Child("message"), v.Message, "message must be non-empty if specified"))
		}
		if r := v.Reason; r != nil {
			switch *r {
			case metav1.StatusReasonUnauthorized, metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge:
			default:
				errs = append(errs, field.NotSupported(vp.Child("reason"), *r, []string{"Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"}))
			}
		}
	}
	errs = append(errs, validateFailurePolicy(s.FailurePolicy, sp.Child("failurePolicy"))...)
	keys := map[string]bool{}
	for i, a := range s.AuditAnnotations {
		ap := sp.Child("auditAnnotations").Index(i)
		if a.Key == "" {
			errs = append(errs, field.Required(ap.Child("key"), ""))
		} else {
			for _, msg := range validation.IsQualifiedName(vap.Name + "/" + a.Key) {
				errs = append(errs, field.Invalid(ap.Child("key"), a.Key, msg))
			}
			if keys[a.Key] {
				errs = append(errs, field.Duplicate(ap.Child("key"), a.Key))
			}
			keys[a.Key] = true
		}
		if strings.TrimSpace(a.ValueExpression) == "" {
			errs = append(errs, field.Required(ap.Child("valueExpression"), "valueExpression is required"))
		}
	}
	errs = append(errs, validateMatchConditions(s.MatchConditions, sp.Child("matchConditions"))...)
	return append(errs, validateVariables(s.Variables, sp.Child("variables"))...)
}

// ValidateValidatingAdmissionPolicyUpdate checks an update.
func ValidateValidatingAdmissionPolicyUpdate(vap, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	return append(metadataUpdate(&vap.ObjectMeta, &old.ObjectMeta), ValidateValidatingAdmissionPolicy(vap)...)
}

// ValidateValidatingAdmissionPolicyStatusUpdate checks an update of the
// status: each condition as metav1 conditions are checked.
func ValidateValidatingAdmissionPolicyStatusUpdate(vap, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	errs := metadataUpdate(&vap.ObjectMeta, &old.ObjectMeta)
	cp := field.NewPath("status", "conditions")
	types := map[string]bool{}
	for i, c := range vap.Status.Conditions {
		p := cp.Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), "must be set"))
		} else {
			for _, msg := range validation.IsQualifiedName(c.Type) {
				errs = append(errs, field.Invalid(p.Child("type"), c.Type, msg))
			}
			if types[c.Type] {
				errs = append(errs, field.Duplicate(p.Child("type"), c.Type))
			}
			types[c.Type] = true
		}
		switch c.Status {
		case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(p.Child("status"), c.Status, []string{"False", "True", "Unknown"}))
		}
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(p.Child("observedGeneration"), c.ObservedGeneration, "must be greater than or equal to zero"))
		}
		if c.LastTransitionTime.IsZero() {
			errs = append(errs, field.Required(p.Child("lastTransitionTime"), "must be set"))
		}
		if c.Reason == "" {
			errs = append(errs, field.Required(p.Child("reason"), "must be set"))
		}
	}
	return errs
}

func validateParamRef(pr *admissionregistrationv1.ParamRef, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	switch {
	case pr.Name != "" && pr.Selector != nil:
		errs = append(errs, field.Forbidden(p.Child("name"), `name and selector are mutually exclusive`))
	case pr.Name == "" && pr.Selector == nil:
		errs = append(errs, field.Required(p, `one of name or selector must be specified`))
	case pr.Name != "":
		for _, msg := range pathSegmentName(pr.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), pr.Name, msg))
		}
	default:
		errs = append(errs, apivalidation.ValidateLabelSelector(pr.Selector, p.Child("selector"))...)
	}
	if pr.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(pr.Namespace) {
			errs = append(errs, field.Invalid(p.Child("namespace"), pr.Namespace, msg))
		}
	}
	switch a := pr.ParameterNotFoundAction; {
	case a == nil:
		errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	case *a != admissionregistrationv1.AllowAction && *a != admissionregistrationv1.DenyAction:
		errs = append(errs, field.NotSupported(p.Child("parameterNotFoundAction"), *a, []string{"Allow", "Deny"}))
	}
	return errs
}

func validatePolicyName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// ValidateValidatingAdmissionPolicyBinding checks a binding.
func ValidateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	errs := metadata(&b.ObjectMeta)
	sp := field.NewPath("spec")
	errs = append(errs, validatePolicyName(b.Spec.PolicyName, sp.Child("policyName"))...)
	errs = append(errs, validateParamRef(b.Spec.ParamRef, sp.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, sp.Child("matchResources"), false)...)
	ap := sp.Child("validationActions")
	if len(b.Spec.ValidationActions) == 0 {
		errs = append(errs, field.Required(ap, ""))
	}
	seen := map[admissionregistrationv1.ValidationAction]bool{}
	for i, a := range b.Spec.ValidationActions {
		switch {
		case seen[a]:
			errs = append(errs, field.Duplicate(ap.Index(i), a))
		case a != admissionregistrationv1.Deny && a != admissionregistrationv1.Warn && a != admissionregistrationv1.Audit:
			errs = append(errs, field.NotSupported(ap.Index(i), a, []string{"Audit", "Deny", "Warn"}))
		}
		seen[a] = true
	}
	if seen[admissionregistrationv1.Deny] && seen[admissionregistrationv1.Warn] {
		errs = append(errs, field.Invalid(ap, b.Spec.ValidationActions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	return errs
}

// ValidateValidatingAdmissionPolicyBindingUpdate checks an update.
func ValidateValidatingAdmissionPolicyBindingUpdate(b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	return append(metadataUpdate(&b.ObjectMeta, &old.ObjectMeta), ValidateValidatingAdmissionPolicyBinding(b)...)
}

// ValidateMutatingAdmissionPolicy checks a mutating admission policy.
func ValidateMutatingAdmissionPolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	errs := metadata(&policy.ObjectMeta)
	sp := field.NewPath("spec")
	s := policy.Spec
	errs = append(errs, validateParamKind(s.ParamKind, sp.Child("paramKind"))...)
	if s.MatchConstraints == nil {
		errs = append(errs, field.Required(sp.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(s.MatchConstraints, sp.Child("matchConstraints"), true)...)
	}
	errs = append(errs, validateVariables(s.Variables, sp.Child("variables"))...)
	if len(s.Mutations) == 0 {
		errs = append(errs, field.Required(sp.Child("mutations"), "mutations must contain at least one item"))
	}
	for i, m := range s.Mutations {
		mp := sp.Child("mutations").Index(i)
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration == nil {
				errs = append(errs, field.Required(mp.Child("applyConfiguration"), "applyConfiguration field is required when patchType is 'ApplyConfiguration'"))
			} else if strings.TrimSpace(m.ApplyConfiguration.Expression) == "" {
				errs = append(errs, field.Required(mp.Child("applyConfiguration", "expression"), ""))
			}
			if m.JSONPatch != nil {
				errs = append(errs, field.Forbidden(mp.Child("jsonPatch"), "must not be specified when patchType is ApplyConfiguration"))
			}
		case admissionregistrationv1.PatchTypeJSONPatch:
			if m.JSONPatch == nil {
				errs = append(errs, field.Required(mp.Child("jsonPatch"), "jsonPatch field is required when patchType is 'JSONPatch'"))
			} else if strings.TrimSpace(m.JSONPatch.Expression) == "" {
				errs = append(errs, field.Required(mp.Child("jsonPatch", "expression"), ""))
			}
			if m.ApplyConfiguration != nil {
				errs = append(errs, field.Forbidden(mp.Child("applyConfiguration"), "must not be specified when patchType is JSONPatch"))
			}
		case "":
			errs = append(errs, field.Required(mp.Child("patchType"), ""))
		default:
			errs = append(errs, field.NotSupported(mp.Child("patchType"), m.PatchType, []string{"ApplyConfiguration", "JSONPatch"}))
		}
	}
	errs = append(errs, validateFailurePolicy(s.FailurePolicy, sp.Child("failurePolicy"))...)
	errs = append(errs, validateMatchConditions(s.MatchConditions, sp.Child("matchConditions"))...)
	switch s.ReinvocationPolicy {
	case admissionregistrationv1.NeverReinvocationPolicy, admissionregistrationv1.IfNeededReinvocationPolicy:
	case "":
		errs = append(errs, field.Required(sp.Child("reinvocationPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(sp.Child("reinvocationPolicy"), s.ReinvocationPolicy, []string{"IfNeeded", "Never"}))
	}
	return errs
}

// ValidateMutatingAdmissionPolicyUpdate checks an update.
func ValidateMutatingAdmissionPolicyUpdate(p, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	return append(metadataUpdate(&p.ObjectMeta, &old.ObjectMeta), ValidateMutatingAdmissionPolicy(p)...)
}

// ValidateMutatingAdmissionPolicyBinding checks a binding.
func ValidateMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	errs := metadata(&b.ObjectMeta)
	sp := field.NewPath("spec")
	errs = append(errs, validatePolicyName(b.Spec.PolicyName, sp.Child("policyName"))...)
	errs = append(errs, validateParamRef(b.Spec.ParamRef, sp.Child("paramRef"))...)
	return append(errs, validateMatchResources(b.Spec.MatchResources, sp.Child("matchResources"), false)...)
}

// ValidateMutatingAdmissionPolicyBindingUpdate checks an update.
func ValidateMutatingAdmissionPolicyBindingUpdate(b, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	return append(metadataUpdate(&b.ObjectMeta, &old.ObjectMeta), ValidateMutatingAdmissionPolicyBinding(b)...)
}
