package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/auth/authenticator"
	authz "kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Defaults of a Config's limits, as Kubernetes sets them.
const (
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
	DefaultRequestTimeout              = 60 * time.Second
	DefaultMaxRequestBodyBytes         = 3 * 1024 * 1024
	DefaultMinWatchTimeout             = 30 * time.Minute
)

// APIGroupInfo is one group version's resources: each key is a resource
// path ("pods", "pods/status", "deployments/scale") and each value the
// storage serving it. The verbs offered are the rest interfaces the storage
// implements.
type APIGroupInfo struct {
	GroupVersion schema.GroupVersion
	Storage      map[string]rest.Storage
}

// HealthCheck is one named check of /readyz (and /healthz).
type HealthCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Authenticator identifies the user of a request (pkg/auth/authenticator).
type Authenticator = authenticator.Request

// Aggregator serves the group versions of APIServices backed by other
// servers. Their requests pass authentication, authorization and the
// other filters first; a path no built-in or dynamic route serves is
// then offered to ServeAggregated, which answers it and returns true, or
// returns false having written nothing. /apis lists APIGroups after the
// built-in and dynamic groups.
type Aggregator interface {
	ServeAggregated(w http.ResponseWriter, r *http.Request) bool
	APIGroups() []metav1.APIGroup
}

// OpenAPIDocuments are the server's OpenAPI v3 documents: an Aggregator
// that is also an OpenAPIBinder is handed them when the server is built,
// to serve the documents of its group versions, keyed
// "apis/<group>/<version>".
type OpenAPIDocuments interface {
	SetDocument(key string, data []byte)
	RemoveGroupVersion(gv schema.GroupVersion)
}

// OpenAPIBinder is implemented by an Aggregator that serves the OpenAPI
// documents of its group versions.
type OpenAPIBinder interface {
	BindOpenAPI(OpenAPIDocuments)
}

// Config is what an API server serves and how. Fill it, then Complete it.
type Config struct {
	// Scheme knows every served kind and its defaults.
	Scheme *runtime.Scheme
	// Groups are the installed group versions.
	Groups []APIGroupInfo
	// Dynamic, when set, holds group versions installed and removed while
	// the server runs (custom resources).
	Dynamic *DynamicGroups
	// Aggregator, when set, serves the group versions other API servers
	// serve (the aggregation layer, pkg/aggregator).
	Aggregator Aggregator
	// ReadyChecks run on /readyz and /healthz (an etcd check, typically).
	ReadyChecks []HealthCheck
	// Profiling serves Go's profiles under /debug/pprof/ (authorized as
	// non-resource URLs: system:masters, or a role granting them).
	Profiling bool
	// Paths are further non-resource paths and their handlers (service
	// account issuer discovery), authorized as non-resource URLs.
	Paths map[string]http.Handler

	// BindAddress and Port say where to listen (Port 0: any free port).
	BindAddress string
	Port        int
	// Listener, when set, is used instead of BindAddress and Port.
	Listener net.Listener
	// ServingCert is the TLS certificate; ClientCA verifies client
	// certificates. Without ServingCert the server speaks plain HTTP (tests).
	ServingCert *tls.Certificate
	ClientCA    *x509.CertPool
	// GetServingCert, when set, replaces ServingCert: it is asked at every
	// TLS handshake, so that a renewed certificate is served at once.
	GetServingCert func() *tls.Certificate
	// Authenticator overrides the client certificate authenticator.
	Authenticator Authenticator
	// Authorizer decides on every authenticated request but those of
	// health and version; only system:masters may do anything when nil.
	Authorizer authz.Authorizer

	// FlowConfig, when set, turns on API priority and fairness
	// (flowcontrol.go) in place of the plain in-flight limits: the
	// server's seats are MaxRequestsInFlight + MaxMutatingRequestsInFlight,
	// shared by the priority levels FlowConfig delivers. A queued request
	// waits at most FlowQueueWait (a quarter of RequestTimeout when zero).
	FlowConfig    FlowConfigSource
	FlowQueueWait time.Duration

	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	RequestTimeout              time.Duration
	MaxRequestBodyBytes         int64
	// MaxRequestsPerUserPerSecond, when positive, limits each user to this
	// many requests a second, in bursts of up to MaxRequestsPerUserBurst
	// (twice the rate, at least 1, when zero); see ratelimit.go for who is
	// exempt.
	MaxRequestsPerUserPerSecond float64
	MaxRequestsPerUserBurst     int
	// Audit, when set, receives an event for every request (audit.go).
	Audit AuditSink
	// MinWatchTimeout bounds watches without timeoutSeconds (each gets a
	// random duration between it and twice it).
	MinWatchTimeout time.Duration
	// ShutdownTimeout bounds the wait for in-flight requests on shutdown.
	ShutdownTimeout time.Duration
	// Metrics are collectors served on /metrics beside the server's own
	// (the etcd compactor's, the database sizes).
	Metrics []prometheus.Collector
	// ShutdownDelay is how long the server goes on serving after shutdown
	// begins, with /readyz failing, before it stops listening, so that load
	// balancers take it out of rotation first (Kubernetes'
	// --shutdown-delay-duration). Zero stops listening at once.
	ShutdownDelay time.Duration
}

