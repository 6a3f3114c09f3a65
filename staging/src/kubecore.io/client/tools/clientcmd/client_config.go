package clientcmd

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd/api"
	"kubecore.io/client/util/cert"
)

// DefaultNamespace is the namespace used when neither the context nor a flag
// sets one.
const DefaultNamespace = "default"

// Overrides are kubectl's connection flags. Each field that is set wins over
// what the kubeconfig says.
type Overrides struct {
	Context   string // --context: the context to use instead of current-context
	Cluster   string // --cluster: the cluster to use instead of the context's
	User      string // --user: the user to use instead of the context's
	Namespace string // --namespace

	Server        string // --server; also drops the kubeconfig's tls-server-name
	TLSServerName string // --tls-server-name
	// CertificateAuthority (--certificate-authority) or InsecureSkipTLSVerify
	// (--insecure-skip-tls-verify) replace the cluster's whole trust setting.
	CertificateAuthority  string
	InsecureSkipTLSVerify bool

	ClientCertificate string // --client-certificate
	ClientKey         string // --client-key
	Token             string // --token; wins over the user's token and tokenFile
	Username          string // --username
	Password          string // --password

	Timeout time.Duration // --request-timeout
}

// ClientConfig is a kubeconfig resolved for use: the merged file, the
// rest.Config of the chosen context, and the namespace to work in.
type ClientConfig interface {
	// RawConfig returns the merged kubeconfig, without the overrides.
	RawConfig() (api.Config, error)
	// ClientConfig returns the connection settings of the chosen context with
	// the overrides applied, after checking that every file it names reads.
	ClientConfig() (*rest.Config, error)
	// Namespace returns the namespace to use, and whether it was set
	// explicitly by the --namespace override (not merely by the context).
	Namespace() (string, bool, error)
}

var (
	_ ClientConfig = (*deferredClientConfig)(nil)
	_ ClientConfig = (*directClientConfig)(nil)
)

// NewClientConfig returns a ClientConfig that loads the files of rules when
// first used (once), then applies overrides. Either may be nil.
func NewClientConfig(rules *LoadingRules, overrides *Overrides) ClientConfig {
	if rules == nil {
		rules = NewDefaultLoadingRules()
	}
	d := &deferredClientConfig{rules: rules}
	if overrides != nil {
		d.overrides = *overrides
	}
	return d
}

// NewClientConfigFromConfig returns a ClientConfig for a kubeconfig held in
// memory. overrides may be nil.
func NewClientConfigFromConfig(config *api.Config, overrides *Overrides) ClientConfig {
	c := &directClientConfig{l: &loaded{config: config.DeepCopy()}}
	if overrides != nil {
		c.overrides = *overrides
	}
	return c
}

// BuildConfigFromFlags returns the rest.Config for a --master URL and a
// --kubeconfig path, either of which may be empty: without a path,
// $KUBECONFIG or ~/.kube/config is read; the URL overrides the server.
func BuildConfigFromFlags(masterURL, kubeconfigPath string) (*rest.Config, error) {
	rules := NewDefaultLoadingRules()
	rules.ExplicitPath = kubeconfigPath
	return NewClientConfig(rules, &Overrides{Server: masterURL}).ClientConfig()
}

// RESTConfigFromKubeConfig returns the rest.Config of the current context of
// the kubeconfig in data.
func RESTConfigFromKubeConfig(data []byte) (*rest.Config, error) {
	cfg, err := Load(data)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return NewClientConfigFromConfig(cfg, nil).ClientConfig()
}

// deferredClientConfig loads its files on first use.
type deferredClientConfig struct {
	rules     *LoadingRules
	overrides Overrides

	once   sync.Once
	direct *directClientConfig
	err    error
}

func (d *deferredClientConfig) load() (*directClientConfig, error) {
	d.once.Do(func() {
		l, err := d.rules.load()
		if err != nil {
			d.err = err
			return
		}
		d.direct = &directClientConfig{l: l, overrides: d.overrides}
	})
	return d.direct, d.err
}

func (d *deferredClientConfig) RawConfig() (api.Config, error) {
	c, err := d.load()
	if err != nil {
		return api.Config{}, err
	}
	return c.RawConfig()
}

func (d *deferredClientConfig) ClientConfig() (*rest.Config, error) {
	c, err := d.load()
	if err != nil {
		return nil, err
	}
	return c.ClientConfig()
}

