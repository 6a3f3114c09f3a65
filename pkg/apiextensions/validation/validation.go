// Package validation checks CustomResourceDefinitions as Kubernetes does:
// names, scope, versions, a structural schema per version, printer columns
// and subresources.
package validation

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apiextensions/customresource"
	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
	"kubecore.io/kubecore/pkg/cel"
)

// APIApprovedAnnotation must be on definitions in the protected groups
// (*.k8s.io, *.kubernetes.io).
const APIApprovedAnnotation = "api-approved.kubernetes.io"

// columnTypes are the types of printer columns.
var columnTypes = []string{"integer", "number", "string", "boolean", "date"}

// ValidateCustomResourceDefinition checks a definition being created.
func ValidateCustomResourceDefinition(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	var errs field.ErrorList
	spec := &crd.Spec
	if want := spec.Names.Plural + "." + spec.Group; crd.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name, fmt.Sprintf("must be spec.names.plural+\".\"+spec.group (%q)", want)))
	}
	errs = append(errs, validateSpec(spec, crd.Annotations, field.NewPath("spec"))...)
	return errs
}

// ValidateCustomResourceDefinitionUpdate checks an update: the group, the
// plural and the scope cannot change, and every version objects were
// stored in stays in spec.versions.
func ValidateCustomResourceDefinitionUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	errs := ValidateCustomResourceDefinition(crd)
	p := field.NewPath("spec")
	if crd.Spec.Group != old.Spec.Group {
		errs = append(errs, field.Invalid(p.Child("group"), crd.Spec.Group, "field is immutable"))
	}
	if crd.Spec.Scope != old.Spec.Scope {
		errs = append(errs, field.Invalid(p.Child("scope"), crd.Spec.Scope, "field is immutable"))
	}
	for _, stored := range old.Status.StoredVersions {
		if !slices.ContainsFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == stored }) {
			errs = append(errs, field.Invalid(field.NewPath("status", "storedVersions"), old.Status.StoredVersions,
				fmt.Sprintf("must appear in spec.versions: %s", stored)))
		}
	}
	return errs
}

