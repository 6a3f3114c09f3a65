package policy

import (
	"context"
	"fmt"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// everything is the rule of a binding's matchResources without
// resourceRules: they do not narrow what the policy matches.
var everything = []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}},
}}}

// compiledMatcher is the matcher of a policy's matchConstraints or a
// binding's matchResources, with the error that kept it from compiling.
type compiledMatcher struct {
	m   *matching.Matcher
	err error
}

// newMatcher compiles mr; optional (a binding's) means a missing mr or
// an empty rule list restricts nothing.
func newMatcher(mr *admissionregistrationv1.MatchResources, optional bool) *compiledMatcher {
	if mr == nil {
		if optional {
			return &compiledMatcher{}
		}
		return &compiledMatcher{err: fmt.Errorf("matchConstraints is required")}
	}
	rules := mr.ResourceRules
	if optional && len(rules) == 0 {
		rules = everything
	}
	m, err := matching.NewMatcher(matching.Criteria{Rules: rules, ExcludeRules: mr.ExcludeResourceRules, MatchPolicy: mr.MatchPolicy,
		NamespaceSelector: mr.NamespaceSelector, ObjectSelector: mr.ObjectSelector})
	return &compiledMatcher{m: m, err: err}
}

// matches applies the matcher (a nil one matches everything).
func (c *compiledMatcher) matches(ctx context.Context, a *rest.Attributes, eq matching.Equivalents, ns matching.NamespaceGetter) (matching.Match, bool, error) {
	if c.err != nil {
		return matching.Match{}, false, c.err
	}
	if c.m == nil {
		return matching.Match{Resource: a.Resource, Kind: a.Kind}, true, nil
	}
	return c.m.Matches(ctx, a, eq, ns)
}
