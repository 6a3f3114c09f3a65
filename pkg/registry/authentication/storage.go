package authentication

import (
	"context"

	authenticationv1 "kubecore.io/api/authentication/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of authentication.k8s.io/v1: token reviews
// ask Reviewer, with APIAudiences when the review names none.
type Provider struct {
	Reviewer     TokenReviewer
	APIAudiences []string
}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return authenticationv1.SchemeGroupVersion }

// NewStorage adds the two reviews to rs; they store nothing.
func (p Provider) NewStorage(_ context.Context, rs strategy.Resources, _ generic.StoreOptions) error {
	rs["tokenreviews"] = &TokenReviewREST{Reviewer: p.Reviewer, APIAudiences: p.APIAudiences}
	rs["selfsubjectreviews"] = &SelfSubjectReviewREST{}
	return nil
}