func validateSpec(spec *apiextensionsv1.CustomResourceDefinitionSpec, annotations map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	group := p.Child("group")
	switch {
	case spec.Group == "":
		errs = append(errs, field.Required(group, ""))
	case len(validation.IsDNS1123Subdomain(spec.Group)) > 0:
		for _, msg := range validation.IsDNS1123Subdomain(spec.Group) {
			errs = append(errs, field.Invalid(group, spec.Group, msg))
		}
	case !strings.Contains(spec.Group, "."):
		errs = append(errs, field.Invalid(group, spec.Group, "should be a domain with at least one dot"))
	case isProtectedGroup(spec.Group) && annotations[APIApprovedAnnotation] == "":
		errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(APIApprovedAnnotation),
			"protected groups must have approval annotation \""+APIApprovedAnnotation+"\", see https://github.com/kubernetes/enhancements/pull/1111"))
	}
	errs = append(errs, validateNames(&spec.Names, p.Child("names"), true)...)
	switch spec.Scope {
	case apiextensionsv1.ClusterScoped, apiextensionsv1.NamespaceScoped:
	case "":
		errs = append(errs, field.Required(p.Child("scope"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("scope"), spec.Scope, []apiextensionsv1.ResourceScope{apiextensionsv1.ClusterScoped, apiextensionsv1.NamespaceScoped}))
	}
	if spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(p.Child("preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	if c := spec.Conversion; c != nil {
		errs = append(errs, validateConversion(c, p.Child("conversion"))...)
	}
	errs = append(errs, validateVersions(spec.Versions, p.Child("versions"))...)
	return errs
}

// validateConversion checks the strategy and, for Webhook, the webhook.
// The paths are those Kubernetes reports (its internal fields
// webhookClientConfig and conversionReviewVersions), so that the messages
// read the same.
func validateConversion(c *apiextensionsv1.CustomResourceConversion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var cc *apiextensionsv1.WebhookClientConfig
	var versions []string
	if c.Webhook != nil {
		cc, versions = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	switch c.Strategy {
	case apiextensionsv1.NoneConverter:
		if cc != nil {
			errs = append(errs, field.Forbidden(p.Child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"))
		}
		if len(versions) > 0 {
			errs = append(errs, field.Forbidden(p.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
		}
	case apiextensionsv1.WebhookConverter:
		if cc == nil {
			errs = append(errs, field.Required(p.Child("webhookClientConfig"), "required when strategy is set to Webhook"))
		} else {
			errs = append(errs, validateWebhookClientConfig(cc, p.Child("webhookClientConfig"))...)
		}
		errs = append(errs, validateConversionReviewVersions(versions, p.Child("conversionReviewVersions"))...)
	case "":
		errs = append(errs, field.Required(p.Child("strategy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("strategy"), c.Strategy, []apiextensionsv1.ConversionStrategyType{apiextensionsv1.NoneConverter, apiextensionsv1.WebhookConverter}))
	}
	return errs
}

func validateConversionReviewVersions(versions []string, p *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	// A webhook must speak one of the ConversionReview versions known.
	known := []string{"v1", "v1beta1"}
	var errs field.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		accepted = accepted || slices.Contains(known, v)
	}
	if !accepted {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of "+strings.Join(known, ", ")))
	}
	return errs
}

// validateWebhookClientConfig: exactly one of an https URL without user
// info, query or fragment, and a Service with a name, a namespace, an
// absolute path and a valid port.
func validateWebhookClientConfig(cc *apiextensionsv1.WebhookClientConfig, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, field.Required(p, "exactly one of url or service is required"))
	case cc.URL != nil:
		up := p.Child("url")
		u, err := url.Parse(*cc.URL)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(up, *cc.URL, "url must be a valid URL: "+err.Error()))
		case u.Scheme != "https":
			errs = append(errs, field.Invalid(up, u.Scheme, "'https' is the only allowed URL scheme"))
		case u.Host == "":
			errs = append(errs, field.Invalid(up, u.Host, "host must be specified"))
		case u.User != nil:
			errs = append(errs, field.Invalid(up, u.User.String(), "user information is not permitted in the URL"))
		case u.Fragment != "":
			errs = append(errs, field.Invalid(up, u.Fragment, "fragments are not permitted in the URL"))
		case u.RawQuery != "":
			errs = append(errs, field.Invalid(up, u.RawQuery, "query parameters are not permitted in the URL"))
		}
	default:
		sp := p.Child("service")
		s := cc.Service
		if s.Name == "" {
			errs = append(errs, field.Required(sp.Child("name"), "service name is required"))
		}
		if s.Namespace == "" {
			errs = append(errs, field.Required(sp.Child("namespace"), "service namespace is required"))
		}
		if s.Path != nil && !strings.HasPrefix(*s.Path, "/") {
			errs = append(errs, field.Invalid(sp.Child("path"), *s.Path, "must start with a '/'"))
		}
		if s.Port != nil && (*s.Port < 1 || *s.Port > 65535) {
			errs = append(errs, field.Invalid(sp.Child("port"), *s.Port, "port is not valid: must be between 1 and 65535, inclusive"))
		}
	}
	return errs
}

// isProtectedGroup: Kubernetes' own groups need an approval annotation.
func isProtectedGroup(group string) bool {
	for _, suffix := range []string{"k8s.io", "kubernetes.io"} {
		if group == suffix || strings.HasSuffix(group, "."+suffix) {
			return true
		}
	}
	return false
}

// validateNames checks a CRD's names; plural and kind are required in the
// spec, while the status's accepted names may still be empty.
func validateNames(n *apiextensionsv1.CustomResourceDefinitionNames, p *field.Path, required bool) field.ErrorList {
	var errs field.ErrorList
	label := func(path *field.Path, value string, required bool) {
		if value == "" {
			if required {
				errs = append(errs, field.Required(path, ""))
			}
			return
		}
		for _, msg := range validation.IsDNS1035Label(value) {
			errs = append(errs, field.Invalid(path, value, msg))
		}
	}
	label(p.Child("plural"), n.Plural, required)
	label(p.Child("singular"), n.Singular, false)
	for i, s := range n.ShortNames {
		label(p.Child("shortNames").Index(i), s, true)
	}
	for i, c := range n.Categories {
		label(p.Child("categories").Index(i), c, true)
	}
	kind := func(path *field.Path, value string, required bool) {
		switch {
		case value == "" && required:
			errs = append(errs, field.Required(path, ""))
		case value != "":
			for _, msg := range validation.IsDNS1035Label(strings.ToLower(value)) {
				errs = append(errs, field.Invalid(path, value, msg))
			}
		}
	}
	kind(p.Child("kind"), n.Kind, required)
	kind(p.Child("listKind"), n.ListKind, false)
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, field.Invalid(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	return errs
}

func validateVersions(versions []apiextensionsv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must have exactly one version marked as storage version")}
	}
	storage, served := 0, 0
	seen := map[string]bool{}
	for i := range versions {
		v := &versions[i]
		vp := p.Index(i)
		if v.Storage {
			storage++
		}
		if v.Served {
			served++
		}
		if seen[v.Name] {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, "must appear only once"))
		}
		seen[v.Name] = true
		for _, msg := range validation.IsDNS1035Label(v.Name) {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, msg))
		}
		errs = append(errs, validateVersion(v, vp)...)
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(p, versions, "must have exactly one version marked as storage version"))
	}
	if served == 0 {
		errs = append(errs, field.Invalid(p, versions, "must have at least one version marked as served"))
	}
	return errs
}

