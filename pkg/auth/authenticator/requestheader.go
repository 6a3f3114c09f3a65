package authenticator

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"kubecore.io/kubecore/pkg/apirequest"
)

// The front-proxy identity headers, as Kubernetes' aggregator sends them
// and its --requestheader-* flags name them.
const (
	RemoteUserHeader        = "X-Remote-User"
	RemoteGroupHeader       = "X-Remote-Group"
	RemoteExtraHeaderPrefix = "X-Remote-Extra-"
)

// RequestHeader takes the user from identity headers set by a front proxy
// (the aggregator of another API server) that proves itself with a client
// certificate chaining to Roots, whose common name is one of AllowedNames
// (any, when empty). A request without the username header is not its to
// judge; one with the header but no such certificate is refused, so that
// nobody else can claim a name by a header.
type RequestHeader struct {
	Roots        *x509.CertPool
	AllowedNames []string
	// UsernameHeaders, GroupHeaders and ExtraHeaderPrefixes are the
	// headers read; the first username header set wins.
	UsernameHeaders     []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string

	verified *verifiedCerts
}

var _ Request = (*RequestHeader)(nil)

// NewRequestHeader returns the authenticator of Kubernetes' default front
// proxy headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-) for
// proxies with a certificate of roots named one of allowedNames.
func NewRequestHeader(roots *x509.CertPool, allowedNames []string) *RequestHeader {
	return &RequestHeader{
		Roots:               roots,
		AllowedNames:        allowedNames,
		UsernameHeaders:     []string{RemoteUserHeader},
		GroupHeaders:        []string{RemoteGroupHeader},
		ExtraHeaderPrefixes: []string{RemoteExtraHeaderPrefix},
		verified:            newVerifiedCerts(),
	}
}

// AuthenticateRequest implements Request. It removes the identity headers
// from r once read, so that nothing downstream mistakes them for the
// client's.
func (a *RequestHeader) AuthenticateRequest(r *http.Request) (*apirequest.UserInfo, bool, error) {
	name := ""
	for _, h := range a.UsernameHeaders {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			name = v
			break
		}
	}
	if name == "" {
		return nil, false, nil
	}
	if err := a.verifyProxy(r); err != nil {
		return nil, false, err
	}
	user := &apirequest.UserInfo{Name: name}
	for _, h := range a.GroupHeaders {
		user.Groups = append(user.Groups, r.Header.Values(h)...)
	}
	for key, values := range r.Header {
		for _, prefix := range a.ExtraHeaderPrefixes {
			if len(key) <= len(prefix) || !strings.EqualFold(key[:len(prefix)], prefix) {
				continue
			}
			k := strings.ToLower(key[len(prefix):])
			if unescaped, err := url.PathUnescape(k); err == nil {
				k = unescaped
			}
			if user.Extra == nil {
				user.Extra = map[string][]string{}
			}
			user.Extra[k] = append(user.Extra[k], values...)
		}
	}
	a.clearHeaders(r)
	return user, true, nil
}

// verifyProxy checks that the client certificate is a front proxy's.
func (a *RequestHeader) verifyProxy(r *http.Request) error {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return fmt.Errorf("%s header given without a front-proxy client certificate", a.UsernameHeaders[0])
	}
	cert := r.TLS.PeerCertificates[0]
	check := func() error {
		inter := x509.NewCertPool()
		for _, ic := range r.TLS.PeerCertificates[1:] {
			inter.AddCert(ic)
		}
		_, err := cert.Verify(x509.VerifyOptions{Roots: a.Roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		return err
	}
	var err error
	if a.verified != nil {
		err = a.verified.verify(cert, time.Now(), check)
	} else {
		err = check()
	}
	if err != nil {
		return fmt.Errorf("front-proxy client certificate %q: %w", cert.Subject.CommonName, err)
	}
	if len(a.AllowedNames) > 0 && !slices.Contains(a.AllowedNames, cert.Subject.CommonName) {
		return fmt.Errorf("front-proxy client certificate %q is not one of the allowed names %v", cert.Subject.CommonName, a.AllowedNames)
	}
	return nil
}

func (a *RequestHeader) clearHeaders(r *http.Request) {
	for _, h := range a.UsernameHeaders {
		r.Header.Del(h)
	}
	for _, h := range a.GroupHeaders {
		r.Header.Del(h)
	}
	for key := range r.Header {
		for _, prefix := range a.ExtraHeaderPrefixes {
			if len(key) > len(prefix) && strings.EqualFold(key[:len(prefix)], prefix) {
				r.Header.Del(key)
			}
		}
	}
}
