package rest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"kubecore.io/client/util/cert"
)

// TLSConfigFor returns the TLS settings for connections to c's server: the CA
// to trust (the system roots when none is given), the server name, and the
// client certificate, re-read from its files when they change. Errors name
// the file or field that is wrong.
func TLSConfigFor(c *Config) (*tls.Config, error) {
	t := c.TLSClientConfig
	if t.Insecure && t.hasCA() {
		return nil, errors.New("specifying a root certificates file with the insecure flag is not allowed")
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.Insecure,
	}
	if t.hasCA() {
		pool, err := caPool(t)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if t.hasCert() {
		pair, err := clientCertSource(t)
		if err != nil {
			return nil, err
		}
		// Load now, so that a bad file fails here and not at the first request.
		if _, err := pair.get(); err != nil {
			return nil, err
		}
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return pair.get()
		}
	}
	return cfg, nil
}

func caPool(t TLSClientConfig) (*x509.CertPool, error) {
	data, source := t.CAData, "CA data"
	if len(data) == 0 {
		source = "CA file " + t.CAFile
		var err error
		if data, err = os.ReadFile(t.CAFile); err != nil {
			return nil, fileError(source, err)
		}
	}
	certs, err := cert.ParseCertsPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// clientCertSource returns the client certificate and key of t, each given
// inline or by a file that is read again when it changes.
func clientCertSource(t TLSClientConfig) (*reloader[*tls.Certificate], error) {
	certIn := input{what: "client certificate", path: t.CertFile, data: t.CertData}
	keyIn := input{what: "client key", path: t.KeyFile, data: t.KeyData}
	switch {
	case !certIn.given():
		return nil, errors.New("client key given without a client certificate")
	case !keyIn.given():
		return nil, errors.New("client certificate given without a client key")
	}
	name := certIn.describe() + " and " + keyIn.describe()
	return newReloader([]input{certIn, keyIn}, func(data [][]byte) (*tls.Certificate, error) {
		pair, err := tls.X509KeyPair(data[0], data[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &pair, nil
	}), nil
}

// TransportFor returns the RoundTripper for c: c.Transport when set, else an
// HTTP/2-capable transport with keep-alive and c's TLS settings; wrapped to
// add the User-Agent, credentials and impersonation headers, then by
// c.WrapTransport. Share it (or HTTPClientFor's client) between clients of
// one server: every TransportFor call opens its own connections.
func TransportFor(c *Config) (http.RoundTripper, error) {
	if c.BearerToken != "" || c.BearerTokenFile != "" {
		if c.Username != "" || c.Password != "" {
			return nil, errors.New("username/password or bearer token may be set, but not both")
		}
	}
	var rt http.RoundTripper
	if c.Transport != nil {
		if !c.TLSClientConfig.isEmpty() {
			return nil, errors.New("using a custom transport with TLS certificate options or the insecure flag is not allowed")
		}
		rt = c.Transport
	} else {
		tlsConfig, err := TLSConfigFor(c)
		if err != nil {
			return nil, err
		}
		dial := c.Dial
		if dial == nil {
			// With servers to fail over to, an unreachable one should not
			// hold a request long before the next is tried.
			timeout := 30 * time.Second
			if len(c.FailoverHosts) > 0 {
				timeout = 10 * time.Second
			}
			dial = (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext
		}
		proxy := c.Proxy
		if proxy == nil {
			proxy = http.ProxyFromEnvironment
		}
		rt = &trustErrorRoundTripper{
			rt: &http.Transport{
				Proxy:                 proxy,
				DialContext:           dial,
				TLSClientConfig:       tlsConfig,
				TLSHandshakeTimeout:   10 * time.Second,
				ForceAttemptHTTP2:     true,
				MaxIdleConns:          100,
				MaxIdleConnsPerHost:   25,
				IdleConnTimeout:       90 * time.Second,
				ExpectContinueTimeout: time.Second,
				DisableCompression:    c.DisableCompression,
				// Ping an idle HTTP/2 connection so that a dead one (a watch
				// whose server vanished) fails instead of hanging.
				HTTP2: &http.HTTP2Config{SendPingTimeout: 30 * time.Second, PingTimeout: 15 * time.Second},
			},
			trust: trustSource(c.TLSClientConfig),
		}
	}
	servers, err := c.ServerURLs()
	if err != nil && len(c.FailoverHosts) > 0 {
		return nil, err
	}
	rt = newFailoverRoundTripper(rt, servers)
	headers := &headerRoundTripper{
		rt:          rt,
		userAgent:   c.UserAgent,
		username:    c.Username,
		password:    c.Password,
		bearer:      c.BearerToken,
		impersonate: c.Impersonate,
	}
	if headers.userAgent == "" {
		headers.userAgent = DefaultUserAgent()
	}
	if c.BearerToken == "" && c.BearerTokenFile != "" {
		headers.tokenFile = newReloader([]input{{what: "bearer token file", path: c.BearerTokenFile}}, func(data [][]byte) (string, error) {
			token := strings.TrimSpace(string(data[0]))
			if token == "" {
				return "", fmt.Errorf("bearer token file %s: empty", c.BearerTokenFile)
			}
			return token, nil
		})
		if _, err := headers.tokenFile.get(); err != nil {
			return nil, err
		}
	}
	rt = headers
	if c.WrapTransport != nil {
		rt = c.WrapTransport(rt)
	}
	return rt, nil
}

// HTTPClientFor returns an http.Client using TransportFor(c) and c.Timeout.
func HTTPClientFor(c *Config) (*http.Client, error) {
	rt, err := TransportFor(c)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: rt, Timeout: c.Timeout}, nil
}

// headerRoundTripper adds the User-Agent, credentials and impersonation
// headers a request does not already carry.
type headerRoundTripper struct {
	rt          http.RoundTripper
	userAgent   string
	username    string
	password    string
	bearer      string
	tokenFile   *reloader[string]
	impersonate ImpersonationConfig
}

var _ http.RoundTripper = (*headerRoundTripper)(nil)

func (h *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	header := req.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if header.Get("User-Agent") == "" {
		header.Set("User-Agent", h.userAgent)
	}
	if header.Get("Authorization") == "" {
		switch {
		case h.bearer != "":
			header.Set("Authorization", "Bearer "+h.bearer)
		case h.tokenFile != nil:
			token, err := h.tokenFile.get()
			if err != nil {
				closeBody(req)
				return nil, err
			}
			header.Set("Authorization", "Bearer "+token)
		case h.username != "" || h.password != "":
			header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(h.username+":"+h.password)))
		}
	}
	if imp := h.impersonate; imp.UserName != "" || imp.UID != "" || len(imp.Groups) > 0 || len(imp.Extra) > 0 {
		if imp.UserName != "" {
			header.Set("Impersonate-User", imp.UserName)
		}
		if imp.UID != "" {
			header.Set("Impersonate-Uid", imp.UID)
		}
		for _, g := range imp.Groups {
			header.Add("Impersonate-Group", g)
		}
		for k, values := range imp.Extra {
			for _, v := range values {
				header.Add("Impersonate-Extra-"+headerKeyEscape(k), v)
			}
		}
	}
	// A RoundTripper must not change the caller's request: send a copy.
	out := req.Clone(req.Context())
	out.Header = header
	return h.rt.RoundTrip(out)
}

// CloseIdleConnections closes the idle connections of the wrapped transport.
func (h *headerRoundTripper) CloseIdleConnections() { closeIdle(h.rt) }

// headerKeyEscape percent-encodes the bytes of an impersonation extra key that
// may not appear in a header name, as the Impersonate-Extra- convention says.
func headerKeyEscape(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if isTokenChar(c) && c != '%' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// isTokenChar reports whether c may appear in an HTTP header name (RFC 7230 tchar).
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// trustErrorRoundTripper says which CA a server's certificate was checked
// against when verification fails.
type trustErrorRoundTripper struct {
	rt    http.RoundTripper
	trust string
}

var _ http.RoundTripper = (*trustErrorRoundTripper)(nil)

func (t *trustErrorRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	var verr *tls.CertificateVerificationError
	if err != nil && errors.As(err, &verr) {
		return nil, fmt.Errorf("verify certificate of server %s against %s: %w", req.URL.Host, t.trust, err)
	}
	return resp, err
}

// CloseIdleConnections closes the idle connections of the wrapped transport.
func (t *trustErrorRoundTripper) CloseIdleConnections() { closeIdle(t.rt) }

func trustSource(t TLSClientConfig) string {
	switch {
	case len(t.CAData) > 0:
		return "the CA data"
	case t.CAFile != "":
		return "CA file " + t.CAFile
	default:
		return "the system roots"
	}
}

func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// input is PEM or token bytes given inline, or a file read when data is
// empty.
type input struct {
	what string
	path string
	data []byte
}

func (in input) given() bool { return len(in.data) > 0 || in.path != "" }

func (in input) fromFile() bool { return len(in.data) == 0 }

func (in input) describe() string {
	if in.fromFile() {
		return in.what + " " + in.path
	}
	return in.what + " data"
}

// stamp identifies one version of a file.
type stamp struct {
	modTime time.Time
	size    int64
}

// reloader holds a value parsed from inputs and parses it again when one of
// the input files has changed (size or modification time) since.
type reloader[T any] struct {
	inputs []input
	parse  func([][]byte) (T, error)

	mu     sync.Mutex
	stamps []stamp
	value  T
	loaded bool
}

func newReloader[T any](inputs []input, parse func([][]byte) (T, error)) *reloader[T] {
	return &reloader[T]{inputs: inputs, parse: parse, stamps: make([]stamp, len(inputs))}
}

func (r *reloader[T]) get() (T, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var zero T
	stamps := make([]stamp, len(r.inputs))
	changed := !r.loaded
	for i, in := range r.inputs {
		if !in.fromFile() {
			continue
		}
		fi, err := os.Stat(in.path)
		if err != nil {
			return zero, fileError(in.what+" "+in.path, err)
		}
		stamps[i] = stamp{modTime: fi.ModTime(), size: fi.Size()}
		changed = changed || stamps[i] != r.stamps[i]
	}
	if !changed {
		return r.value, nil
	}
	data := make([][]byte, len(r.inputs))
	for i, in := range r.inputs {
		if !in.fromFile() {
			data[i] = in.data
			continue
		}
		b, err := os.ReadFile(in.path)
		if err != nil {
			return zero, fileError(in.what+" "+in.path, err)
		}
		data[i] = b
	}
	v, err := r.parse(data)
	if err != nil {
		return zero, err
	}
	r.value, r.stamps, r.loaded = v, stamps, true
	return v, nil
}

// fileError names the file once, however err (often an *fs.PathError) names it.
func fileError(what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s: %w", what, pe.Op, pe.Err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
