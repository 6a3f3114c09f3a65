package rest

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"

	"k8s.io/klog/v2"
)

// failoverRoundTripper spreads one client over several API servers of a
// cluster (Config.Host and Config.FailoverHosts). Requests are built for
// the first server; each is sent to the server in use instead, and when
// that server cannot be reached the request goes on to the next ones in
// turn:
//
//   - any request whose connection failed before it was sent (refused, no
//     route, a dial or TLS handshake timeout);
//   - a request that does not change anything (GET, HEAD, OPTIONS: reads and
//     watches) whose connection broke before the response headers came
//     (reset, closed, timed out), since sending it again is harmless. A
//     write in that state may have been applied: its error is returned.
//
// The first server that answers — with any status: an HTTP answer means the
// server is up — becomes the one in use for the requests that follow, so a
// dead server costs one failed connection, not one per request. A watch
// whose server goes away ends with an error; the reflector's next watch
// then goes to the server in use.
type failoverRoundTripper struct {
	rt      http.RoundTripper
	servers []*url.URL
	// current is the index in servers of the server in use.
	current atomic.Int32
}

var _ http.RoundTripper = (*failoverRoundTripper)(nil)

// newFailoverRoundTripper returns rt itself for a single server.
func newFailoverRoundTripper(rt http.RoundTripper, servers []*url.URL) http.RoundTripper {
	if len(servers) < 2 {
		return rt
	}
	return &failoverRoundTripper{rt: rt, servers: servers}
}

func (f *failoverRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	start := int(f.current.Load())
	var errs []error
	for i := range f.servers {
		idx := (start + i) % len(f.servers)
		out, ok := f.retarget(req, idx, i == 0)
		if !ok {
			break
		}
		resp, err := f.rt.RoundTrip(out)
		if err == nil {
			if idx != start && f.current.CompareAndSwap(int32(start), int32(idx)) {
				klog.InfoS("Switched to another API server", "from", f.servers[start].Host, "to", f.servers[idx].Host, "reason", errs[len(errs)-1])
			}
			return resp, nil
		}
		errs = append(errs, &serverError{server: f.servers[idx], err: err})
		if req.Context().Err() != nil || !mayResend(req, err) {
			break
		}
	}
	if len(errs) == 1 {
		return nil, errs[0].(*serverError).err
	}
	return nil, &failoverError{errs: errs}
}

// retarget returns req aimed at servers[idx]: the scheme, host and path
// prefix of the first server replaced by those of servers[idx], with a
// fresh body when the request is sent again. ok is false when the body
// cannot be read a second time.
func (f *failoverRoundTripper) retarget(req *http.Request, idx int, first bool) (*http.Request, bool) {
	if first && idx == 0 {
		return req, true
	}
	out := req.Clone(req.Context())
	if !first {
		switch {
		case req.Body == nil || req.Body == http.NoBody:
		case req.GetBody == nil:
			return nil, false
		default:
			body, err := req.GetBody()
			if err != nil {
				return nil, false
			}
			out.Body = body
		}
	}
	if idx == 0 {
		return out, true
	}
	from, to := f.servers[0], f.servers[idx]
	u := *req.URL
	u.Scheme, u.Host = to.Scheme, to.Host
	if rest, ok := strings.CutPrefix(u.Path, strings.TrimSuffix(from.Path, "/")); ok {
		u.Path = strings.TrimSuffix(to.Path, "/") + rest
		u.RawPath = ""
	}
	out.URL = &u
	out.Host = to.Host
	return out, true
}

// CloseIdleConnections closes the idle connections of the wrapped transport.
func (f *failoverRoundTripper) CloseIdleConnections() { closeIdle(f.rt) }

// mayResend reports whether req may go to another server after err: when
// err says it was never sent, or when req changes nothing and its
// connection broke before any answer.
func mayResend(req *http.Request, err error) bool {
	if notSent(err) {
		return true
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return isConnectionCut(err) || isTimeout(err)
	}
	return false
}

// notSent reports whether err says the request never reached a server:
// no connection could be made or secured. A certificate the client does
// not trust is a configuration error, not a down server.
func notSent(err error) bool {
	var verr *tls.CertificateVerificationError
	if errors.As(err, &verr) {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || strings.Contains(err.Error(), "TLS handshake timeout")
}

// isTimeout reports whether err is a network timeout (not the caller's
// context ending, which the caller checks first).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serverError is the error of one attempt, naming the server.
type serverError struct {
	server *url.URL
	err    error
}

func (e *serverError) Error() string { return e.server.Host + ": " + e.err.Error() }
func (e *serverError) Unwrap() error { return e.err }

// failoverError holds the errors of a request tried on several servers,
// in the order they were tried.
type failoverError struct{ errs []error }

func (e *failoverError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = err.Error()
	}
	return fmt.Sprintf("tried %d API servers: %s", len(e.errs), strings.Join(msgs, "; "))
}

func (e *failoverError) Unwrap() []error { return e.errs }