func (d *deferredClientConfig) Namespace() (string, bool, error) {
	// An explicit namespace needs no file: honour it even without one.
	if d.overrides.Namespace != "" {
		return d.overrides.Namespace, true, nil
	}
	c, err := d.load()
	if err != nil {
		return "", false, err
	}
	return c.Namespace()
}

// directClientConfig resolves a loaded kubeconfig with overrides.
type directClientConfig struct {
	l         *loaded
	overrides Overrides
}

func (c *directClientConfig) RawConfig() (api.Config, error) {
	return *c.l.config.DeepCopy(), nil
}

func (c *directClientConfig) Namespace() (string, bool, error) {
	if c.overrides.Namespace != "" {
		return c.overrides.Namespace, true, nil
	}
	_, ctx, err := c.context()
	if err != nil {
		return "", false, err
	}
	if ctx == nil || ctx.Namespace == "" {
		return DefaultNamespace, false, nil
	}
	return ctx.Namespace, false, nil
}

// origin names the kubeconfig file an entry came from.
func origin(location string) string {
	if location == "" {
		return "kubeconfig"
	}
	return "kubeconfig " + location
}

// context returns the chosen context (nil when none is chosen) and the label
// its errors start with.
func (c *directClientConfig) context() (string, *api.Context, error) {
	cfg := c.l.config
	name, where := c.overrides.Context, c.l.where()
	if name == "" {
		name = cfg.CurrentContext
		if c.l.currentContextFrom != "" {
			where = origin(c.l.currentContextFrom)
		}
	}
	if name == "" {
		return "", nil, nil
	}
	ctx, ok := cfg.Contexts[name]
	if !ok {
		return "", nil, fmt.Errorf("%s: context %q not found", where, name)
	}
	return fmt.Sprintf("%s: context %q", origin(ctx.LocationOfOrigin), name), ctx, nil
}

func (c *directClientConfig) ClientConfig() (*rest.Config, error) {
	cfg, o := c.l.config, c.overrides
	ctxLabel, ctx, err := c.context()
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = &api.Context{}
		ctxLabel = c.l.where()
	}

	// The cluster: the one named, with the overrides applied.
	cluster, clusterLabel := &api.Cluster{}, c.l.where()
	if name, byFlag := pick(o.Cluster, ctx.Cluster); name != "" {
		found, ok := cfg.Clusters[name]
		switch {
		case !ok && byFlag:
			return nil, fmt.Errorf("%s: cluster %q (--cluster) not found", c.l.where(), name)
		case !ok:
			return nil, fmt.Errorf("%s: cluster %q not found", ctxLabel, name)
		}
		cluster = found.DeepCopy()
		clusterLabel = fmt.Sprintf("%s: cluster %q", origin(found.LocationOfOrigin), name)
	}
	trustByFlag := o.InsecureSkipTLSVerify || o.CertificateAuthority != ""
	if o.Server != "" || o.TLSServerName != "" {
		cluster.TLSServerName = o.TLSServerName
	}
	var failover []string
	if servers := SplitServers(o.Server); len(servers) > 0 {
		// --server a,b: a and then b, whatever the kubeconfig lists.
		cluster.Server, failover = servers[0], servers[1:]
	} else if failover, err = FailoverServers(cluster); err != nil {
		return nil, fmt.Errorf("%s: %w", clusterLabel, err)
	}
	if trustByFlag {
		cluster.InsecureSkipTLSVerify = o.InsecureSkipTLSVerify
		cluster.CertificateAuthority, cluster.CertificateAuthorityData = o.CertificateAuthority, nil
	}

	if cluster.Server == "" {
		switch {
		case ctx.Cluster != "" || o.Cluster != "":
			return nil, fmt.Errorf("%s: server: required", clusterLabel)
		case cfg.IsEmpty():
			return nil, fmt.Errorf("%s: no configuration has been provided: pass --kubeconfig, set %s, or pass --server", c.l.where(), RecommendedConfigPathEnvVar)
		case cfg.CurrentContext == "" && o.Context == "":
			return nil, fmt.Errorf("%s: current-context is not set: pass --context or run 'kubectl config use-context'", c.l.where())
		default:
			return nil, fmt.Errorf("%s: cluster: required", ctxLabel)
		}
	}
	source := clusterLabel
	if o.Server != "" {
		source = "--server with " + ctxLabel
	}
	rc := &rest.Config{
		Host:               cluster.Server,
		FailoverHosts:      failover,
		Source:             source,
		DisableCompression: cluster.DisableCompression,
		Timeout:            o.Timeout,
		TLSClientConfig: rest.TLSClientConfig{
			Insecure:   cluster.InsecureSkipTLSVerify,
			ServerName: cluster.TLSServerName,
		},
	}
	if err := checkTrust(cluster, clusterLabel, trustByFlag, &rc.TLSClientConfig); err != nil {
		return nil, err
	}
	server, err := rc.ServerURL()
	if err != nil {
		return nil, fmt.Errorf("%s: server: %w", clusterLabel, err)
	}
	if _, err := rc.ServerURLs(); err != nil {
		return nil, fmt.Errorf("%s: servers: %w", clusterLabel, err)
	}
	if cluster.ProxyURL != "" {
		proxy, err := parseProxyURL(cluster.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("%s: proxy-url: %w", clusterLabel, err)
		}
		rc.Proxy = http.ProxyURL(proxy)
	}

	// The user: credentials are sent over TLS only, as kubectl does.
	if server.Scheme != "https" {
		return rc, nil
	}
	user, userLabel := &api.AuthInfo{}, ""
	if name, byFlag := pick(o.User, ctx.AuthInfo); name != "" {
		found, ok := cfg.AuthInfos[name]
		switch {
		case !ok && byFlag:
			return nil, fmt.Errorf("%s: user %q (--user) not found", c.l.where(), name)
		case !ok:
			return nil, fmt.Errorf("%s: user %q not found", ctxLabel, name)
		}
		user = found.DeepCopy()
		userLabel = fmt.Sprintf("%s: user %q", origin(found.LocationOfOrigin), name)
	}
	if err := applyUser(user, userLabel, o, rc); err != nil {
		return nil, err
	}
	return rc, nil
}

