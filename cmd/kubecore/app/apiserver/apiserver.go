// Package apiserver implements `kubecore apiserver`: flags into Options,
// validated and completed into a Config whose Run(ctx) serves until ctx ends.
package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	"kubecore.io/kubecore/pkg/auth/authenticator/tokenfile"
	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/controlplane"
	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/pkg/registry/core/componentstatus"
	"kubecore.io/kubecore/pkg/registry/core/node"
	"kubecore.io/kubecore/pkg/storage/cacher"
	"kubecore.io/kubecore/pkg/storage/etcd3"
	"kubecore.io/kubecore/pkg/webhook"
)

// Resources are what the API serves and who may use it.
type Resources struct {
	Scheme *runtime.Scheme
	Groups []apiserver.APIGroupInfo
	// Authorizer decides on requests; nil lets only system:masters in.
	Authorizer authorizer.Authorizer
	// Tokens authenticate bearer tokens, after client certificates.
	Tokens []authenticator.Token
	// FlowConfig is the API priority and fairness configuration; nil
	// leaves the plain in-flight limits.
	FlowConfig apiserver.FlowConfigSource
	// Dynamic are the group versions of custom resources, served while
	// their definitions are Established; ReadyChecks join /readyz.
	Dynamic     *apiserver.DynamicGroups
	ReadyChecks []apiserver.HealthCheck
	// Paths are further non-resource paths served (service account issuer
	// discovery).
	Paths map[string]http.Handler
	// Aggregator proxies the group versions of APIServices backed by
	// other servers; nil for none.
	Aggregator apiserver.Aggregator
	// Metrics are exported beside the server's own (the watch caches'
	// sizes).
	Metrics []prometheus.Collector
	// Loops are the background loops of these resources (the kubernetes
	// Service repair, the custom resource controllers). Run runs them under
	// the server's errgroup until its context ends: the first to fail
	// stops the server, and Run returns its error.
	Loops []Loop
}

// Loop is a named background loop of the API server; it returns nil when
// ctx ends and an error when it cannot go on.
type Loop struct {
	Name string
	Run  func(ctx context.Context) error
}

// ResourcesFunc builds the storage of every served resource on an etcd
// client (pkg/controlplane provides it); kubelet is how pods/log and
// pods/exec reach kubelets, advertise where pods reach this server.
type ResourcesFunc func(ctx context.Context, client *clientv3.Client, kubelet node.KubeletClientConfig, advertise controlplane.Endpoint) (Resources, error)

// Names of the apiserver's client certificate to kubelets, in DATA_DIR/pki:
// its file name and subject, as kubeadm names it.
const (
	kubeletClientName = "apiserver-kubelet-client"
	kubeletClientCN   = "kube-apiserver-kubelet-client"
)

// Options are the flags of `kubecore apiserver`.
type Options struct {
	DataDir               string
	EtcdServers           []string
	BindAddress           string
	SecurePort            int
	ServiceClusterIPRange string

	// EtcdCAFile, EtcdCertFile and EtcdKeyFile secure the connections to
	// EtcdServers (etcdclient.go).
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	// TokenAuthFile is a CSV of static bearer tokens (token,user,uid,"groups").
	TokenAuthFile string
	// KubeletPreferredAddressTypes are the node address types tried, in
	// order, to reach a kubelet (Hostname, InternalDNS, InternalIP,
	// ExternalDNS, ExternalIP).
	KubeletPreferredAddressTypes []string
	// KubeletCertificateAuthority, when set, is the CA bundle kubelets'
	// serving certificates are verified with; they are not verified
	// otherwise (kubelets serve self-signed certificates).
	KubeletCertificateAuthority string
	// Limits are the request limits and the audit log.
	Limits LimitOptions
	// Storage are the compaction interval and the events' TTL.
	Storage StorageOptions
	// Profiling serves /debug/pprof/ (on by default, as in Kubernetes).
	Profiling bool
	// Resources installs the API (every built-in resource by default).
	Resources ResourcesFunc
	// NoManagedFields records no managedFields and serves no server-side
	// apply: a hidden switch for benchmarks to measure their cost.
	NoManagedFields bool
	// DisableAdmissionPlugins are admission plugins left out of the chain
	// (Kubernetes' names), as Kubernetes' --disable-admission-plugins.
	DisableAdmissionPlugins []string
	// Components replace the componentstatuses' default probes of the same
	// names: all-in-one reports its in-process scheduler and
	// controller-manager, which serve no health port.
	Components []componentstatus.Probe
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	home, _ := os.UserHomeDir()
	return &Options{
		DataDir:                      filepath.Join(home, ".kubecore"),
		BindAddress:                  "127.0.0.1",
		SecurePort:                   6443,
		ServiceClusterIPRange:        "10.96.0.0/12",
		KubeletPreferredAddressTypes: addressTypeNames(node.DefaultPreferredAddressTypes()),
		Limits:                       NewLimitOptions(),
		Storage:                      NewStorageOptions(),
		Profiling:                    true,
	}
}

