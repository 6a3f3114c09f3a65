// Package rbac is the RBAC authorizer: a request is allowed when a rule of
// a role bound to its user (by a ClusterRoleBinding, or by a RoleBinding in
// the request's namespace) covers its verb, group, resource and name.
package rbac

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rbacv1 "kubecore.io/api/rbac/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
)

// RuleSource reads the RBAC objects, typically from the watch cache.
// Missing roles are (nil, nil): a binding to a role not yet created grants
// nothing.
type RuleSource interface {
	ClusterRoleBindings(ctx context.Context) ([]*rbacv1.ClusterRoleBinding, error)
	RoleBindings(ctx context.Context, namespace string) ([]*rbacv1.RoleBinding, error)
	ClusterRole(ctx context.Context, name string) (*rbacv1.ClusterRole, error)
	Role(ctx context.Context, namespace, name string) (*rbacv1.Role, error)
}

// Authorizer evaluates RBAC rules from a RuleSource.
type Authorizer struct {
	Source RuleSource
}

var _ authorizer.Authorizer = (*Authorizer)(nil)

// Authorize implements authorizer.Authorizer: Allow when a rule covers the
// request, NoOpinion otherwise (RBAC never denies outright).
func (z *Authorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.User == nil || a.Request == nil {
		return authorizer.NoOpinion, "", nil
	}
	allowedBy := ""
	err := z.visitRules(ctx, a.User, a.Request.Namespace, func(source string, r *rbacv1.PolicyRule) bool {
		if RuleAllows(r, a.Request) {
			allowedBy = source
			return false
		}
		return true
	})
	if allowedBy != "" {
		return authorizer.Allow, "RBAC: allowed by " + allowedBy, nil
	}
	if err != nil {
		return authorizer.NoOpinion, "", fmt.Errorf("RBAC: %w", err)
	}
	return authorizer.NoOpinion, "", nil
}

// RulesFor returns the rules granted to user in namespace (and cluster
// wide), for SelfSubjectRulesReview; an error says some could not be read.
func (z *Authorizer) RulesFor(ctx context.Context, user *apirequest.UserInfo, namespace string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	err := z.visitRules(ctx, user, namespace, func(_ string, r *rbacv1.PolicyRule) bool {
		rules = append(rules, *r)
		return true
	})
	return rules, err
}

// visitRules calls visit with each rule bound to user, cluster-wide first,
// until visit returns false. Read errors do not stop the walk (another
// binding may still grant the request); the first is returned.
func (z *Authorizer) visitRules(ctx context.Context, user *apirequest.UserInfo, namespace string, visit func(source string, r *rbacv1.PolicyRule) bool) error {
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	crbs, err := z.Source.ClusterRoleBindings(ctx)
	keep(err)
	for _, b := range crbs {
		if !bindsUser(b.Subjects, user, "") || b.RoleRef.Kind != "ClusterRole" {
			continue
		}
		role, err := z.Source.ClusterRole(ctx, b.RoleRef.Name)
		keep(err)
		if role == nil {
			continue
		}
		for i := range role.Rules {
			if !visit("ClusterRoleBinding/"+b.Name, &role.Rules[i]) {
				return nil
			}
		}
	}
	if namespace == "" {
		return firstErr
	}
	rbs, err := z.Source.RoleBindings(ctx, namespace)
	keep(err)
	for _, b := range rbs {
		if !bindsUser(b.Subjects, user, namespace) {
			continue
		}
		var rules []rbacv1.PolicyRule
		switch b.RoleRef.Kind {
		case "ClusterRole":
			role, err := z.Source.ClusterRole(ctx, b.RoleRef.Name)
			keep(err)
			if role != nil {
				rules = role.Rules
			}
		case "Role":
			role, err := z.Source.Role(ctx, namespace, b.RoleRef.Name)
			keep(err)
			if role != nil {
				rules = role.Rules
			}
		}
		for i := range rules {
			if !visit("RoleBinding/"+namespace+"/"+b.Name, &rules[i]) {
				return nil
			}
		}
	}
	return firstErr
}

// ServiceAccountPrefix starts the user name of a service account:
// system:serviceaccount:NAMESPACE:NAME.
const ServiceAccountPrefix = "system:serviceaccount:"

// bindsUser reports whether one of subjects is user, one of its groups, or
// its service account (a subject's namespace defaults to the binding's).
func bindsUser(subjects []rbacv1.Subject, user *apirequest.UserInfo, bindingNamespace string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			if s.Name == user.Name {
				return true
			}
		case rbacv1.GroupKind:
			if slices.Contains(user.Groups, s.Name) {
				return true
			}
		case rbacv1.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = bindingNamespace
			}
			if ns != "" && user.Name == ServiceAccountPrefix+ns+":"+s.Name {
				return true
			}
		}
	}
	return false
}

// RuleAllows reports whether rule covers the request.
func RuleAllows(rule *rbacv1.PolicyRule, r *apirequest.RequestInfo) bool {
	if !matches(rule.Verbs, r.Verb, rbacv1.VerbAll) {
		return false
	}
	if !r.IsResourceRequest {
		return nonResourceMatches(rule.NonResourceURLs, r.Path)
	}
	if !matches(rule.APIGroups, r.APIGroup, rbacv1.APIGroupAll) {
		return false
	}
	if !resourceMatches(rule.Resources, r.Resource, r.Subresource) {
		return false
	}
	return len(rule.ResourceNames) == 0 || r.Name != "" && slices.Contains(rule.ResourceNames, r.Name)
}

func matches(list []string, want, wildcard string) bool {
	for _, v := range list {
		if v == wildcard || v == want {
			return true
		}
	}
	return false
}

// resourceMatches: "*" is every resource and subresource, "pods" only the
// resource itself, "pods/log" that subresource, "*/scale" a subresource of
// every resource.
func resourceMatches(rules []string, resource, subresource string) bool {
	want := resource
	if subresource != "" {
		want += "/" + subresource
	}
	for _, r := range rules {
		switch {
		case r == rbacv1.ResourceAll, r == want:
			return true
		case subresource != "" && r == "*/"+subresource:
			return true
		}
	}
	return false
}

// nonResourceMatches: an exact path, "*", or a prefix ending in "*".
func nonResourceMatches(urls []string, path string) bool {
	for _, u := range urls {
		switch {
		case u == rbacv1.NonResourceAll, u == path:
			return true
		case strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*")):
			return true
		}
	}
	return false
}
