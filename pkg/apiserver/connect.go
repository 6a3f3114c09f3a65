package apiserver

import (
	"net/http"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/apirequest"
	authz "kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// connect serves a rest.Connecter subresource (pods/log, pods/exec): the
// storage checks the request and returns the handler that streams or
// proxies it. Connect requests are long-running: neither the request
// timeout nor the in-flight limit applies.
func (e *endpoint) connect(w http.ResponseWriter, r *http.Request, ns, name string) {
	ctx := requestContext(r, ns)
	c := e.storage.(rest.Connecter)
	if err := e.authorizeCreateOnGet(r, c); err != nil {
		writeError(w, err)
		return
	}
	h, err := c.Connect(ctx, name, r.URL.Query(), responder{w})
	if err != nil {
		writeError(w, err)
		return
	}
	h.ServeHTTP(w, r.WithContext(ctx))
}

// authorizeCreateOnGet checks, for a GET on a connecter that needs it
// (a WebSocket pods/exec), that the user may also create the
// subresource: the filter chain authorized the GET as get.
func (e *endpoint) authorizeCreateOnGet(r *http.Request, c rest.Connecter) error {
	cg, ok := c.(rest.CreateOnGetConnecter)
	if r.Method != http.MethodGet || !ok || !cg.AuthorizeGetAsCreate() {
		return nil
	}
	info, _ := apirequest.RequestInfoFrom(r.Context())
	if info == nil {
		return nil
	}
	user, _ := apirequest.UserFrom(r.Context())
	create := *info
	create.Verb = "create"
	a := authz.Attributes{User: user, Request: &create}
	d, reason, err := e.s.cfg.Authorizer.Authorize(r.Context(), a)
	if d == authz.Allow {
		return nil
	}
	if err != nil {
		klog.V(2).InfoS("Authorization error", "path", r.URL.Path, "err", err)
		if reason == "" {
			reason = err.Error()
		}
	}
	return forbidden(a, reason)
}

// responder answers a connecter's late errors as Statuses.
type responder struct{ w http.ResponseWriter }

func (r responder) Error(err error) { writeError(r.w, err) }