func addressTypeNames(types []corev1.NodeAddressType) []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = string(t)
	}
	return out
}

// controlPlaneConfig is what controlPlane builds the API from.
type controlPlaneConfig struct {
	serviceCIDR string
	// pkiDir holds the service account key and the front-proxy CA.
	pkiDir string
	// staticTokens are also asked by TokenReviews (nil for none).
	staticTokens authenticator.Token
	// eventTTL is how long Events live after their last write.
	eventTTL time.Duration
	// noManagedFields records none (a benchmark's baseline).
	noManagedFields bool
	// storageJSON writes built-in objects to etcd as JSON, not protobuf.
	storageJSON       bool
	disabledAdmission []string
	// components replace the componentstatuses' default probes of the
	// same names (all-in-one's in-process scheduler and controller-manager).
	components []componentstatus.Probe
}

// controlPlane serves every built-in resource from pkg/controlplane,
// creates the objects a cluster starts with (and keeps the kubernetes
// Service pointing at advertise), and authenticates service account tokens
// with the key in cfg.pkiDir.
func controlPlane(cfg controlPlaneConfig) ResourcesFunc {
	return func(ctx context.Context, client *clientv3.Client, kubelet node.KubeletClientConfig, advertise controlplane.Endpoint) (Resources, error) {
		saKey, err := pki.EnsureServiceAccountKey(cfg.pkiDir)
		if err != nil {
			return Resources{}, err
		}
		// Published in kube-public/cluster-info for joining nodes; Run
		// makes the CA before, a pki dir without one publishes nothing.
		caPEM, err := os.ReadFile(pki.CACertPath(cfg.pkiDir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Resources{}, fmt.Errorf("cluster CA: %w", err)
		}
		// The watch cache encodes events as the apiserver does, with a
		// scheme equal to the one controlplane.New builds.
		encScheme, err := controlplane.NewScheme()
		if err != nil {
			return Resources{}, err
		}
		caches := cacher.NewCollector()
		// Made by Run with the cluster CA: aggregated servers trust the
		// front-proxy CA for the identity headers the aggregator sends.
		frontProxy, err := pki.EnsureFrontProxy(cfg.pkiDir, nil)
		if err != nil {
			return Resources{}, err
		}
		in, err := controlplane.New(ctx, controlplane.Config{
			EtcdClient:        client,
			ServiceCIDR:       cfg.serviceCIDR,
			Decorate:          watchCache(client, encScheme, caches),
			ServiceAccountKey: saKey,
			Kubelet:           kubelet,
			Advertise:         advertise,
			ClusterCA:         caPEM,
			FrontProxyCA:      frontProxy.CA.CertPEM(),
			StaticTokens:      cfg.staticTokens,
			EventTTL:          cfg.eventTTL,
			NoManagedFields:   cfg.noManagedFields,
			StorageJSON:       cfg.storageJSON,
			Components:        cfg.components,

			DisableAdmissionPlugins: cfg.disabledAdmission,
		})
		if err != nil {
			return Resources{}, err
		}
		if err := in.Bootstrap(ctx); err != nil {
			in.Destroy()
			return Resources{}, err
		}
		// Renewed when it nears expiry, read at every handshake.
		proxyClient := &pki.FrontProxyClient{PKIDir: cfg.pkiDir}
		clients := &webhook.Clients{ClientCert: proxyClient.Certificate}
		agg, err := in.NewAggregator(clients)
		if err != nil {
			in.Destroy()
			return Resources{}, err
		}
		// The watch caches stop with the server, before etcd closes.
		context.AfterFunc(ctx, in.Destroy)
		return Resources{
			Scheme: in.Scheme, Groups: in.Groups, Authorizer: in.Authorizer(), Tokens: in.TokenAuthenticators(),
			Dynamic: in.DynamicGroups(), ReadyChecks: []apiserver.HealthCheck{in.APIExtensionsReadyCheck()},
			FlowConfig: in.FlowConfig(), Paths: in.Paths(), Aggregator: agg, Metrics: []prometheus.Collector{caches},
			Loops: []Loop{
				{Name: "kubernetes service", Run: func(ctx context.Context) error {
					return in.RunKubernetesService(ctx, controlplane.KubernetesServiceInterval)
				}},
				{Name: "custom resources", Run: in.RunAPIExtensions},
				{Name: "aggregator", Run: agg.Run},
				{Name: "admission policy status", Run: in.RunAdmissionPolicyStatus},
				{Name: "bootstrap objects", Run: func(ctx context.Context) error {
					return in.RunBootstrapObjects(ctx, controlplane.BootstrapInterval)
				}},
			},
		}, nil
	}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.DataDir == "" {
		errs = append(errs, errors.New("--data-dir is required"))
	}
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", o.BindAddress))
	}
	for _, p := range o.DisableAdmissionPlugins {
		if !slices.Contains(controlplane.DisableableAdmissionPlugins(), p) {
			errs = append(errs, fmt.Errorf("--disable-admission-plugins: %q is not one of %s", p, strings.Join(controlplane.DisableableAdmissionPlugins(), ", ")))
		}
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d is out of range", o.SecurePort))
	}
	for _, s := range o.EtcdServers {
		if u, err := url.Parse(s); err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("--etcd-servers: %q is not a URL", s))
		}
	}
	errs = append(errs, o.validateEtcdTLS()...)
	if o.ServiceClusterIPRange != "" {
		if _, _, err := net.ParseCIDR(o.ServiceClusterIPRange); err != nil {
			errs = append(errs, fmt.Errorf("--service-cluster-ip-range: %w", err))
		}
	}
	known := node.DefaultPreferredAddressTypes()
	for _, t := range o.KubeletPreferredAddressTypes {
		if !slices.Contains(known, corev1.NodeAddressType(t)) {
			errs = append(errs, fmt.Errorf("--kubelet-preferred-address-types: %q is not one of %v", t, addressTypeNames(known)))
		}
	}
	errs = append(errs, o.Limits.Validate()...)
	errs = append(errs, o.Storage.Validate()...)
	return errs
}

