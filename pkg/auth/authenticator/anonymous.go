package authenticator

import (
	"net/http"
	"slices"

	"kubecore.io/kubecore/pkg/apirequest"
)

// Anonymous identity: Kubernetes' names for a request without credentials.
const (
	AnonymousUser        = "system:anonymous"
	UnauthenticatedGroup = "system:unauthenticated"
)

// Anonymous lets a request without credentials (no Authorization header,
// no client certificate) through as system:anonymous in
// system:unauthenticated — only a GET of one of Paths, exactly. Every
// other request without credentials stays unauthenticated (401);
// authorization still decides on the ones it lets through.
type Anonymous struct {
	Paths []string
}

var _ Request = Anonymous{}

// AuthenticateRequest implements Request.
func (a Anonymous) AuthenticateRequest(r *http.Request) (*apirequest.UserInfo, bool, error) {
	if r.Method != http.MethodGet || !slices.Contains(a.Paths, r.URL.Path) {
		return nil, false, nil
	}
	if r.Header.Get("Authorization") != "" || (r.TLS != nil && len(r.TLS.PeerCertificates) > 0) {
		return nil, false, nil
	}
	return &apirequest.UserInfo{Name: AnonymousUser, Groups: []string{UnauthenticatedGroup}}, true, nil
}
