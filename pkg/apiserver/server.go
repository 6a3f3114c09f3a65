package apiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"

	"kubecore.io/kubecore/pkg/apiserver/flowcontrol"
	"kubecore.io/kubecore/pkg/openapi"
)

// Server is a running (or runnable) API server. Make one with New, then call
// Run once.
type Server struct {
	cfg        *completedConfig
	serializer *runtime.Serializer
	strict     *runtime.Serializer
	protobuf   *protobuf.Serializer
	container  *restful.Container
	handler    http.Handler
	metrics    *metrics
	registry   *prometheus.Registry
	// flow is API priority and fairness, nil when off.
	flow *flowcontrol.Controller
	// openapi serves the OpenAPI documents, the dynamic groups' too.
	openapi *openapi.Handler
	// static is the discovery of the built-in groups; discovery caches
	// the documents of /apis.
	static    staticDiscovery
	discovery discoveryCache

	shuttingDown atomic.Bool
	ready        chan struct{}
	addrMu       sync.Mutex
	addr         net.Addr
	// watchStop is closed when shutdown starts, ending every watch.
	watchStop chan struct{}
}

// New builds the server's handler: routes for every installed resource,
// discovery, health, metrics and the filter chain.
func New(c CompletedConfig) (*Server, error) {
	if c.completedConfig == nil {
		return nil, errors.New("apiserver config was not completed")
	}
	// go-restful keeps this switch in a package variable; write it only
	// while it is still set so that a second server in the process does not
	// race with the first one's handlers reading it.
	if restful.PrettyPrintResponses {
		restful.PrettyPrintResponses = false
	}
	s := &Server{
		cfg:        c.completedConfig,
		serializer: runtime.NewSerializer(c.Scheme, runtime.SerializerOptions{}),
		strict:     runtime.NewSerializer(c.Scheme, runtime.SerializerOptions{Strict: true}),
		protobuf:   protobuf.NewSerializer(c.Scheme),
		container:  restful.NewContainer(),
		ready:      make(chan struct{}),
		watchStop:  make(chan struct{}),
		registry:   prometheus.NewRegistry(),
	}
	s.metrics = newMetrics(s.registry)
	if s.flow = s.cfg.newFlowControl(); s.flow != nil {
		if err := s.registry.Register(s.flow.Metrics()); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	for _, c := range c.Metrics {
		if err := s.registry.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	s.container.Router(restful.CurlyRouter{})
	s.container.DoNotRecover(true)
	s.container.ServiceErrorHandler(s.serviceError)
	if err := s.installAPI(); err != nil {
		return nil, err
	}
	if err := s.installDiscovery(); err != nil {
		return nil, err
	}
	if err := s.installOpenAPI(); err != nil {
		return nil, err
	}
	if c.Dynamic != nil {
		if err := c.Dynamic.bind(s); err != nil {
			return nil, err
		}
	}
	if b, ok := c.Aggregator.(OpenAPIBinder); ok {
		b.BindOpenAPI(s.openapi)
	}
	s.installHealth()
	s.container.Handle("/metrics", promhttpHandler(s.registry))
	if s.cfg.Profiling {
		s.container.Handle("/debug/pprof/", http.HandlerFunc(pprof.Index))
		s.container.Handle("/debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline))
		s.container.Handle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
		s.container.Handle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
		s.container.Handle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
	}
	s.handler = s.buildFilters(s.container)
	return s, nil
}

// Handler returns the full handler with every filter; tests may serve it
// themselves.
func (s *Server) Handler() http.Handler { return s.handler }

// Ready is closed once the server accepts connections.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr is the bound address, once Ready is closed.
func (s *Server) Addr() net.Addr {
	s.addrMu.Lock()
	defer s.addrMu.Unlock()
	return s.addr
}

// Run serves until ctx ends, then shuts down gracefully: /readyz fails
// first (for ShutdownDelay while everything else is still served), then
// watches end, the listener closes and in-flight requests finish (up to
// ShutdownTimeout).
func (s *Server) Run(ctx context.Context) error {
	ln := s.cfg.Listener
	if ln == nil {
		var err error
		ln, err = net.Listen("tcp", s.cfg.address())
		if err != nil {
			return fmt.Errorf("listen on %s: %w", s.cfg.address(), err)
		}
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 30 * time.Second,
	}
	if s.cfg.ServingCert != nil || s.cfg.GetServingCert != nil {
		srv.TLSConfig = &tls.Config{
			// Certificates are verified by the authenticator, so that a
			// bad one gets a 401 Status rather than a failed handshake.
			ClientAuth: tls.RequestClientCert,
			ClientCAs:  s.cfg.ClientCA,
			MinVersion: tls.VersionTLS12,
			NextProtos: []string{"h2", "http/1.1"},
		}
		if get := s.cfg.GetServingCert; get != nil {
			srv.TLSConfig.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return get(), nil }
		} else {
			srv.TLSConfig.Certificates = []tls.Certificate{*s.cfg.ServingCert}
		}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	s.addrMu.Lock()
	s.addr = ln.Addr()
	s.addrMu.Unlock()

	var flowDone chan struct{}
	if s.flow != nil {
		flowCtx, stopFlow := context.WithCancel(ctx)
		flowDone = make(chan struct{})
		go func() {
			defer close(flowDone)
			if err := s.cfg.FlowConfig.RunFlowConfig(flowCtx, s.flow.Configure); err != nil {
				klog.ErrorS(err, "Priority and fairness configuration stopped")
			}
		}()
		defer func() {
			stopFlow()
			<-flowDone
		}()
	}
	errCh := make(chan error, 1)
	go func() { errCh <- srv.Serve(ln) }()
	if s.flow != nil {
		// Ready once requests are classified, as Kubernetes' readiness
		// waits for its priority-and-fairness-config-consumer hook.
		select {
		case <-s.flow.ConfiguredNotify():
		case <-flowDone:
		case <-ctx.Done():
		}
	}
	close(s.ready)
	klog.V(2).InfoS("API server is serving", "address", ln.Addr().String())

	select {
	case err := <-errCh:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	klog.InfoS("API server is shutting down", "delay", s.cfg.ShutdownDelay)
	s.shuttingDown.Store(true)
	if s.cfg.ShutdownDelay > 0 {
		t := time.NewTimer(s.cfg.ShutdownDelay)
		select {
		case <-t.C:
		case err := <-errCh:
			t.Stop()
			return fmt.Errorf("serve: %w", err)
		}
	}
	close(s.watchStop)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	<-errCh
	for _, g := range s.cfg.Groups {
		for path, st := range g.Storage {
			if !strings.Contains(path, "/") {
				st.Destroy()
			}
		}
	}
	if err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}
