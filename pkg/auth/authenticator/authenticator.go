// Package authenticator identifies who sends a request: by a client
// certificate the cluster CA signed, or by a bearer token that one of the
// token authenticators (static token file, bootstrap tokens, service
// account tokens) recognizes. Every authenticated user is in
// system:authenticated.
package authenticator

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"kubecore.io/kubecore/pkg/apirequest"
)

// AuthenticatedGroup holds every authenticated user.
const AuthenticatedGroup = "system:authenticated"

// Request identifies the user of a request; ok is false when the request
// carries no credentials it understands, err when they are wrong.
type Request interface {
	AuthenticateRequest(r *http.Request) (user *apirequest.UserInfo, ok bool, err error)
}

// Token identifies the user of a bearer token.
type Token interface {
	AuthenticateToken(ctx context.Context, token string) (user *apirequest.UserInfo, ok bool, err error)
}

// Union tries each authenticator in turn; the first that recognizes the
// request wins. When none does, the errors of those that failed are
// returned together.
type Union []Request

var _ Request = Union(nil)

// AuthenticateRequest implements Request.
func (u Union) AuthenticateRequest(r *http.Request) (*apirequest.UserInfo, bool, error) {
	var errs []error
	for _, a := range u {
		user, ok, err := a.AuthenticateRequest(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return withAuthenticated(user), true, nil
		}
	}
	return nil, false, errors.Join(errs...)
}

// withAuthenticated adds system:authenticated to the user's groups,
// unless the user is anonymous.
func withAuthenticated(u *apirequest.UserInfo) *apirequest.UserInfo {
	if slices.Contains(u.Groups, AuthenticatedGroup) || slices.Contains(u.Groups, UnauthenticatedGroup) {
		return u
	}
	c := *u
	c.Groups = append(slices.Clone(u.Groups), AuthenticatedGroup)
	return &c
}

// ClientCert takes the user from a TLS client certificate that chains to
// Roots: the common name is the user name, the organizations its groups.
// The TLS layer only asks for a certificate (as Kubernetes does), so that
// one from another CA is answered with a 401 Status, not a broken
// handshake. Without Roots it trusts the chains the TLS layer verified.
// NewClientCert's also remembers the certificates it verified.
type ClientCert struct {
	Roots    *x509.CertPool
	verified *verifiedCerts
}

var _ Request = (*ClientCert)(nil)

// NewClientCert returns a ClientCert for roots that verifies each distinct
// certificate once, not on every request.
func NewClientCert(roots *x509.CertPool) *ClientCert {
	return &ClientCert{Roots: roots, verified: newVerifiedCerts()}
}

// AuthenticateRequest implements Request.
func (c *ClientCert) AuthenticateRequest(r *http.Request) (*apirequest.UserInfo, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	cert := r.TLS.PeerCertificates[0]
	if c.Roots != nil {
		check := func() error {
			inter := x509.NewCertPool()
			for _, ic := range r.TLS.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			_, err := cert.Verify(x509.VerifyOptions{Roots: c.Roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
			return err
		}
		var err error
		if c.verified != nil {
			err = c.verified.verify(cert, time.Now(), check)
		} else {
			err = check()
		}
		if err != nil {
			return nil, false, fmt.Errorf("client certificate %q: %w", cert.Subject.CommonName, err)
		}
	} else if len(r.TLS.VerifiedChains) == 0 {
		return nil, false, nil
	}
	if cert.Subject.CommonName == "" {
		return nil, false, fmt.Errorf("client certificate %s has no common name", cert.SerialNumber)
	}
	return &apirequest.UserInfo{Name: cert.Subject.CommonName, Groups: slices.Clone(cert.Subject.Organization)}, true, nil
}

// BearerToken reads "Authorization: Bearer TOKEN" and asks Tokens, in
// turn, who it is. A token nobody recognizes is an error: the client
// meant to authenticate.
type BearerToken struct {
	Tokens []Token
}

var _ Request = (*BearerToken)(nil)

// AuthenticateRequest implements Request.
func (b *BearerToken) AuthenticateRequest(r *http.Request) (*apirequest.UserInfo, bool, error) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, token, found := strings.Cut(auth, " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return nil, false, nil
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, false, nil
	}
	var errs []error
	for _, t := range b.Tokens {
		user, ok, err := t.AuthenticateToken(r.Context(), token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return user, true, nil
		}
	}
	if len(errs) == 0 {
		return nil, false, errors.New("invalid bearer token")
	}
	return nil, false, errors.Join(errs...)
}
