// Package authentication serves the reviews of authentication.k8s.io:
// tokenreviews (whose is this bearer token?) and selfsubjectreviews (who
// am I?). They are create-only and stored nowhere: the answer comes back
// in the status.
package authentication

import (
	"context"
	"fmt"
	"maps"
	"slices"

	authenticationv1 "kubecore.io/api/authentication/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// review is what the two storages share: create-only and cluster-scoped.
type review struct{}

func (review) Destroy()              {}
func (review) NamespaceScoped() bool { return false }

// TokenReviewer checks a bearer token as the API server's authenticators
// do. audiences are those the caller accepts (never empty); valid are
// those of them the token is good for. A token no authenticator
// recognizes is an error, as it is on a request.
type TokenReviewer interface {
	ReviewToken(ctx context.Context, token string, audiences []string) (user *apirequest.UserInfo, valid []string, err error)
}

// TokenReviewREST answers tokenreviews with Reviewer; APIAudiences are
// the API server's own, used when the review names none.
type TokenReviewREST struct {
	review
	Reviewer     TokenReviewer
	APIAudiences []string
}

var _ rest.Creater = (*TokenReviewREST)(nil)

// New implements rest.Storage.
func (*TokenReviewREST) New() runtime.Object { return &authenticationv1.TokenReview{} }

// Create implements rest.Creater.
func (r *TokenReviewREST) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	tr, ok := obj.(*authenticationv1.TokenReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenReview: %T", obj))
	}
	if ns := apirequest.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	if tr.Spec.Token == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("token is required for TokenReview in %s", authenticationv1.SchemeGroupVersion))
	}
	audiences := tr.Spec.Audiences
	if len(audiences) == 0 {
		audiences = r.APIAudiences
	}
	out := tr.DeepCopy()
	out.Status = authenticationv1.TokenReviewStatus{}
	user, valid, err := r.Reviewer.ReviewToken(ctx, tr.Spec.Token, audiences)
	switch {
	case err != nil:
		out.Status.Error = err.Error()
	case user != nil:
		out.Status.Authenticated = true
		out.Status.User = userInfo(user)
		out.Status.Audiences = valid
	}
	return out, nil
}

// SelfSubjectReviewREST answers with the caller (`kubectl auth whoami`).
type SelfSubjectReviewREST struct{ review }

var _ rest.Creater = (*SelfSubjectReviewREST)(nil)

// New implements rest.Storage.
func (*SelfSubjectReviewREST) New() runtime.Object { return &authenticationv1.SelfSubjectReview{} }

// Create implements rest.Creater.
func (*SelfSubjectReviewREST) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	ssr, ok := obj.(*authenticationv1.SelfSubjectReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %T", obj))
	}
	user, ok := apirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("no user in the request"))
	}
	out := ssr.DeepCopy()
	out.Status = authenticationv1.SelfSubjectReviewStatus{UserInfo: userInfo(user)}
	// Kubernetes stamps the answer with the time it was made.
	out.CreationTimestamp = metav1.Now()
	return out, nil
}

// userInfo is u on the wire.
func userInfo(u *apirequest.UserInfo) authenticationv1.UserInfo {
	out := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: slices.Clone(u.Groups)}
	if len(u.Extra) > 0 {
		out.Extra = map[string]authenticationv1.ExtraValue{}
		for _, k := range slices.Sorted(maps.Keys(u.Extra)) {
			out.Extra[k] = slices.Clone(u.Extra[k])
		}
	}
	return out
}
