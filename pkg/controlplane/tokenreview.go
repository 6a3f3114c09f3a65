package controlplane

import (
	"context"
	"errors"
	"slices"
	"strings"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	"kubecore.io/kubecore/pkg/auth/authenticator/bootstrap"
	authenticationregistry "kubecore.io/kubecore/pkg/registry/authentication"
)

// tokenReviewer answers TokenReviews with the bearer token authenticators
// the API server itself uses: the static token file's and bootstrap
// tokens, which know no audiences and so are good only for the API
// server's, then service account tokens, checked against each audience
// asked.
type tokenReviewer struct {
	in     *Instance
	static authenticator.Token
}

var _ authenticationregistry.TokenReviewer = tokenReviewer{}

// ReviewToken implements authenticationregistry.TokenReviewer.
func (t tokenReviewer) ReviewToken(ctx context.Context, token string, audiences []string) (*apirequest.UserInfo, []string, error) {
	var errs []error
	addErr := func(err error) {
		if !slices.ContainsFunc(errs, func(e error) bool { return e.Error() == err.Error() }) {
			errs = append(errs, err)
		}
	}
	var agnostic []authenticator.Token
	if t.static != nil {
		agnostic = append(agnostic, t.static)
	}
	agnostic = append(agnostic, &bootstrap.Authenticator{Secrets: t.in.objects})
	if valid := intersect(audiences, apiAudiences()); len(valid) > 0 {
		for _, a := range agnostic {
			user, ok, err := a.AuthenticateToken(ctx, token)
			if err != nil {
				addErr(err)
				continue
			}
			if ok {
				return authenticated(user), valid, nil
			}
		}
	}
	if t.in.serviceAccountKey != nil {
		var user *apirequest.UserInfo
		var valid []string
		for _, aud := range audiences {
			u, ok, err := t.in.serviceAccountTokens([]string{aud}).AuthenticateToken(ctx, token)
			if err != nil {
				addErr(err)
				continue
			}
			if ok {
				user, valid = u, append(valid, aud)
			}
		}
		if user != nil {
			return authenticated(user), valid, nil
		}
	}
	switch len(errs) {
	case 0:
		return nil, nil, errors.New("invalid bearer token")
	case 1:
		return nil, nil, errs[0]
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return nil, nil, errors.New("[" + strings.Join(msgs, ", ") + "]")
}

// intersect is the elements of a also in b, in a's order.
func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// authenticated adds system:authenticated to u's groups, as the request
// authenticator does.
func authenticated(u *apirequest.UserInfo) *apirequest.UserInfo {
	if slices.Contains(u.Groups, authenticator.AuthenticatedGroup) {
		return u
	}
	c := *u
	c.Groups = append(slices.Clone(u.Groups), authenticator.AuthenticatedGroup)
	return &c
}