// Config is the completed options; only Complete makes one. Run it once.
type Config struct {
	completed *completedConfig
}

// completedConfig is everything Run needs, every flag and file read.
type completedConfig struct {
	dataDir     string
	bindAddress string
	securePort  int
	serviceCIDR string
	// etcdServers, with etcdTLS, are the external etcd; none runs an
	// embedded member in DATA_DIR/etcd.
	etcdServers []string
	etcdTLS     *tls.Config
	// staticTokens is --token-auth-file's, nil without it.
	staticTokens authenticator.Token
	// kubelet is how pods/log and pods/exec reach kubelets, but for the
	// client certificate, which Run issues with the PKI.
	kubelet   node.KubeletClientConfig
	limits    LimitOptions
	storage   StorageOptions
	profiling bool
	resources ResourcesFunc

	// ready is closed once the server serves at addr.
	ready  chan struct{}
	addrMu sync.Mutex
	addr   net.Addr
}

// Complete validates o, reads every file it names (the etcd TLS files, the
// token file, the kubelet CA) and returns the config Run needs.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return Config{}, fmt.Errorf("data dir %q: %w", o.DataDir, err)
	}
	c := &completedConfig{
		dataDir:     dataDir,
		bindAddress: o.BindAddress,
		securePort:  o.SecurePort,
		serviceCIDR: o.ServiceClusterIPRange,
		etcdServers: slices.Clone(o.EtcdServers),
		limits:      o.Limits,
		storage:     o.Storage,
		profiling:   o.Profiling,
		resources:   o.Resources,
		ready:       make(chan struct{}),
	}
	if len(c.etcdServers) > 0 {
		if c.etcdTLS, err = o.etcdTLS(); err != nil {
			return Config{}, err
		}
	}
	if o.TokenAuthFile != "" {
		static, err := tokenfile.Load(o.TokenAuthFile)
		if err != nil {
			return Config{}, err
		}
		c.staticTokens = static
	}
	if c.kubelet, err = o.kubeletClientConfig(); err != nil {
		return Config{}, err
	}
	if c.resources == nil {
		c.resources = controlPlane(controlPlaneConfig{
			serviceCIDR: c.serviceCIDR, pkiDir: filepath.Join(c.dataDir, "pki"), staticTokens: c.staticTokens,
			eventTTL: c.storage.EventTTL, noManagedFields: o.NoManagedFields, disabledAdmission: o.DisableAdmissionPlugins,
			components: o.Components, storageJSON: c.storage.MediaType == StorageMediaTypeJSON,
		})
	}
	return Config{completed: c}, nil
}

