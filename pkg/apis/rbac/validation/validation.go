// Package validation checks rbac.authorization.k8s.io/v1 objects as the
// Kubernetes API server does: role names are path segments (colons are
// common, as in system:node), rules name verbs, bindings name one role
// that they can never change, and subjects are users, groups or service
// accounts.
package validation

import (
	"strings"

	rbacv1 "kubecore.io/api/rbac/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// NameIsPathSegment accepts any name that can be one segment of a URL path.
func NameIsPathSegment(name string, prefix bool) []string {
	if !prefix {
		switch name {
		case ".", "..":
			return []string{`may not be '` + name + `'`}
		}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, `may not contain '`+bad+`'`)
		}
	}
	return msgs
}

func validateMeta(m *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, namespaced, NameIsPathSegment, field.NewPath("metadata"))
}

func validateRules(rules []rbacv1.PolicyRule, clusterScoped bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		rp := p.Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(rp.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(r.NonResourceURLs) > 0 {
			if !clusterScoped {
				errs = append(errs, field.Invalid(rp.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, field.Invalid(rp.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(rp.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(rp.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

// ValidateRole checks a Role.
func ValidateRole(r *rbacv1.Role) field.ErrorList {
	return append(validateMeta(&r.ObjectMeta, true), validateRules(r.Rules, false, field.NewPath("rules"))...)
}

// ValidateClusterRole checks a ClusterRole.
func ValidateClusterRole(r *rbacv1.ClusterRole) field.ErrorList {
	return append(validateMeta(&r.ObjectMeta, false), validateRules(r.Rules, true, field.NewPath("rules"))...)
}

func validateRoleRef(ref rbacv1.RoleRef, clusterBinding bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	kinds := []string{"Role", "ClusterRole"}
	if clusterBinding {
		kinds = []string{"ClusterRole"}
	}
	if ref.Kind != "ClusterRole" && (clusterBinding || ref.Kind != "Role") {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else if msgs := NameIsPathSegment(ref.Name, false); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name, strings.Join(msgs, ", ")))
	}
	return errs
}

func validateSubjects(subjects []rbacv1.Subject, clusterBinding bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		sp := p.Index(i)
		if s.Name == "" {
			errs = append(errs, field.Required(sp.Child("name"), ""))
		}
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(sp.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if clusterBinding && s.Namespace == "" {
				errs = append(errs, field.Required(sp.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(sp.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(sp.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}

// ValidateRoleBinding checks a RoleBinding.
func ValidateRoleBinding(b *rbacv1.RoleBinding) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, true)
	errs = append(errs, validateRoleRef(b.RoleRef, false, field.NewPath("roleRef"))...)
	return append(errs, validateSubjects(b.Subjects, false, field.NewPath("subjects"))...)
}

// ValidateClusterRoleBinding checks a ClusterRoleBinding.
func ValidateClusterRoleBinding(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, false)
	errs = append(errs, validateRoleRef(b.RoleRef, true, field.NewPath("roleRef"))...)
	return append(errs, validateSubjects(b.Subjects, true, field.NewPath("subjects"))...)
}

// ValidateRoleRefUpdate refuses a change of roleRef, as Kubernetes does.
func ValidateRoleRefUpdate(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref != old {
		return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
	}
	return nil
}
