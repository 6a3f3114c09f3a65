package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/klog/v2"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	authz "kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/auth/serviceaccount"
)

// forbidden is the 403 of a refused request, worded as Kubernetes does:
// `pods "web" is forbidden: User "bob" cannot get resource "pods" in API
// group "" in the namespace "default"`, and the authorizer's reason.
func forbidden(a authz.Attributes, reason string) error {
	msg := authz.ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	r := a.Request
	if r == nil || !r.IsResourceRequest {
		return apierrors.NewForbidden(schema.GroupResource{}, "", fmt.Errorf("%s", msg))
	}
	resource := r.Resource
	if r.Subresource != "" {
		resource += "/" + r.Subresource
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: r.APIGroup, Resource: resource}, r.Name, fmt.Errorf("%s", msg))
}

// withAuthorization lets a request through only when the authorizer
// allows it. Health and version answer everyone.
func (s *Server) withAuthorization(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isPublicPath(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		user, _ := apirequest.UserFrom(r.Context())
		info, _ := apirequest.RequestInfoFrom(r.Context())
		a := authz.Attributes{User: user, Request: info}
		d, reason, err := s.cfg.Authorizer.Authorize(r.Context(), a)
		if d == authz.Allow {
			h.ServeHTTP(w, r)
			return
		}
		if err != nil {
			klog.V(2).InfoS("Authorization error", "user", user.Name, "path", r.URL.Path, "err", err)
			if reason == "" {
				reason = err.Error()
			}
		}
		writeError(w, forbidden(a, reason))
	})
}

// Impersonation headers, as kubectl --as and --as-group send them.
const (
	headerImpersonateUser  = "Impersonate-User"
	headerImpersonateGroup = "Impersonate-Group"
	headerImpersonateUID   = "Impersonate-Uid"
	headerImpersonateExtra = "Impersonate-Extra-"
)

// withImpersonation acts as the user the Impersonate-* headers name, when
// the authenticated user may impersonate each of them (verb impersonate
// on users, groups, serviceaccounts, uids and userextras).
func (s *Server) withImpersonation(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Get(headerImpersonateUser)
		groups := r.Header.Values(headerImpersonateGroup)
		uid := r.Header.Get(headerImpersonateUID)
		extra := map[string][]string{}
		for k, v := range r.Header {
			if key, ok := strings.CutPrefix(k, headerImpersonateExtra); ok {
				extra[strings.ToLower(key)] = v
			}
		}
		if name == "" && (len(groups) > 0 || uid != "" || len(extra) > 0) {
			writeError(w, apierrors.NewBadRequest("requested impersonation of groups, a uid or extra attributes without impersonating a user"))
			return
		}
		if name == "" {
			h.ServeHTTP(w, r)
			return
		}
		actor, ok := apirequest.UserFrom(r.Context())
		if !ok {
			writeError(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		check := func(group, resource, namespace, target string) bool {
			a := authz.Attributes{User: actor, Request: &apirequest.RequestInfo{
				IsResourceRequest: true, Verb: "impersonate", APIGroup: group, Resource: resource, Namespace: namespace, Name: target,
			}}
			if d, reason, _ := s.cfg.Authorizer.Authorize(r.Context(), a); d != authz.Allow {
				writeError(w, forbidden(a, reason))
				return false
			}
			return true
		}
		user := &apirequest.UserInfo{Name: name, UID: uid, Extra: extra}
		if ns, sa, ok := serviceaccount.SplitUserName(name); ok {
			if !check("", "serviceaccounts", ns, sa) {
				return
			}
			user.Groups = []string{serviceaccount.AllGroup, serviceaccount.NamespaceGroupPre + ns}
		} else if !check("", "users", "", name) {
			return
		}
		for _, g := range groups {
			if !check("", "groups", "", g) {
				return
			}
			if !slices.Contains(user.Groups, g) {
				user.Groups = append(user.Groups, g)
			}
		}
		if uid != "" && !check("authentication.k8s.io", "uids", "", uid) {
			return
		}
		for key, values := range extra {
			for _, v := range values {
				if !check("authentication.k8s.io", "userextras/"+key, "", v) {
					return
				}
			}
		}
		if !slices.Contains(user.Groups, authenticator.AuthenticatedGroup) {
			user.Groups = append(user.Groups, authenticator.AuthenticatedGroup)
		}
		for _, hdr := range []string{headerImpersonateUser, headerImpersonateGroup, headerImpersonateUID} {
			r.Header.Del(hdr)
		}
		klog.V(3).InfoS("Impersonating", "actor", actor.Name, "user", user.Name, "groups", user.Groups)
		h.ServeHTTP(w, withUser(r, user))
	})
}