func validateVersion(v *apiextensionsv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	sp := p.Child("schema", "openAPIV3Schema")
	var structural *apischema.Structural
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		errs = append(errs, field.Required(sp, "schemas are required"))
	} else {
		var sErrs field.ErrorList
		structural, sErrs = apischema.NewStructural(v.Schema.OpenAPIV3Schema, sp)
		errs = append(errs, sErrs...)
		if len(sErrs) == 0 {
			// The rules must compile and stay within the cost limits.
			_, rErrs := cel.Compile(structural, sp)
			errs = append(errs, rErrs...)
		}
	}
	for i, c := range v.AdditionalPrinterColumns {
		cp := p.Child("additionalPrinterColumns").Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		}
		if !slices.Contains(columnTypes, c.Type) {
			errs = append(errs, field.NotSupported(cp.Child("type"), c.Type, columnTypes))
		}
		if c.Priority < 0 {
			errs = append(errs, field.Invalid(cp.Child("priority"), c.Priority, "must be greater than or equal to 0"))
		}
		if c.JSONPath == "" {
			errs = append(errs, field.Required(cp.Child("jsonPath"), ""))
		} else if _, err := customresource.CompileColumnPath(c.Name, c.JSONPath); err != nil {
			errs = append(errs, field.Invalid(cp.Child("jsonPath"), c.JSONPath, fmt.Sprintf("must be a simple json path: %v", err)))
		}
	}
	if sub := v.Subresources; sub != nil && sub.Scale != nil {
		errs = append(errs, validateScale(sub.Scale, structural, p.Child("subresources", "scale"))...)
	}
	errs = append(errs, validateSelectableFields(v.SelectableFields, structural, p.Child("selectableFields"))...)
	return errs
}

// maxSelectableFields is how many selectable fields a version may have.
const maxSelectableFields = 8

// selectableTypes are the schema types a selectable field may have.
var selectableTypes = []string{"string", "integer", "boolean"}

