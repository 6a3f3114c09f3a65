package authorization

import (
	"context"

	authorizationv1 "kubecore.io/api/authorization/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of authorization.k8s.io/v1: the reviews ask
// Authorizer, and Rules for the rules review.
type Provider struct {
	Authorizer authorizer.Authorizer
	Rules      RuleLister
}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return authorizationv1.SchemeGroupVersion }

// NewStorage adds the four reviews to rs; they store nothing.
func (p Provider) NewStorage(_ context.Context, rs strategy.Resources, _ generic.StoreOptions) error {
	rs["subjectaccessreviews"] = &SubjectAccessReviewREST{Authorizer: p.Authorizer}
	rs["selfsubjectaccessreviews"] = &SelfSubjectAccessReviewREST{Authorizer: p.Authorizer}
	rs["selfsubjectrulesreviews"] = &SelfSubjectRulesReviewREST{Rules: p.Rules}
	rs["localsubjectaccessreviews"] = &LocalSubjectAccessReviewREST{Authorizer: p.Authorizer}
	return nil
}
