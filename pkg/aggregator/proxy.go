package aggregator

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"k8s.io/klog/v2"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	"kubecore.io/kubecore/pkg/webhook"
)

// clientConfig is how to reach s's server.
func clientConfig(s *apiregistrationv1.APIService) webhook.ClientConfig {
	cc := webhook.NewClientConfig(nil, s.Spec.CABundle, webhook.NewServiceReference(s.Spec.Service.Namespace, s.Spec.Service.Name, nil, s.Spec.Service.Port))
	cc.InsecureSkipTLSVerify = s.Spec.InsecureSkipTLSVerify
	return cc
}

// proxy forwards r to a ready endpoint of s's Service as the front proxy:
// the client's credentials stay here, and who it is goes in the identity
// headers. Responses are flushed as they come (watches, logs) and
// upgrades (exec-like) are spliced through.
func (a *Aggregator) proxy(w http.ResponseWriter, r *http.Request, s *apiregistrationv1.APIService) {
	user, ok := apirequest.UserFrom(r.Context())
	if !ok {
		writeStatus(w, apierrors.NewUnauthorized("no user on the request"))
		return
	}
	loc, err := a.resolver.Locate(r.Context(), clientConfig(s))
	if err != nil {
		writeStatus(w, apierrors.NewServiceUnavailable(fmt.Sprintf("service unavailable: %v", err)))
		return
	}
	transport, err := a.cfg.Clients.Transport(loc)
	if err != nil {
		writeStatus(w, apierrors.NewServiceUnavailable(fmt.Sprintf("service unavailable: %v", err)))
		return
	}
	target := loc.URL
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = &url.URL{Scheme: target.Scheme, Host: target.Host, Path: pr.In.URL.Path, RawPath: pr.In.URL.RawPath, RawQuery: pr.In.URL.RawQuery}
			pr.Out.Host = ""
			setIdentity(pr.Out.Header, user)
		},
		Transport:     transport,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			klog.V(2).InfoS("Cannot reach an aggregated API server", "apiService", s.Name, "url", target.Host, "err", err)
			writeStatus(w, apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err)))
		},
	}
	rp.ServeHTTP(w, r)
}

// setIdentity replaces the credentials and identity headers of h with
// user's front-proxy headers.
func setIdentity(h http.Header, user *apirequest.UserInfo) {
	h.Del("Authorization")
	for k := range h {
		if strings.HasPrefix(k, "Impersonate-") || strings.HasPrefix(k, authenticator.RemoteExtraHeaderPrefix) {
			h.Del(k)
		}
	}
	h.Set(authenticator.RemoteUserHeader, user.Name)
	h.Del(authenticator.RemoteGroupHeader)
	for _, g := range user.Groups {
		h.Add(authenticator.RemoteGroupHeader, g)
	}
	for k, values := range user.Extra {
		key := authenticator.RemoteExtraHeaderPrefix + url.PathEscape(k)
		for _, v := range values {
			h.Add(key, v)
		}
	}
}