// Ready is closed once the server serves; Addr is then where.
func (c Config) Ready() <-chan struct{} {
	if c.completed == nil {
		return nil
	}
	return c.completed.ready
}

// Addr is the address the server listens on, once Ready is closed.
func (c Config) Addr() net.Addr {
	if c.completed == nil {
		return nil
	}
	c.completed.addrMu.Lock()
	defer c.completed.addrMu.Unlock()
	return c.completed.addr
}

// Run starts etcd (embedded unless --etcd-servers), the PKI and kubeconfig,
// and the API server; it serves until ctx ends, then shuts down in order:
// readiness fails, requests drain, watches end, etcd closes. The server,
// the embedded etcd member, the certificate renewal and the resources'
// background loops run under one errgroup: the first of them to fail stops
// the others, and Run returns its error. Ready is closed once it serves.
func (c Config) Run(ctx context.Context) error {
	o := c.completed
	if o == nil {
		return errors.New("apiserver config was not completed")
	}
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	g, ctx := errgroup.WithContext(ctx)
	// On an early return, what already runs stops before Run returns.
	defer func() { cancel(); _ = g.Wait() }()
	var client *clientv3.Client
	// etcdMetrics are the database sizes (and the compactor's counts).
	var etcdMetrics []prometheus.Collector
	if len(o.etcdServers) == 0 {
		member, err := etcd.Start(ctx, etcd.Config{DataDir: filepath.Join(o.dataDir, "etcd")})
		if err != nil {
			return fmt.Errorf("start embedded etcd: %w", err)
		}
		defer member.Close()
		g.Go(func() error {
			select {
			case err := <-member.Err():
				return fmt.Errorf("embedded etcd: %w", err)
			case <-ctx.Done():
				return nil
			}
		})
		client = member.Client()
		etcdMetrics = append(member.Collectors(), etcd3.NewSizeCollector(client, member.ClientURLs()))
	} else {
		var err error
		client, err = clientv3.New(clientv3.Config{Endpoints: o.etcdServers, DialTimeout: 5 * time.Second, TLS: o.etcdTLS, Context: ctx})
		if err != nil {
			return fmt.Errorf("connect to etcd %s: %w", strings.Join(o.etcdServers, ","), err)
		}
		defer client.Close()
		etcdMetrics = append(etcdMetrics, etcd3.NewSizeCollector(client, o.etcdServers))
	}
	if o.storage.WritesInflight > 0 {
		gate := etcd3.NewWriteGate(o.storage.WritesInflight)
		etcd3.GateWrites(client, gate)
		etcdMetrics = append(etcdMetrics, gate.Collectors()...)
	}
	if o.storage.CompactionInterval > 0 {
		compactor := etcd3.NewCompactor(client, o.storage.CompactionInterval)
		etcdMetrics = append(etcdMetrics, compactor.Collectors()...)
		g.Go(func() error { return compactor.Run(ctx) })
	}
	// Events outlive their TTL when etcd restarts their leases' timers:
	// revoke them by the deadline their lease carries.
	g.Go(func() error { return etcd3.SweepExpiredLeases(ctx, client, etcd3.DefaultLeaseSweepInterval) })

	pkiDir := filepath.Join(o.dataDir, "pki")
	hosts, err := pki.DefaultHosts(o.bindAddress)
	if err != nil {
		return fmt.Errorf("serving certificate hosts: %w", err)
	}
	bundle, err := pki.EnsureServing(pkiDir, pki.Options{Hosts: hosts})
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if err := bundle.RenewClientCerts(); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	for _, is := range bundle.Issued {
		klog.InfoS("Issued certificate", "name", is.Name, "reason", is.Reason)
	}
	frontProxy, err := pki.EnsureFrontProxy(pkiDir, nil)
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	kubelet, err := withKubeletClientCert(o.kubelet, bundle)
	if err != nil {
		return err
	}
	// Listen first: the kubernetes Service's endpoints need the real port.
	ln, err := net.Listen("tcp", net.JoinHostPort(o.bindAddress, strconv.Itoa(o.securePort)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer func() { _ = ln.Close() }() // the server closes it first when it ran
	advertise, err := advertiseEndpoint(o.bindAddress, ln.Addr(), net.InterfaceAddrs)
	if err != nil {
		return err
	}
	res, err := o.resources(ctx, client, kubelet, advertise)
	if err != nil {
		return fmt.Errorf("install resources: %w", err)
	}
	// At once: /readyz waits for the custom resource controllers' sync.
	for _, l := range res.Loops {
		g.Go(func() error {
			if err := l.Run(ctx); err != nil {
				return fmt.Errorf("%s: %w", l.Name, err)
			}
			return nil
		})
	}
	// A front proxy's identity headers first, as Kubernetes orders them.
	frontProxyCAs := x509.NewCertPool()
	frontProxyCAs.AddCert(frontProxy.CA.Cert)
	// The CAs the TLS handshake names to clients, so that a client picks
	// the certificate to show: the cluster CA's, or the front proxy's.
	tlsClientCAs := bundle.CAPool()
	tlsClientCAs.AddCert(frontProxy.CA.Cert)
	authn := authenticator.Union{
		authenticator.NewRequestHeader(frontProxyCAs, []string{pki.FrontProxyClientCN}),
		authenticator.NewClientCert(bundle.CAPool()),
	}
	tokens := res.Tokens
	if o.staticTokens != nil {
		tokens = append([]authenticator.Token{o.staticTokens}, tokens...)
	}
	if len(tokens) > 0 {
		authn = append(authn, &authenticator.BearerToken{Tokens: tokens})
	}
	// Joining nodes read the cluster CA before they have credentials.
	authn = append(authn, authenticator.Anonymous{Paths: []string{controlplane.ClusterInfoPath}})
	// The advertised address, not the listener's: one bound to every
	// address reports "[::]", which no client can verify a certificate for.
	serverURL := "https://" + net.JoinHostPort(advertise.IP.String(), strconv.Itoa(advertise.Port))
	kubeconfig := filepath.Join(o.dataDir, "admin.kubeconfig")
	serving := &certRenewer{dir: pkiDir, hosts: hosts, serverURL: serverURL, kubeconfig: kubeconfig}
	serving.use(bundle)
	cfg := apiserver.Config{
		Scheme:         res.Scheme,
		Groups:         res.Groups,
		Authenticator:  authn,
		Authorizer:     res.Authorizer,
		FlowConfig:     res.FlowConfig,
		Listener:       ln,
		GetServingCert: serving.current,
		ClientCA:       tlsClientCAs,
		Profiling:      o.profiling,
		Metrics:        append(etcdMetrics, res.Metrics...),
		ReadyChecks: []apiserver.HealthCheck{{Name: "etcd", Check: func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			_, err := client.Get(ctx, "/registry/health", clientv3.WithCountOnly())
			return err
		}}},
	}
	cfg.Dynamic, cfg.Paths = res.Dynamic, res.Paths
	cfg.Aggregator = res.Aggregator
	cfg.ReadyChecks = append(cfg.ReadyChecks, res.ReadyChecks...)
	audit, err := o.limits.apply(&cfg)
	if err != nil {
		return err
	}
	if audit != nil {
		// After the server stopped: every request's event is queued.
		defer func() {
			if err := audit.Close(); err != nil {
				klog.ErrorS(err, "Closing the audit log", "path", o.limits.AuditLogPath)
			}
		}()
	}
	cc, err := cfg.Complete()
	if err != nil {
		return err
	}
	srv, err := apiserver.New(cc)
	if err != nil {
		return err
	}
	if err := pki.WriteAdminKubeconfig(kubeconfig, serverURL, bundle); err != nil {
		return fmt.Errorf("write %s: %w", kubeconfig, err)
	}
	g.Go(func() error { return serving.run(ctx, certCheckInterval) })
	g.Go(func() error {
		select {
		case <-srv.Ready():
		case <-ctx.Done():
			return nil
		}
		o.addrMu.Lock()
		o.addr = srv.Addr()
		o.addrMu.Unlock()
		klog.InfoS("kubecore apiserver is ready", "url", serverURL, "kubeconfig", kubeconfig)
		close(o.ready)
		return nil
	})
	g.Go(func() error { return srv.Run(ctx) })
	return g.Wait()
}

// advertiseEndpoint is where pods reach a server bound to bind and
// listening on addr: the bind address, or when it is every address
// (0.0.0.0, ::), the first global unicast address of the host's interfaces
// (of the same family when there is one), loopback when there is none; and
// the port it really listens on (--secure-port may be 0).
func advertiseEndpoint(bind string, addr net.Addr, interfaceAddrs func() ([]net.Addr, error)) (controlplane.Endpoint, error) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return controlplane.Endpoint{}, fmt.Errorf("listener address %s is not TCP", addr)
	}
	ip := net.ParseIP(bind)
	if ip == nil {
		return controlplane.Endpoint{}, fmt.Errorf("bind address %q is not an IP address", bind)
	}
	ep := controlplane.Endpoint{IP: ip, Port: tcp.Port}
	if !ip.IsUnspecified() {
		return ep, nil
	}
	addrs, err := interfaceAddrs()
	if err != nil {
		return controlplane.Endpoint{}, fmt.Errorf("find an address to advertise: %w", err)
	}
	wantV4 := ip.To4() != nil
	var other net.IP
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || !n.IP.IsGlobalUnicast() {
			continue
		}
		if (n.IP.To4() != nil) == wantV4 {
			ep.IP = n.IP
			return ep, nil
		}
		if other == nil {
			other = n.IP
		}
	}
	switch {
	case other != nil:
		ep.IP = other
	case wantV4:
		ep.IP = net.IPv4(127, 0, 0, 1)
	default:
		ep.IP = net.IPv6loopback
	}
	return ep, nil
}

