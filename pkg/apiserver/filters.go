package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/apirequest"
)

// buildFilters wraps h in the filter chain, outermost first: panic
// recovery, request info, logging and metrics, audit, authentication,
// per-user rate limit, impersonation, authorization, priority and
// fairness (or, without it, max in flight), timeout, body limit,
// warnings.
func (s *Server) buildFilters(h http.Handler) http.Handler {
	h = withWarnings(h)
	h = s.withBodyLimit(h)
	h = s.withTimeout(h)
	if s.flow != nil {
		h = s.withPriorityAndFairness(h)
	} else {
		h = s.withMaxInFlight(h)
	}
	h = s.withAuthorization(h)
	h = s.withImpersonation(h)
	h = s.withUserRateLimit(h)
	h = s.withAuthentication(h)
	h = s.withAudit(h)
	h = s.withLoggingAndMetrics(h)
	h = withRequestInfo(h)
	h = withPanicRecovery(h)
	return h
}

// isLongRunning: watches, and the subresources that stream or hold a
// connection open (Kubernetes' list: attach, exec, log, portforward,
// proxy), are exempt from the in-flight limit and timeout.
func isLongRunning(info *apirequest.RequestInfo) bool {
	if info == nil {
		return false
	}
	if info.Verb == "watch" || info.Verb == "proxy" {
		return true
	}
	switch info.Subresource {
	case "attach", "exec", "log", "portforward", "proxy":
		return info.IsResourceRequest
	}
	return false
}

func withPanicRecovery(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				klog.ErrorS(fmt.Errorf("panic: %v", p), "Recovered from a panic in a request handler", "method", r.Method, "path", r.URL.Path, "stack", string(debug.Stack()))
				writeError(w, apierrors.NewInternalError(fmt.Errorf("a panic occurred while serving the request: %v", p)))
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// withWarnings lets the registry and admission add warnings to a request
// (apirequest.AddWarning): each distinct one becomes a Warning header of
// the response, which must not have started yet.
func withWarnings(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var (
			mu   sync.Mutex
			seen = map[string]bool{}
		)
		rec := func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			if !seen[msg] {
				seen[msg] = true
				addWarnings(w, []string{msg})
			}
		}
		h.ServeHTTP(w, r.WithContext(apirequest.WithWarningRecorder(r.Context(), rec)))
	})
}

func withRequestInfo(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(apirequest.WithRequestInfo(r.Context(), parseRequestInfo(r))))
	})
}

// statusRecorder remembers the response code for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// requestUserKey is the context key of a *requestUser: the logging filter
// runs outside authentication and never sees the request authentication
// passes on, so it leaves this slot for authentication to fill.
type requestUserKey struct{}

// requestUser is who the request is from, set by the authentication and
// impersonation filters on the goroutine of the logging filter: name is
// the user it acts as, user who authenticated, impersonated whom it
// impersonates.
type requestUser struct {
	name               string
	user, impersonated *apirequest.UserInfo
}

func (s *Server) withLoggingAndMetrics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		authenticated := &requestUser{}
		r = r.WithContext(context.WithValue(r.Context(), requestUserKey{}, authenticated))
		defer func() {
			code := rec.code
			if code == 0 {
				code = http.StatusOK
			}
			info, _ := apirequest.RequestInfoFrom(r.Context())
			d := time.Since(start)
			if info != nil && info.IsResourceRequest {
				s.metrics.observe(metricVerb(info.Verb), info.APIGroup, info.APIVersion, info.Resource, info.Subresource, code, d)
			} else {
				s.metrics.observe(r.Method, "", "", "", "", code, d)
			}
			klog.V(3).InfoS("HTTP", "verb", r.Method, "URI", r.URL.RequestURI(), "latency", d, "userAgent", r.UserAgent(), "user", authenticated.name, "code", code)
		}()
		h.ServeHTTP(rec, r)
	})
}

