// Package match classifies a request as API priority and fairness does:
// the FlowSchema with the lowest matching precedence (then the lowest
// name) one of whose rules matches the request's user and what it asks.
package match

import (
	"cmp"
	"slices"
	"strings"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/apirequest"
)

// serviceAccountPrefix starts the user name of every service account.
const serviceAccountPrefix = "system:serviceaccount:"

// Classify returns the schema among schemas that a request of user
// described by info matches first, nil when none does.
func Classify(schemas []*flowcontrolv1.FlowSchema, user *apirequest.UserInfo, info *apirequest.RequestInfo) *flowcontrolv1.FlowSchema {
	sorted := slices.Clone(schemas)
	slices.SortFunc(sorted, func(a, b *flowcontrolv1.FlowSchema) int {
		return cmp.Or(cmp.Compare(a.Spec.MatchingPrecedence, b.Spec.MatchingPrecedence), strings.Compare(a.Name, b.Name))
	})
	for _, fs := range sorted {
		if Matches(fs, user, info) {
			return fs
		}
	}
	return nil
}

// Matches reports whether one of fs's rules matches the request.
func Matches(fs *flowcontrolv1.FlowSchema, user *apirequest.UserInfo, info *apirequest.RequestInfo) bool {
	for _, r := range fs.Spec.Rules {
		if !slices.ContainsFunc(r.Subjects, func(s flowcontrolv1.Subject) bool { return subjectMatches(s, user) }) {
			continue
		}
		if info.IsResourceRequest {
			if slices.ContainsFunc(r.ResourceRules, func(rr flowcontrolv1.ResourcePolicyRule) bool { return resourceMatches(rr, info) }) {
				return true
			}
			continue
		}
		if slices.ContainsFunc(r.NonResourceRules, func(nr flowcontrolv1.NonResourcePolicyRule) bool { return nonResourceMatches(nr, info) }) {
			return true
		}
	}
	return false
}

func subjectMatches(s flowcontrolv1.Subject, user *apirequest.UserInfo) bool {
	switch s.Kind {
	case flowcontrolv1.SubjectKindUser:
		return s.User != nil && (s.User.Name == flowcontrolv1.NameAll || s.User.Name == user.Name)
	case flowcontrolv1.SubjectKindGroup:
		return s.Group != nil && (s.Group.Name == flowcontrolv1.NameAll || slices.Contains(user.Groups, s.Group.Name))
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return false
		}
		ns, name, ok := strings.Cut(strings.TrimPrefix(user.Name, serviceAccountPrefix), ":")
		return ok && strings.HasPrefix(user.Name, serviceAccountPrefix) && ns == s.ServiceAccount.Namespace &&
			(s.ServiceAccount.Name == flowcontrolv1.NameAll || s.ServiceAccount.Name == name)
	}
	return false
}

// containsOrAll reports whether values holds v or "*".
func containsOrAll(values []string, v string) bool {
	return slices.Contains(values, v) || slices.Contains(values, "*")
}

func resourceMatches(rr flowcontrolv1.ResourcePolicyRule, info *apirequest.RequestInfo) bool {
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	if !containsOrAll(rr.Verbs, info.Verb) || !containsOrAll(rr.APIGroups, info.APIGroup) || !containsOrAll(rr.Resources, resource) {
		return false
	}
	if info.Namespace == "" {
		return rr.ClusterScope
	}
	return containsOrAll(rr.Namespaces, info.Namespace)
}

func nonResourceMatches(nr flowcontrolv1.NonResourcePolicyRule, info *apirequest.RequestInfo) bool {
	if !containsOrAll(nr.Verbs, info.Verb) {
		return false
	}
	for _, u := range nr.NonResourceURLs {
		switch {
		case u == flowcontrolv1.NonResourceAll, u == info.Path:
			return true
		case strings.HasSuffix(u, "/*") && strings.HasPrefix(info.Path, strings.TrimSuffix(u, "*")):
			return true
		}
	}
	return false
}
