// Package server is the kubelet's HTTPS API, with the URLs and query
// parameters of Kubernetes' kubelet so that an apiserver proxies pods/log
// and pods/exec to it unchanged.
//
// The contract (GET unless said otherwise):
//
//	/healthz                                 "ok"
//	/pods                                    the node's pods, a v1 PodList (JSON)
//	/stats/summary                           the stats/v1alpha1 Summary (JSON)
//	/metrics/resource                        CPU and memory of the node, pods and
//	                                         containers (Prometheus text)
//	/containerLogs/{namespace}/{pod}/{container}
//	    follow=true          stream until the container stops or the client goes
//	    previous=true        the container's previous instance
//	    timestamps=true      prefix each line with its RFC 3339 (nanoseconds) time
//	    tailLines=N          only the last N lines
//	    sinceSeconds=N       only lines newer than N seconds
//	    sinceTime=RFC3339    only lines at or after the time (sinceSeconds wins)
//	    limitBytes=N         at most N bytes of output
//	/exec/{namespace}/{pod}/{container}      (GET or POST; also
//	/exec/{namespace}/{pod}/{uid}/{container})
//	    command=ARG          repeated, the command and its arguments
//	    stdin, stdout, stderr, tty = true|1  the streams to attach
//	/attach/{namespace}/{pod}/{container}    (GET or POST; also with {uid})
//	    stdin, stdout, stderr, tty           as exec, to the container's own
//	                                         process: output from now on; the
//	                                         error channel says Success when
//	                                         the container exits
//
// Errors before any output are plain text with the status code: 400 for a
// bad parameter, 404 for an unknown pod or container. Exec upgrades to a
// WebSocket with the first subprotocol the client lists of
// v5.channel.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io,
// channel.k8s.io and base64.channel.k8s.io (none listed: channel.k8s.io's
// framing; only others: 400): binary messages whose first byte is the
// channel: 0 stdin (client to server), 1 stdout, 2 stderr, 3 error, 4
// resize (client to server, {"Width":W,"Height":H}); the base64 ones send
// text messages instead, the channel as an ASCII digit and the payload in
// base64. The server first sends an empty message on stdout (or stderr, or
// error, the first it writes). The error channel carries the outcome once,
// at the end: in v4 and v5 a meta/v1 Status JSON (Success, or Failure with
// reason NonZeroExitCode and a cause {reason: ExitCode, message:
// "<code>"}); in the older two only a failure's message, as text. In v5, a
// message [255, channel] from the client closes that channel (255 0: end
// of stdin). A request upgrading to
// SPDY/3.1 instead (X-Stream-Protocol-Version v5 or v4.channel.k8s.io, the
// fallback of kubectl when its WebSocket upgrade fails) gets one SPDY stream
// per channel, opened by the client with a streamType header (error, stdin,
// stdout, stderr, resize); closing a stream's write half ends it, and the
// error stream carries the same Status. A request upgrading to neither
// gets 400.
//
// The secure port requires a client certificate that chains to the
// cluster CA (the apiserver's kubelet client certificate, metrics-server's)
// and, with an Authorizer, the permission the request maps to: verb on
// nodes/stats, nodes/metrics, nodes/log, nodes/spec or nodes/proxy, as
// the kubelet asks the API server with a SubjectAccessReview; the read-only
// port, when enabled, serves /healthz and /pods on loopback without
// authentication.
package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Host is the kubelet as the server sees it.
type Host interface {
	// Pods are the pods the kubelet runs.
	Pods() []*corev1.Pod
	// Container is the runtime's newest (or, with previous, the one
	// before) container of the pod's container named name; an error
	// wrapping kruntime.ErrNotFound when there is none.
	Container(ctx context.Context, namespace, pod, name string, previous bool) (*kruntime.ContainerStatus, error)
	// Runtime runs execs.
	Runtime() kruntime.Runtime
	// Sandbox returns the ready sandbox of a pod the kubelet runs.
	Sandbox(ctx context.Context, namespace, pod string) (*kruntime.PodSandboxStatus, error)
}

// Config configures a Server.
type Config struct {
	Host Host
	// Address and Port of the secure server; port 0 picks a free one.
	Address string
	Port    int
	// ReadOnlyPort, when positive, serves /healthz and /pods over plain
	// HTTP on 127.0.0.1 (-1: a free port, for tests).
	ReadOnlyPort int
	// Certificate is the serving certificate.
	Certificate tls.Certificate
	// ClientCAs verify client certificates; every request needs one.
	ClientCAs *x509.CertPool
	// LogPollInterval is how often a followed log is read (100 ms).
	LogPollInterval time.Duration
	// Stats serves /stats/summary and /metrics/resource; nil serves 404.
	Stats SummaryProvider
	// Authorizer, when set, decides every request of the secure port
	// (see Attributes); NodeName is the node it asks about.
	Authorizer Authorizer
	NodeName   string
}