// isPublicPath: health and version need no credentials.
func isPublicPath(p string) bool {
	for _, root := range []string{"/healthz", "/livez", "/readyz"} {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return p == "/version"
}

// withUser returns r carrying user, and tells the logger and the audit
// who it is: the first user of a request is the authenticated one, a
// second the one it impersonates.
func withUser(r *http.Request, user *apirequest.UserInfo) *http.Request {
	if slot, ok := r.Context().Value(requestUserKey{}).(*requestUser); ok {
		slot.name = user.Name
		if slot.user == nil {
			slot.user = user
		} else {
			slot.impersonated = user
		}
	}
	return r.WithContext(apirequest.WithUser(r.Context(), user))
}

func (s *Server) withAuthentication(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok, err := s.cfg.Authenticator.AuthenticateRequest(r)
		if err != nil {
			klog.V(2).InfoS("Authentication failed", "err", err)
		}
		if ok && err == nil {
			r = withUser(r, user)
		} else if !isPublicPath(r.URL.Path) {
			writeError(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// withMaxInFlight refuses requests beyond the in-flight limits with 429
// and Retry-After: 1. Long-running requests, health and version, and
// system:masters (as in Kubernetes, so that an administrator can act on
// an overloaded server) are not counted.
func (s *Server) withMaxInFlight(h http.Handler) http.Handler {
	readOnly := make(chan struct{}, s.cfg.MaxRequestsInFlight)
	mutating := make(chan struct{}, s.cfg.MaxMutatingRequestsInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := apirequest.RequestInfoFrom(r.Context())
		user, _ := apirequest.UserFrom(r.Context())
		if isLongRunning(info) || isPublicPath(r.URL.Path) || isMaster(user) {
			h.ServeHTTP(w, r)
			return
		}
		sem, kind := readOnly, "readOnly"
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			sem, kind = mutating, "mutating"
		}
		select {
		case sem <- struct{}{}:
		default:
			writeError(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
			return
		}
		g := s.metrics.inFlight.WithLabelValues(kind)
		g.Inc()
		defer func() {
			g.Dec()
			<-sem
		}()
		h.ServeHTTP(w, r)
	})
}

func (s *Server) withBodyLimit(h http.Handler) http.Handler {
	limit := s.cfg.MaxRequestBodyBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			writeError(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit)))
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		h.ServeHTTP(w, r)
	})
}

// withTimeout ends non-watch requests after RequestTimeout with a 504
// Timeout Status. The handler writes into a buffer that is copied out when
// it finishes in time, so that a late handler's half answer never reaches
// the client; a body past streamAfter (a list of thousands of objects)
// goes out as it is written instead, and such a response ends when its
// handler does. A panic in the handler is re-raised for the recovery
// filter.
func (s *Server) withTimeout(h http.Handler) http.Handler {
	timeout := s.cfg.RequestTimeout
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := apirequest.RequestInfoFrom(r.Context())
		if isLongRunning(info) || timeout <= 0 {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		tw := &timeoutWriter{w: w, header: http.Header{}}
		done := make(chan struct{})
		panicked := make(chan any, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					panicked <- p
					return
				}
				close(done)
			}()
			h.ServeHTTP(tw, r.WithContext(ctx))
		}()
		select {
		case p := <-panicked:
			panic(p)
		case <-done:
			tw.mu.Lock()
			defer tw.mu.Unlock()
			tw.commitLocked()
		case <-ctx.Done():
			tw.mu.Lock()
			if tw.committed {
				// Part of the answer is out: it can only end with the
				// handler, whose context is done now.
				tw.mu.Unlock()
				select {
				case p := <-panicked:
					panic(p)
				case <-done:
				}
				return
			}
			defer tw.mu.Unlock()
			tw.timedOut = true
			writeError(w, apierrors.NewTimeoutError(fmt.Sprintf("request did not complete within requested timeout - %s", ctx.Err()), 0))
		}
	})
}

// streamAfter is the body size past which a response is written through.
const streamAfter = 256 << 10

// timeoutWriter buffers a response until the handler finishes in time, or
// until its body outgrows streamAfter.
type timeoutWriter struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	header    http.Header
	buf       bytes.Buffer
	code      int
	timedOut  bool
	committed bool
}

func (t *timeoutWriter) Header() http.Header { return t.header }

func (t *timeoutWriter) WriteHeader(code int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.code == 0 {
		t.code = code
	}
}

func (t *timeoutWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	if t.code == 0 {
		t.code = http.StatusOK
	}
	if !t.committed && t.buf.Len()+len(b) <= streamAfter {
		return t.buf.Write(b)
	}
	t.commitLocked()
	return t.w.Write(b)
}

// commitLocked sends the status, the headers and the buffered body.
func (t *timeoutWriter) commitLocked() {
	if t.committed {
		return
	}
	t.committed = true
	dst := t.w.Header()
	for k, v := range t.header {
		dst[k] = v
	}
	if t.code == 0 {
		t.code = http.StatusOK
	}
	t.w.WriteHeader(t.code)
	_, _ = t.w.Write(t.buf.Bytes())
	t.buf.Reset()
}

// metricVerb is the verb label Kubernetes' request metrics use.
func metricVerb(verb string) string {
	switch verb {
	case "create":
		return "POST"
	case "update":
		return "PUT"
	}
	return strings.ToUpper(verb)
}
