// Package rest talks HTTP to a kubecore (or Kubernetes) API server: the
// connection settings (Config), the TLS/HTTP/2 transport and the REST client.
package rest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"kubecore.io/apimachinery/pkg/version"
)

// Config holds what a client needs to reach one API server: where it is, how
// to trust it, who we are, and how hard to push. Build one from a kubeconfig
// with kubecore.io/client/tools/clientcmd, or by hand for in-process clients.
type Config struct {
	// Host is the server: a URL (https://host:port[/prefix]) or host:port, in
	// which case the scheme is https when any TLS setting is given and http
	// otherwise.
	Host string
	// FailoverHosts are further servers of the same cluster, in the forms
	// Host takes. Requests go to one server at a time, Host first; one that
	// cannot reach its server goes on to the next, which is then used for
	// the requests that follow (see failover.go for which requests move).
	FailoverHosts []string
	// Source names where the Config came from, e.g.
	// `kubeconfig /home/me/.kube/config: cluster "dev"` (clientcmd sets it).
	// Errors that come before any response from the server name it beside
	// the server. Empty for a Config made in code.
	Source string
	// APIPath is the path under Host of the API root, e.g. /api or /apis.
	APIPath string
	// ContentConfig says what the client sends and accepts.
	ContentConfig

	// Username and Password are basic authentication credentials.
	Username string
	Password string
	// BearerToken is sent as "Authorization: Bearer <token>". It wins over
	// BearerTokenFile.
	BearerToken string
	// BearerTokenFile is a file holding the bearer token; it is read again
	// whenever it changes, so that rotated tokens are picked up.
	BearerTokenFile string
	// Impersonate asks the server to act as another user.
	Impersonate ImpersonationConfig

	// TLSClientConfig says how to trust the server and which client
	// certificate to present.
	TLSClientConfig TLSClientConfig

	// UserAgent is sent with every request; empty means DefaultUserAgent().
	UserAgent string
	// DisableCompression turns off gzip of responses.
	DisableCompression bool

	// Transport, when set, is used as it is instead of building one; it must
	// then carry its own TLS settings, so TLSClientConfig must be empty.
	Transport http.RoundTripper
	// WrapTransport, when set, wraps the transport built for this Config
	// (authentication and User-Agent wrappers included).
	WrapTransport func(http.RoundTripper) http.RoundTripper

	// QPS is the sustained rate of requests a client allows itself; zero or
	// less means no client-side limit. Burst is how many requests may go at
	// once above that rate.
	QPS   float32
	Burst int

	// Timeout bounds every request made by the http.Client of HTTPClientFor,
	// reading of the body included; zero means no limit.
	Timeout time.Duration

	// Dial, when set, opens connections instead of net.Dialer.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Proxy chooses a proxy per request; nil means http.ProxyFromEnvironment.
	Proxy func(*http.Request) (*url.URL, error)
}

// ContentConfig says what a client sends and accepts.
type ContentConfig struct {
	// AcceptContentTypes is the Accept header; empty means application/json,
	// or protobuf with JSON as the fallback when ContentType is protobuf.
	AcceptContentTypes string
	// ContentType is the type of request bodies; empty means application/json.
	// Kubernetes' protobuf (protobuf.ContentType), as its components use, is
	// honoured by clients given ClientOptions.Protobuf: objects of kinds
	// with a protobuf encoding are sent, read and watched in it, everything
	// else in JSON.
	ContentType string
}

// ImpersonationConfig names the user a request acts as.
type ImpersonationConfig struct {
	UserName string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// TLSClientConfig holds the TLS settings of a Config. For each of the CA,
// certificate and key, the -Data field wins over the -File field.
type TLSClientConfig struct {
	// Insecure skips verification of the server's certificate. It cannot be
	// combined with a CA.
	Insecure bool
	// ServerName is the name checked in the server's certificate (and sent
	// as SNI); empty means the host of Config.Host.
	ServerName string

	// CAFile and CAData hold PEM CA certificates that the server's
	// certificate must chain to; with neither, the system roots are used.
	CAFile string
	CAData []byte

	// CertFile/CertData and KeyFile/KeyData are the PEM client certificate
	// and its key. Files are read again when they change.
	CertFile string
	CertData []byte
	KeyFile  string
	KeyData  []byte
}

// hasCA reports whether c names a CA.
func (c TLSClientConfig) hasCA() bool { return len(c.CAData) > 0 || c.CAFile != "" }

// hasCert reports whether c names a client certificate or key.
func (c TLSClientConfig) hasCert() bool {
	return len(c.CertData) > 0 || c.CertFile != "" || len(c.KeyData) > 0 || c.KeyFile != ""
}

// isEmpty reports whether c asks for no TLS setting at all.
func (c TLSClientConfig) isEmpty() bool {
	return !c.Insecure && c.ServerName == "" && !c.hasCA() && !c.hasCert()
}

// ServerURL returns Host as a URL, with the scheme filled in when Host has
// none. It fails when Host is empty or malformed.
func (c *Config) ServerURL() (*url.URL, error) {
	return c.parseHost(c.Host)
}

// ServerURLs returns Host and then every FailoverHosts entry as URLs, as
// ServerURL does; a duplicate, or a scheme other than Host's, is an error.
func (c *Config) ServerURLs() ([]*url.URL, error) {
	out := make([]*url.URL, 0, 1+len(c.FailoverHosts))
	for _, h := range append([]string{c.Host}, c.FailoverHosts...) {
		u, err := c.parseHost(h)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(v *url.URL) bool { return v.String() == u.String() }) {
			return nil, fmt.Errorf("host %q: given twice", h)
		}
		// Credentials go to every server: never to some over plain HTTP.
		if len(out) > 0 && u.Scheme != out[0].Scheme {
			return nil, fmt.Errorf("host %q: scheme %s differs from %s of host %q", h, u.Scheme, out[0].Scheme, c.Host)
		}
		out = append(out, u)
	}
	return out, nil
}