// pick returns the override when set, else the kubeconfig's value, and
// whether the override was used.
func pick(override, value string) (string, bool) {
	if override != "" {
		return override, true
	}
	return value, false
}

// checkTrust validates the CA of cluster and puts it in t. label starts the
// errors about the kubeconfig's cluster; byFlag says the CA came from the
// --certificate-authority or --insecure-skip-tls-verify flags.
func checkTrust(cluster *api.Cluster, label string, byFlag bool, t *rest.TLSClientConfig) error {
	caLabel := label + ": certificate-authority"
	if byFlag {
		caLabel = "--certificate-authority"
	}
	switch {
	case len(cluster.CertificateAuthorityData) > 0:
		if _, err := cert.ParseCertsPEM(cluster.CertificateAuthorityData); err != nil {
			return fmt.Errorf("%s-data: %w", caLabel, err)
		}
		t.CAData = cluster.CertificateAuthorityData
	case cluster.CertificateAuthority != "":
		fileLabel := caLabel + " " + cluster.CertificateAuthority
		data, err := os.ReadFile(cluster.CertificateAuthority)
		if err != nil {
			return pathError(fileLabel, err)
		}
		if _, err := cert.ParseCertsPEM(data); err != nil {
			return fmt.Errorf("%s: %w", fileLabel, err)
		}
		t.CAFile = cluster.CertificateAuthority
	default:
		return nil
	}
	switch {
	case !t.Insecure:
		return nil
	case byFlag:
		return errors.New("--certificate-authority and --insecure-skip-tls-verify cannot both be set")
	default:
		return fmt.Errorf("%s: certificate-authority and insecure-skip-tls-verify cannot both be set", label)
	}
}

func parseProxyURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5":
		return nil, fmt.Errorf("%q: scheme must be http, https or socks5", s)
	case u.Host == "":
		return nil, fmt.Errorf("%q: no host", s)
	}
	return u, nil
}

