// Package authorizer decides whether an authenticated request may proceed:
// the Authorizer interface the apiserver's filter calls, a union of
// authorizers, and the Forbidden message Kubernetes users read.
package authorizer

import (
	"context"
	"fmt"
	"slices"

	"kubecore.io/kubecore/pkg/apirequest"
)

// Decision is an authorizer's answer.
type Decision int

// The decisions: an authorizer without an opinion leaves the request to
// the next one; the request is allowed only if one allows it.
const (
	NoOpinion Decision = iota
	Allow
	Deny
)

// Attributes are what a decision looks at: who asks, and what for.
type Attributes struct {
	User    *apirequest.UserInfo
	Request *apirequest.RequestInfo
}

// Authorizer decides on one request and says why.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Decision, string, error)
}

// Func adapts a function to Authorizer.
type Func func(ctx context.Context, a Attributes) (Decision, string, error)

var _ Authorizer = Func(nil)

// Authorize calls f.
func (f Func) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// Union asks each authorizer in turn; the first Allow or Deny wins. Errors
// are remembered and returned with NoOpinion when nobody decided.
type Union []Authorizer

var _ Authorizer = Union(nil)

// Authorize implements Authorizer.
func (u Union) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var reasons []string
	var firstErr error
	for _, z := range u {
		d, reason, err := z.Authorize(ctx, a)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if d != NoOpinion {
			return d, reason, nil
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	reason := ""
	if len(reasons) > 0 {
		reason = reasons[0]
		for _, r := range reasons[1:] {
			reason += ", " + r
		}
	}
	return NoOpinion, reason, firstErr
}

// MastersGroup is the group whose members may do anything.
const MastersGroup = "system:masters"

// Masters allows every request of a member of system:masters.
type Masters struct{}

var _ Authorizer = Masters{}

// Authorize implements Authorizer.
func (Masters) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if a.User != nil && slices.Contains(a.User.Groups, MastersGroup) {
		return Allow, "", nil
	}
	return NoOpinion, "", nil
}

// ForbiddenMessage words a refusal as Kubernetes does, e.g.
// `User "bob" cannot list resource "pods" in API group "" in the namespace
// "default"`, with reason appended when there is one.
func ForbiddenMessage(a Attributes) string {
	user := ""
	if a.User != nil {
		user = a.User.Name
	}
	r := a.Request
	if r == nil || !r.IsResourceRequest {
		path, verb := "", ""
		if r != nil {
			path, verb = r.Path, r.Verb
		}
		return fmt.Sprintf("User %q cannot %s path %q", user, verb, path)
	}
	resource := r.Resource
	if r.Subresource != "" {
		resource += "/" + r.Subresource
	}
	scope := "at the cluster scope"
	if r.Namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", r.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q %s", user, r.Verb, resource, r.APIGroup, scope)
}