// CompletedConfig is a validated Config with its defaults filled in; only
// Complete makes one.
type CompletedConfig struct {
	*completedConfig
}

type completedConfig struct {
	Config
}

// Complete validates c and fills in defaults.
func (c Config) Complete() (CompletedConfig, error) {
	var errs []error
	if c.Scheme == nil {
		errs = append(errs, errors.New("scheme is required"))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d is out of range", c.Port))
	}
	seen := map[schema.GroupVersion]bool{}
	for _, g := range c.Groups {
		if g.GroupVersion.Version == "" {
			errs = append(errs, fmt.Errorf("group %q has no version", g.GroupVersion.Group))
		}
		if seen[g.GroupVersion] {
			errs = append(errs, fmt.Errorf("group version %s installed twice", g.GroupVersion))
		}
		seen[g.GroupVersion] = true
	}
	if r := c.MaxRequestsPerUserPerSecond; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) || c.MaxRequestsPerUserBurst < 0 {
		errs = append(errs, fmt.Errorf("per-user rate limit %g/s, burst %d: must be finite and not negative", r, c.MaxRequestsPerUserBurst))
	}
	if err := errors.Join(errs...); err != nil {
		return CompletedConfig{}, fmt.Errorf("invalid apiserver config: %w", err)
	}
	if c.BindAddress == "" {
		c.BindAddress = "127.0.0.1"
	}
	if c.MaxRequestsInFlight == 0 {
		c.MaxRequestsInFlight = DefaultMaxRequestsInFlight
	}
	if c.MaxMutatingRequestsInFlight == 0 {
		c.MaxMutatingRequestsInFlight = DefaultMaxMutatingRequestsInFlight
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.FlowQueueWait <= 0 {
		c.FlowQueueWait = c.RequestTimeout / 4
	}
	if c.MaxRequestBodyBytes == 0 {
		c.MaxRequestBodyBytes = DefaultMaxRequestBodyBytes
	}
	if c.MaxRequestsPerUserPerSecond > 0 && c.MaxRequestsPerUserBurst == 0 {
		c.MaxRequestsPerUserBurst = max(1, int(math.Ceil(2*c.MaxRequestsPerUserPerSecond)))
	}
	if c.MinWatchTimeout == 0 {
		c.MinWatchTimeout = DefaultMinWatchTimeout
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = c.RequestTimeout
	}
	if c.Authenticator == nil {
		c.Authenticator = authenticator.Union{authenticator.NewClientCert(c.ClientCA)}
	}
	if c.Authorizer == nil {
		c.Authorizer = authz.Masters{}
	}
	return CompletedConfig{&completedConfig{c}}, nil
}

// address is the host:port the server listens on.
func (c *completedConfig) address() string {
	return net.JoinHostPort(c.BindAddress, strconv.Itoa(c.Port))
}