// applyUser applies the credential overrides to user, checks the result and
// puts it in rc. label starts the errors about the kubeconfig's user.
func applyUser(user *api.AuthInfo, label string, o Overrides, rc *rest.Config) error {
	// inFile prefixes errors about what the kubeconfig says (not a flag).
	inFile := func(byFlag bool, err error) error {
		if byFlag || label == "" {
			return err
		}
		return fmt.Errorf("%s: %w", label, err)
	}
	certIn := pemSource{name: "client-certificate", file: user.ClientCertificate, data: user.ClientCertificateData}
	keyIn := pemSource{name: "client-key", file: user.ClientKey, data: user.ClientKeyData}
	if o.ClientCertificate != "" {
		certIn = pemSource{name: "--client-certificate", file: o.ClientCertificate, byFlag: true}
	}
	if o.ClientKey != "" {
		keyIn = pemSource{name: "--client-key", file: o.ClientKey, byFlag: true}
	}
	// A credential given by flag replaces the kubeconfig's of either kind.
	basicByFlag := o.Username != "" || o.Password != ""
	switch {
	case o.Token != "" && basicByFlag:
		return errors.New("--token and --username/--password cannot both be set")
	case o.Token != "":
		user.Token, user.TokenFile, user.Username, user.Password = o.Token, "", "", ""
	case basicByFlag:
		user.Token, user.TokenFile, user.Username, user.Password = "", "", o.Username, o.Password
	}

	switch {
	case len(user.Exec) > 0:
		return inFile(false, errors.New("exec: exec credential plugins are not supported by kubecore"))
	case len(user.AuthProvider) > 0:
		return inFile(false, errors.New("auth-provider: auth-provider plugins are not supported by kubecore"))
	case (user.Token != "" || user.TokenFile != "") && (user.Username != "" || user.Password != ""):
		return inFile(false, errors.New("token: a token and a username/password cannot both be set"))
	}

	switch {
	case certIn.set() && !keyIn.set():
		return inFile(certIn.byFlag, fmt.Errorf("client-key: required with %s", certIn.name))
	case keyIn.set() && !certIn.set():
		return inFile(keyIn.byFlag, fmt.Errorf("client-certificate: required with %s", keyIn.name))
	case certIn.set():
		certPEM, err := certIn.read()
		if err != nil {
			return inFile(certIn.byFlag, err)
		}
		keyPEM, err := keyIn.read()
		if err != nil {
			return inFile(keyIn.byFlag, err)
		}
		if _, err := cert.ParseCertsPEM(certPEM); err != nil {
			return inFile(certIn.byFlag, fmt.Errorf("%s: %w", certIn.describe(), err))
		}
		if _, err := cert.ParsePrivateKeyPEM(keyPEM); err != nil {
			return inFile(keyIn.byFlag, fmt.Errorf("%s: %w", keyIn.describe(), err))
		}
		if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
			return inFile(certIn.byFlag && keyIn.byFlag, fmt.Errorf("%s and %s: %w", certIn.describe(), keyIn.describe(), err))
		}
		rc.TLSClientConfig.CertData, rc.TLSClientConfig.CertFile = certIn.data, certIn.fileIfNoData()
		rc.TLSClientConfig.KeyData, rc.TLSClientConfig.KeyFile = keyIn.data, keyIn.fileIfNoData()
	}

	switch {
	case user.Token != "":
		rc.BearerToken = user.Token
	case user.TokenFile != "":
		data, err := os.ReadFile(user.TokenFile)
		if err != nil {
			return inFile(false, pathError("tokenFile "+user.TokenFile, err))
		}
		if strings.TrimSpace(string(data)) == "" {
			return inFile(false, fmt.Errorf("tokenFile %s: empty", user.TokenFile))
		}
		rc.BearerTokenFile = user.TokenFile
	}
	rc.Username, rc.Password = user.Username, user.Password
	rc.Impersonate = rest.ImpersonationConfig{
		UserName: user.Impersonate,
		UID:      user.ImpersonateUID,
		Groups:   user.ImpersonateGroups,
		Extra:    user.ImpersonateUserExtra,
	}
	return nil
}

// pemSource is PEM given inline (-data) or by a file, from the kubeconfig or
// a flag.
type pemSource struct {
	name   string
	file   string
	data   []byte
	byFlag bool
}

func (p pemSource) set() bool { return len(p.data) > 0 || p.file != "" }

func (p pemSource) fileIfNoData() string {
	if len(p.data) > 0 {
		return ""
	}
	return p.file
}

func (p pemSource) describe() string {
	if len(p.data) > 0 {
		return p.name + "-data"
	}
	return p.name + " " + p.file
}

func (p pemSource) read() ([]byte, error) {
	if len(p.data) > 0 {
		return p.data, nil
	}
	data, err := os.ReadFile(p.file)
	if err != nil {
		return nil, pathError(p.describe(), err)
	}
	return data, nil
}

// pathError says "<label>: <op>: <reason>" without repeating the path.
func pathError(label string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s: %w", label, pe.Op, pe.Err)
	}
	return fmt.Errorf("%s: %w", label, err)
}
