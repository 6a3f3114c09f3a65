package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

// Client-go's customary client-side limits, for callers that want them; a
// Config with QPS 0 has no limit.
const (
	DefaultQPS   float32 = 5
	DefaultBurst int     = 10
)

// WithDefaultRateLimits returns a copy of c with DefaultQPS and DefaultBurst
// filled in where c leaves QPS or Burst unset.
func WithDefaultRateLimits(c *Config) *Config {
	out := CopyConfig(c)
	if out.QPS == 0 {
		out.QPS = DefaultQPS
	}
	if out.Burst == 0 {
		out.Burst = DefaultBurst
	}
	return out
}

// WarningHandler receives the Warning headers of responses (RFC 7234, as
// the apiserver sends them for deprecations and fieldValidation=Warn).
type WarningHandler interface {
	HandleWarningHeader(code int, agent, text string)
}

// WarningHandlerFunc adapts a function to WarningHandler.
type WarningHandlerFunc func(code int, agent, text string)

// HandleWarningHeader calls f.
func (f WarningHandlerFunc) HandleWarningHeader(code int, agent, text string) { f(code, agent, text) }

var _ WarningHandler = WarningHandlerFunc(nil)

// RateLimiter delays requests; Wait returns when one may be sent, or the
// context's error.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// contentTypeJSON is the media type of JSON bodies.
const contentTypeJSON = "application/json"

// Client sends requests to one group version of one API server (or, with an
// empty APIPath, to absolute paths such as discovery's). It is safe for
// concurrent use; share one per group version and server.
type Client struct {
	base        *url.URL // server URL, with any path prefix
	source      string   // Config.Source, for errors
	versioned   string   // e.g. /api/v1, /apis/apps/v1, or "" for absolute paths
	group       string   // API group of versioned, for error messages
	httpClient  *http.Client
	timeout     time.Duration
	limiter     RateLimiter
	contentType string
	accept      string
	retry       retryPolicy
	decoder     ObjectDecoder
	protobuf    *protobuf.Serializer // nil: JSON only

	mu       sync.RWMutex
	warnings WarningHandler
}

// ClientOptions are the settings of NewClient beyond the Config: the group
// version served, and the pieces a caller may want to share or replace.
type ClientOptions struct {
	// GroupVersion is "v1" for the core group, "apps/v1" for a named group,
	// or "" for a client of absolute paths (discovery).
	GroupVersion string
	// HTTPClient is used instead of HTTPClientFor(config) when set, so that
	// several clients share connections. Its Timeout should be zero: the
	// Client bounds non-streaming requests with config.Timeout itself.
	HTTPClient *http.Client
	// RateLimiter replaces the token bucket made from config.QPS and Burst.
	RateLimiter RateLimiter
	// WarningHandler receives Warning headers; nil discards them.
	WarningHandler WarningHandler
	// Decoder decodes watch event objects by their kind, e.g. a
	// runtime.Serializer of a scheme knowing every type watched; a request's
	// WatchObject wins over it.
	Decoder runtime.Decoder
	// Protobuf encodes and decodes Kubernetes' protobuf when the config's
	// ContentType asks for it; without it the client speaks JSON.
	Protobuf *protobuf.Serializer
}

// RESTClientFor returns a Client for the group version of the core API
// ("v1" under /api) unless config.APIPath names another root; see NewClient
// for other group versions.
func RESTClientFor(config *Config) (*Client, error) {
	return NewClient(config, ClientOptions{GroupVersion: "v1"})
}

// NewClient returns a Client for opts.GroupVersion of config's server. The
// API root is config.APIPath, or /api for the core group and /apis for
// named groups.
func NewClient(config *Config, opts ClientOptions) (*Client, error) {
	if config == nil {
		return nil, fmt.Errorf("rest client: nil config")
	}
	base, err := config.ServerURL()
	if err != nil {
		return nil, err
	}
	httpClient := opts.HTTPClient
	if httpClient == nil {
		rt, err := TransportFor(config)
		if err != nil {
			return nil, fmt.Errorf("transport for server %s: %w", serverLabel(base, config.Source), err)
		}
		httpClient = &http.Client{Transport: rt}
	}
	c := &Client{
		base:        base,
		source:      config.Source,
		httpClient:  httpClient,
		timeout:     config.Timeout,
		limiter:     opts.RateLimiter,
		contentType: config.ContentType,
		accept:      config.AcceptContentTypes,
		retry:       defaultRetryPolicy(),
		warnings:    opts.WarningHandler,
	}
	if opts.Decoder != nil {
		c.decoder = SchemeDecoder(opts.Decoder)
	}
	if c.contentType == protobuf.ContentType {
		// Bodies that are not objects of a protobuf kind stay JSON, and
		// all of them without a serializer (a dynamic or metadata client).
		c.contentType = ""
		if opts.Protobuf != nil {
			c.protobuf = opts.Protobuf
			if c.accept == "" {
				c.accept = protobuf.ContentType + ", " + contentTypeJSON
			}
		}
	}
	if c.contentType == "" {
		c.contentType = contentTypeJSON
	}
	if c.accept == "" {
		c.accept = contentTypeJSON
	}
	if c.limiter == nil && config.QPS > 0 {
		c.limiter = NewTokenBucket(config.QPS, config.Burst)
	}
	if gv := opts.GroupVersion; gv != "" {
		group, version, named := strings.Cut(gv, "/")
		if !named {
			group, version = "", gv
		}
		if version == "" || strings.Contains(version, "/") {
			return nil, fmt.Errorf("rest client: group version %q: want \"version\" or \"group/version\"", gv)
		}
		root := config.APIPath
		if root == "" {
			root = "/api"
			if group != "" {
				root = "/apis"
			}
		}
		c.group = group
		c.versioned = path.Join("/", root, group, version)
	}
	return c, nil
}

// SetWarningHandler replaces the handler of Warning headers (nil discards
// them).
func (c *Client) SetWarningHandler(h WarningHandler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = h
}

func (c *Client) warningHandler() WarningHandler {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.warnings
}

// Server returns the URL of the client's server.
func (c *Client) Server() string { return c.base.String() }

// Verb starts a request with an HTTP method.
func (c *Client) Verb(verb string) *Request { return newRequest(c, verb) }

// Get starts a GET request.
func (c *Client) Get() *Request { return c.Verb(http.MethodGet) }

// Post starts a POST request.
func (c *Client) Post() *Request { return c.Verb(http.MethodPost) }

// Put starts a PUT request.
func (c *Client) Put() *Request { return c.Verb(http.MethodPut) }

// Patch starts a PATCH request whose body has the given patch content type,
// e.g. application/merge-patch+json.
func (c *Client) Patch(patchType string) *Request {
	return c.Verb(http.MethodPatch).SetHeader("Content-Type", patchType)
}

// Delete starts a DELETE request.
func (c *Client) Delete() *Request { return c.Verb(http.MethodDelete) }

// CloseIdleConnections closes the idle connections of the client's transport.
func (c *Client) CloseIdleConnections() { c.httpClient.CloseIdleConnections() }