func (c *Config) parseHost(host string) (*url.URL, error) {
	if host == "" {
		return nil, fmt.Errorf("host: must be set")
	}
	raw := host
	if !strings.Contains(host, "://") {
		scheme := "http"
		if !c.TLSClientConfig.isEmpty() {
			scheme = "https"
		}
		host = scheme + "://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("host %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("host %q: scheme must be http or https", raw)
	case u.Host == "":
		return nil, fmt.Errorf("host %q: no host name", raw)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("host %q: must not have a query or fragment", raw)
	}
	return u, nil
}

// CopyConfig returns a copy of c that shares no slices or maps with it (the
// Transport, WrapTransport, Dial and Proxy functions are shared).
func CopyConfig(c *Config) *Config {
	out := *c
	out.FailoverHosts = slices.Clone(c.FailoverHosts)
	out.Impersonate.Groups = slices.Clone(c.Impersonate.Groups)
	if c.Impersonate.Extra != nil {
		out.Impersonate.Extra = make(map[string][]string, len(c.Impersonate.Extra))
		for k, v := range c.Impersonate.Extra {
			out.Impersonate.Extra[k] = slices.Clone(v)
		}
	}
	out.TLSClientConfig.CAData = slices.Clone(c.TLSClientConfig.CAData)
	out.TLSClientConfig.CertData = slices.Clone(c.TLSClientConfig.CertData)
	out.TLSClientConfig.KeyData = slices.Clone(c.TLSClientConfig.KeyData)
	return &out
}

const redacted = "--- REDACTED ---"

// redactedConfig is Config without its methods, so that printing it does not
// recurse into String.
type redactedConfig Config

// String prints c with its secrets (password, token, private key) replaced,
// so that a Config can be logged.
func (c *Config) String() string {
	if c == nil {
		return "<nil>"
	}
	cp := redactedConfig(*CopyConfig(c))
	if cp.Password != "" {
		cp.Password = redacted
	}
	if cp.BearerToken != "" {
		cp.BearerToken = redacted
	}
	if len(cp.TLSClientConfig.KeyData) > 0 {
		cp.TLSClientConfig.KeyData = []byte(redacted)
	}
	return fmt.Sprintf("%#v", cp)
}

// GoString is String, so that %#v does not print secrets either.
func (c *Config) GoString() string { return c.String() }

// DefaultUserAgent returns "kubecore/<version> (<os>/<arch>) <command>", where
// command is the program's name, or the kubecore subcommand being run.
func DefaultUserAgent() string {
	return buildUserAgent(os.Args, version.Get().GitVersion, runtime.GOOS, runtime.GOARCH)
}

func buildUserAgent(args []string, gitVersion, goos, goarch string) string {
	command := "unknown"
	if len(args) > 0 && args[0] != "" {
		command = filepath.Base(args[0])
	}
	// The one binary runs every component: name the subcommand, not the binary.
	if command == "kubecore" && len(args) > 1 && args[1] != "" && !strings.HasPrefix(args[1], "-") {
		command = args[1]
	}
	return fmt.Sprintf("kubecore/%s (%s/%s) %s",
		headerSafe(gitVersion), headerSafe(goos), headerSafe(goarch), headerSafe(command))
}

// headerSafe replaces what may not appear in a header value by '_'.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, s)
}

// serverLabel names server, and where its Config came from when known, for
// error messages.
func serverLabel(server fmt.Stringer, source string) string {
	if source == "" {
		return server.String()
	}
	return server.String() + " (from " + source + ")"
}
