package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	authorizationv1 "kubecore.io/api/authorization/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Attributes are what a request to the kubelet asks, in the terms of the
// API server's authorizer: verb on the node's subresource.
type Attributes struct {
	User   string
	Groups []string
	// Verb is the HTTP method's API verb (get, create, update, patch,
	// delete).
	Verb string
	// Node is the kubelet's node name, the object of nodes/<subresource>.
	Node string
	// Subresource is stats (/stats/...), metrics (/metrics, /metrics/...),
	// log (/logs/...), spec (/spec/...) or proxy (everything else).
	Subresource string
}

// Authorizer decides whether a client of the kubelet may make a request.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (allowed bool, reason string, err error)
}

// ReviewCreator creates SubjectAccessReviews
// (typed.Clientset.AuthorizationV1().SubjectAccessReviews()).
type ReviewCreator interface {
	Create(ctx context.Context, review *authorizationv1.SubjectAccessReview, opts metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error)
}

// SubjectAccessReviewAuthorizer asks the API server, as a kubelet with
// --authorization-mode=Webhook does.
type SubjectAccessReviewAuthorizer struct {
	Reviews ReviewCreator
}

var _ Authorizer = SubjectAccessReviewAuthorizer{}

// Authorize creates a SubjectAccessReview for verb on nodes/<subresource>
// of the node.
func (a SubjectAccessReviewAuthorizer) Authorize(ctx context.Context, attrs Attributes) (bool, string, error) {
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: attrs.User, Groups: attrs.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: attrs.Verb, Version: "v1", Resource: "nodes", Subresource: attrs.Subresource, Name: attrs.Node},
	}}
	out, err := a.Reviews.Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, "", fmt.Errorf("subject access review: %w", err)
	}
	return out.Status.Allowed, out.Status.Reason, nil
}

// requestAttributes maps a request as the kubelet does: the path picks
// the subresource, the method the verb.
func requestAttributes(r *http.Request, node string) Attributes {
	a := Attributes{Node: node, Subresource: "proxy"}
	switch r.Method {
	case http.MethodPost:
		a.Verb = "create"
	case http.MethodPut:
		a.Verb = "update"
	case http.MethodPatch:
		a.Verb = "patch"
	case http.MethodDelete:
		a.Verb = "delete"
	default:
		a.Verb = "get"
	}
	p := r.URL.Path
	switch {
	case p == "/stats" || strings.HasPrefix(p, "/stats/"):
		a.Subresource = "stats"
	case p == "/metrics" || strings.HasPrefix(p, "/metrics/"):
		a.Subresource = "metrics"
	case strings.HasPrefix(p, "/logs/"):
		a.Subresource = "log"
	case strings.HasPrefix(p, "/spec/"):
		a.Subresource = "spec"
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		subject := r.TLS.PeerCertificates[0].Subject
		a.User = subject.CommonName
		a.Groups = append(append([]string{}, subject.Organization...), "system:authenticated")
	}
	return a
}

// authorize wraps h: a request the Authorizer refuses gets 403, one it
// cannot decide 500, as the kubelet answers them.
func (s *Server) authorize(h http.Handler) http.Handler {
	if s.cfg.Authorizer == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := requestAttributes(r, s.cfg.NodeName)
		ok, reason, err := s.cfg.Authorizer.Authorize(r.Context(), a)
		if err != nil {
			httpError(w, http.StatusInternalServerError, "Authorization error (user=%s, verb=%s, resource=nodes, subresource=%s): %v", a.User, a.Verb, a.Subresource, err)
			return
		}
		if !ok {
			msg := fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource=%s)", a.User, a.Verb, a.Subresource)
			if reason != "" {
				msg += ": " + reason
			}
			httpError(w, http.StatusForbidden, "%s", msg)
			return
		}
		h.ServeHTTP(w, r)
	})
}
