// Package proxy is what the proxy subresources of pods, services and
// nodes share: the "[scheme:]name[:port]" names they are asked for, and the
// HTTP reverse proxy (upgrades included) to the location they resolve.
package proxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"strings"

	"k8s.io/klog/v2"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Methods are the HTTP methods a proxy subresource serves.
var Methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// Target is a proxy subresource's name split: "https:web:8443" is
// {https web 8443}; scheme and port may be empty.
type Target struct {
	Scheme, Name, Port string
}

// ParseName splits "[scheme:]name[:port]" as Kubernetes does: with three
// parts the first is the scheme (http or https), with two the second is
// the port.
func ParseName(id string) (Target, error) {
	parts := strings.Split(id, ":")
	var t Target
	switch len(parts) {
	case 1:
		t.Name = parts[0]
	case 2:
		t.Name, t.Port = parts[0], parts[1]
	case 3:
		t.Scheme, t.Name, t.Port = parts[0], parts[1], parts[2]
	default:
		return t, apierrors.NewBadRequest(fmt.Sprintf("invalid request %q", id))
	}
	switch t.Scheme {
	case "", "http", "https":
	default:
		return t, apierrors.NewBadRequest(fmt.Sprintf("invalid scheme %q: must be http or https", t.Scheme))
	}
	if t.Name == "" {
		return t, apierrors.NewBadRequest(fmt.Sprintf("invalid request %q: no name", id))
	}
	return t, nil
}

// insecureTransport reaches pods and service endpoints over https without
// verifying them, as Kubernetes' proxy transport does: they have no
// certificate the API server could check.
var insecureTransport http.RoundTripper = &http.Transport{
	Proxy:           nil,
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // see above
}

// DefaultTransport is for locations that need no client certificate.
func DefaultTransport() http.RoundTripper { return insecureTransport }

// Handler proxies a request, and any connection it upgrades to, to loc
// with the path below the subresource appended; the caller's credentials
// stay in the API server. A location that cannot be reached is answered
// as a 503 Status naming it. As in Kubernetes, a GET or HEAD of the
// subresource itself without a trailing slash is redirected (301) to the
// same path with one, so that the backend's relative links resolve below
// the subresource; and the links of HTML responses (and redirects) that
// point at the backend's own paths are rewritten to go through the
// subresource (see rewriteResponse).
func Handler(ctx context.Context, loc *url.URL, rt http.RoundTripper, resp rest.Responder) http.Handler {
	sub := apirequest.SubpathFrom(ctx)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u := *loc
			u.Path = joinPath(loc.Path, sub)
			u.RawQuery = pr.In.URL.RawQuery
			pr.Out.URL = &u
			pr.Out.Host = loc.Host
			for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization", "Impersonate-User", "Impersonate-Group"} {
				pr.Out.Header.Del(h)
			}
			pr.SetXForwarded()
		},
		Transport:     rt,
		FlushInterval: -1,
		ErrorLog:      klog.NewStandardLogger("INFO"),
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			if req.Context().Err() != nil {
				return // the client went away
			}
			resp.Error(&apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable, Reason: metav1.StatusReasonServiceUnavailable,
				Message: fmt.Sprintf("error trying to reach service: %v", err),
			}})
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if sub == "" && loc.Path == "" && (req.Method == http.MethodGet || req.Method == http.MethodHead) &&
			!strings.HasSuffix(req.URL.Path, "/") && !isUpgrade(req) {
			target := req.URL.Path + "/"
			if req.URL.RawQuery != "" {
				target += "?" + req.URL.RawQuery
			}
			w.Header().Set("Location", target)
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		rw := linkRewriter{backend: loc, prefix: subresourcePrefix(req.URL.Path, sub)}
		p := *rp
		p.ModifyResponse = rw.rewriteResponse
		p.ServeHTTP(w, req)
	})
}

// isUpgrade is a request asking to switch protocols (a WebSocket).
func isUpgrade(req *http.Request) bool {
	for _, v := range req.Header.Values("Connection") {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return true
			}
		}
	}
	return false
}

// subresourcePrefix is the path of the proxy subresource itself
// (.../pods/NAME/proxy): the request's path without the subpath below it.
func subresourcePrefix(reqPath, sub string) string {
	p := strings.TrimSuffix(reqPath, "/")
	if s := strings.Trim(sub, "/"); s != "" {
		p = strings.TrimSuffix(p, "/"+s)
	}
	return p
}

// joinPath appends the subpath to base, keeping a trailing slash the
// client asked for.
func joinPath(base, sub string) string {
	if sub == "" {
		if base == "" {
			return "/"
		}
		return base
	}
	p := path.Join("/", base, sub)
	if strings.HasSuffix(sub, "/") && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}