// kubeletClientConfig returns how to reach kubelets by the flags, with the
// CA of --kubelet-certificate-authority read.
func (o *Options) kubeletClientConfig() (node.KubeletClientConfig, error) {
	var cfg node.KubeletClientConfig
	for _, t := range o.KubeletPreferredAddressTypes {
		cfg.PreferredAddressTypes = append(cfg.PreferredAddressTypes, corev1.NodeAddressType(t))
	}
	if o.KubeletCertificateAuthority != "" {
		b, err := os.ReadFile(o.KubeletCertificateAuthority)
		if err != nil {
			return node.KubeletClientConfig{}, fmt.Errorf("--kubelet-certificate-authority: %w", err)
		}
		cfg.CAs = x509.NewCertPool()
		if !cfg.CAs.AppendCertsFromPEM(b) {
			return node.KubeletClientConfig{}, fmt.Errorf("--kubelet-certificate-authority %s: no certificate found", o.KubeletCertificateAuthority)
		}
	}
	return cfg, nil
}

// withKubeletClientCert issues (or reuses) the apiserver's client
// certificate to kubelets and adds it to cfg.
func withKubeletClientCert(cfg node.KubeletClientConfig, bundle *pki.Bundle) (node.KubeletClientConfig, error) {
	kp, err := bundle.EnsureClientCert(kubeletClientName, kubeletClientCN, []string{pki.MastersGroup})
	if err != nil {
		return node.KubeletClientConfig{}, fmt.Errorf("kubelet client certificate: %w", err)
	}
	cert := kp.TLSCertificate()
	cfg.ClientCertificate = &cert
	cfg.PreferredAddressTypes = slices.Clone(cfg.PreferredAddressTypes)
	return cfg, nil
}