// Server is the kubelet's HTTPS server, listening once New returns.
type Server struct {
	cfg      Config
	secure   net.Listener
	readOnly net.Listener
}

// New checks cfg and listens on its ports.
func New(cfg Config) (*Server, error) {
	if cfg.Host == nil {
		return nil, errors.New("kubelet server: a host is required")
	}
	if cfg.ClientCAs == nil {
		return nil, errors.New("kubelet server: a client CA is required: only clients with a certificate of the cluster CA may call the kubelet")
	}
	if cfg.LogPollInterval <= 0 {
		cfg.LogPollInterval = 100 * time.Millisecond
	}
	tlsCfg := &tls.Config{
		Certificates: []tls.Certificate{cfg.Certificate},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    cfg.ClientCAs,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"}, // WebSocket upgrades need HTTP/1.1
	}
	l, err := net.Listen("tcp", net.JoinHostPort(cfg.Address, strconv.Itoa(cfg.Port)))
	if err != nil {
		return nil, fmt.Errorf("kubelet server: %w", err)
	}
	s := &Server{cfg: cfg, secure: tls.NewListener(l, tlsCfg)}
	if cfg.ReadOnlyPort != 0 {
		port := max(cfg.ReadOnlyPort, 0)
		ro, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			_ = l.Close()
			return nil, fmt.Errorf("kubelet read-only server: %w", err)
		}
		s.readOnly = ro
	}
	return s, nil
}

// Addr is the secure server's address.
func (s *Server) Addr() net.Addr { return s.secure.Addr() }

// ReadOnlyAddr is the read-only server's address, nil when disabled.
func (s *Server) ReadOnlyAddr() net.Addr {
	if s.readOnly == nil {
		return nil
	}
	return s.readOnly.Addr()
}

// Handler serves the whole API (the secure port's), behind the
// Authorizer when there is one.
func (s *Server) Handler() http.Handler {
	mux := s.readOnlyMux()
	mux.HandleFunc("GET /stats/summary", s.serveSummary)
	mux.HandleFunc("GET /metrics/resource", s.serveResourceMetrics)
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", s.serveLogs)
	for _, p := range []string{"/exec/{namespace}/{pod}/{container}", "/exec/{namespace}/{pod}/{uid}/{container}"} {
		mux.HandleFunc("GET "+p, s.serveExec)
		mux.HandleFunc("POST "+p, s.serveExec)
	}
	for _, p := range []string{"/attach/{namespace}/{pod}/{container}", "/attach/{namespace}/{pod}/{uid}/{container}"} {
		mux.HandleFunc("GET "+p, s.serveAttach)
		mux.HandleFunc("POST "+p, s.serveAttach)
	}
	for _, p := range []string{"/portForward/{namespace}/{pod}", "/portForward/{namespace}/{pod}/{uid}"} {
		mux.HandleFunc("GET "+p, s.servePortForward)
		mux.HandleFunc("POST "+p, s.servePortForward)
	}
	return s.authorize(mux)
}

func (s *Server) readOnlyMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /pods", s.servePods)
	return mux
}

// Serve serves until ctx ends, then closes the listeners and open
// connections.
func (s *Server) Serve(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	servers := []*http.Server{{Handler: s.Handler(), ReadHeaderTimeout: 30 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}}
	listeners := []net.Listener{s.secure}
	if s.readOnly != nil {
		servers = append(servers, &http.Server{Handler: s.readOnlyMux(), ReadHeaderTimeout: 30 * time.Second})
		listeners = append(listeners, s.readOnly)
	}
	errs := make(chan error, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		logger.Info("Kubelet server listening", "address", listeners[i].Addr().String(), "readOnly", i > 0)
		wg.Go(func() {
			if err := srv.Serve(listeners[i]); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs <- fmt.Errorf("kubelet server %s: %w", listeners[i].Addr(), err)
			}
		})
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	for _, srv := range servers {
		_ = srv.Close()
	}
	wg.Wait()
	return err
}

func (s *Server) servePods(w http.ResponseWriter, _ *http.Request) {
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
	for _, p := range s.cfg.Host.Pods() {
		list.Items = append(list.Items, *p)
	}
	if list.Items == nil {
		list.Items = []corev1.Pod{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&list)
}

// LoadClientCAs reads a PEM bundle of CA certificates.
func LoadClientCAs(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("client CA %s: no certificate found", path)
	}
	return pool, nil
}

// httpError writes a plain-text error.
func httpError(w http.ResponseWriter, code int, format string, a ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, format+"\n", a...)
}

// containerError answers a failed Host.Container.
func containerError(w http.ResponseWriter, err error) {
	if errors.Is(err, kruntime.ErrNotFound) {
		httpError(w, http.StatusNotFound, "%v", err)
		return
	}
	httpError(w, http.StatusInternalServerError, "%v", err)
}