// validateSelectableFields checks a version's selectable fields: unique
// simple paths outside metadata, to a string, integer or boolean field of
// the schema.
func validateSelectableFields(fs []apiextensionsv1.SelectableField, structural *apischema.Structural, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(fs) > maxSelectableFields {
		errs = append(errs, field.TooMany(p, len(fs), maxSelectableFields))
	}
	seen := map[string]bool{}
	for i, f := range fs {
		fp := p.Index(i).Child("jsonPath")
		switch {
		case f.JSONPath == "":
			errs = append(errs, field.Required(fp, ""))
			continue
		case !isSimplePath(f.JSONPath):
			errs = append(errs, field.Invalid(fp, f.JSONPath, "must be a simple json path (\".a.b\") without array notation"))
			continue
		case f.JSONPath == ".metadata" || strings.HasPrefix(f.JSONPath, ".metadata."):
			errs = append(errs, field.Invalid(fp, f.JSONPath, "must not point to fields in metadata"))
			continue
		case seen[f.JSONPath]:
			errs = append(errs, field.Duplicate(fp, f.JSONPath))
			continue
		}
		seen[f.JSONPath] = true
		if structural == nil {
			continue
		}
		node := lookup(structural, customresource.SplitPath(f.JSONPath))
		if node == nil {
			errs = append(errs, field.Invalid(fp, f.JSONPath, "is an invalid path: the schema has no such field"))
		} else if !slices.Contains(selectableTypes, node.Type) {
			errs = append(errs, field.Invalid(fp, f.JSONPath, "must point to a field of type string, boolean or integer"))
		}
	}
	return errs
}

// validateScale checks the paths of a scale subresource: replicas under
// .spec and .status, the selector under either, each a simple path that
// the schema (when it says) types as it must be.
func validateScale(s *apiextensionsv1.CustomResourceSubresourceScale, structural *apischema.Structural, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(name, path string, prefixes []string, typ string) {
		fp := p.Child(name)
		if path == "" {
			errs = append(errs, field.Required(fp, ""))
			return
		}
		if !isSimplePath(path) || !slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(path, pre) }) {
			errs = append(errs, field.Invalid(fp, path, fmt.Sprintf("should be a json path under %s", strings.Join(prefixes, " or "))))
			return
		}
		if structural == nil {
			return
		}
		if node := lookup(structural, customresource.SplitPath(path)); node != nil && node.Type != "" && node.Type != typ {
			errs = append(errs, field.Invalid(fp, path, fmt.Sprintf("should be a json path to a field of type %s in the schema", typ)))
		}
	}
	check("specReplicasPath", s.SpecReplicasPath, []string{".spec."}, "integer")
	check("statusReplicasPath", s.StatusReplicasPath, []string{".status."}, "integer")
	if s.LabelSelectorPath != nil {
		check("labelSelectorPath", *s.LabelSelectorPath, []string{".spec.", ".status."}, "string")
	}
	return errs
}

// isSimplePath accepts ".a.b.c" with non-empty plain field names.
func isSimplePath(path string) bool {
	if !strings.HasPrefix(path, ".") {
		return false
	}
	for _, f := range strings.Split(path[1:], ".") {
		if f == "" || strings.ContainsAny(f, "[]*@()'\" ") {
			return false
		}
	}
	return true
}

// lookup returns the schema of the field at path, nil when the schema does
// not declare it.
func lookup(s *apischema.Structural, path []string) *apischema.Structural {
	for _, f := range path {
		if s == nil {
			return nil
		}
		s = s.Properties[f]
	}
	return s
}

// ValidateStatusUpdate checks a status update as Kubernetes does: only
// the accepted names, which must be valid names where set. Conditions are
// the writer's (the conformance suite writes one with only a message).
func ValidateStatusUpdate(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validateNames(&crd.Status.AcceptedNames, field.NewPath("status", "acceptedNames"), false)
}

// IsEstablished reports whether crd's resource is served.
func IsEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	c := FindCondition(crd, apiextensionsv1.Established)
	return c != nil && c.Status == apiextensionsv1.ConditionTrue
}

// FindCondition returns crd's condition of type t, nil when it has none.
func FindCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// SetCondition sets a condition, keeping its transition time when the
// status does not change.
func SetCondition(crd *apiextensionsv1.CustomResourceDefinition, c apiextensionsv1.CustomResourceDefinitionCondition, now metav1.Time) {
	if existing := FindCondition(crd, c.Type); existing != nil {
		if existing.Status == c.Status {
			c.LastTransitionTime = existing.LastTransitionTime
		} else {
			c.LastTransitionTime = now
		}
		*existing = c
		return
	}
	c.LastTransitionTime = now
	crd.Status.Conditions = append(crd.Status.Conditions, c)
}