// NewCommand returns the apiserver subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "apiserver",
		Short: "Run the API server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.Complete()
			if err != nil {
				return err
			}
			return c.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory holding etcd data (unless --etcd-servers), pki/ and admin.kubeconfig")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "External etcd client URLs; empty runs an embedded member in DATA_DIR/etcd")
	fs.StringVar(&o.EtcdCAFile, "etcd-cafile", o.EtcdCAFile, "CA bundle verifying the certificates of --etcd-servers")
	fs.StringVar(&o.EtcdCertFile, "etcd-certfile", o.EtcdCertFile, "Client certificate (PEM) presented to --etcd-servers")
	fs.StringVar(&o.EtcdKeyFile, "etcd-keyfile", o.EtcdKeyFile, "Key of --etcd-certfile")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address to serve on")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "HTTPS port (0 picks a free one)")
	fs.StringVar(&o.ServiceClusterIPRange, "service-cluster-ip-range", o.ServiceClusterIPRange, "CIDR service cluster IPs are allocated from")
	fs.StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "CSV file of static bearer tokens: token,user,uid,\"group1,group2\"")
	fs.StringSliceVar(&o.KubeletPreferredAddressTypes, "kubelet-preferred-address-types", o.KubeletPreferredAddressTypes, "Node address types to reach kubelets by, in order of preference")
	fs.StringVar(&o.KubeletCertificateAuthority, "kubelet-certificate-authority", o.KubeletCertificateAuthority, "CA bundle verifying kubelets' serving certificates (unset: not verified)")
	o.AddProfilingFlag(fs)
	o.Limits.AddFlags(fs)
	o.Storage.AddFlags(fs)
	fs.BoolVar(&o.NoManagedFields, "no-managed-fields", false, "Record no managedFields and serve no server-side apply (benchmarks only)")
	_ = fs.MarkHidden("no-managed-fields")
	fs.StringSliceVar(&o.DisableAdmissionPlugins, "disable-admission-plugins", o.DisableAdmissionPlugins,
		"Admission plugins to leave out of the chain: "+strings.Join(controlplane.DisableableAdmissionPlugins(), ", "))
	return cmd
}

// AddProfilingFlag adds --profiling to fs (all-in-one shares it).
func (o *Options) AddProfilingFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "Serve Go's CPU, heap and other profiles at /debug/pprof/ to those allowed the path")
}
