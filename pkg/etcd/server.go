package etcd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"k8s.io/klog/v2"
)

// Config says how to run the member. The zero value plus a DataDir runs a
// single-member cluster on free loopback ports.
type Config struct {
	// DataDir holds the member's WAL and snapshots. Required.
	DataDir string
	// Name of the member; "default" when empty.
	Name string
	// ListenClientURLs and ListenPeerURLs default to http://127.0.0.1:0.
	ListenClientURLs []string
	ListenPeerURLs   []string
	// AdvertiseClientURLs and AdvertisePeerURLs default to the listen URLs.
	AdvertiseClientURLs []string
	AdvertisePeerURLs   []string
	// InitialCluster ("name=peerURL,...") and InitialClusterState ("new" or
	// "existing") join a multi-member cluster; empty means a single member.
	InitialCluster      string
	InitialClusterState string
	// ClientTLS and PeerTLS serve clients and peers over TLS (https:// URLs)
	// when their certificate is set.
	ClientTLS TLSConfig
	PeerTLS   TLSConfig
	// UnsafeNoFsync skips fsync: for tests only, a crash loses data.
	UnsafeNoFsync bool
	// StartTimeout bounds the wait for the member to be ready (default 60s).
	StartTimeout time.Duration
	// NoStartDefrag keeps the member from defragmenting its database at
	// start when more than half of the file is free (maintenance.go).
	NoStartDefrag bool
}

// TLSConfig is the TLS side of the member towards clients or peers.
type TLSConfig struct {
	// CertFile and KeyFile are the member's certificate and key (PEM); for
	// peers the certificate also authenticates the member as a client.
	CertFile, KeyFile string
	// TrustedCAFile, with ClientCertAuth, is the CA whose certificates the
	// other side must present.
	TrustedCAFile  string
	ClientCertAuth bool
}

func (t TLSConfig) scheme() string {
	if t.CertFile != "" {
		return "https"
	}
	return "http"
}

// Server is a running member. Close stops it; Err reports a fatal error.
type Server struct {
	cfg       Config
	etcd      *embed.Etcd
	client    *clientv3.Client
	lock      *os.File
	logs      *klogCore
	closeOnce sync.Once
}

// singleMemberCatchUpEntries is the raft log a single member keeps in
// memory behind its applied index (etcd's SnapshotCatchUpEntries).
const singleMemberCatchUpEntries = 500

// lockFileName is taken with flock before etcd opens its data: a second
// start on a data dir in use would otherwise hang on the bbolt lock.
const lockFileName = "kubecore.lock"

// Start validates cfg, starts the member and waits until it serves. On any
// failure it cleans up what it started.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("etcd: a data directory is required")
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("etcd: create data dir: %w", err)
	}
	lock, err := lockDir(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	logs := &klogCore{}
	ecfg, err := embedConfig(cfg, logs)
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	e, err := embed.StartEtcd(ecfg)
	if err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("etcd: start member in %s: %w", cfg.DataDir, err)
	}
	s := &Server{cfg: cfg, etcd: e, lock: lock, logs: logs}

	timeout := cfg.StartTimeout
	if timeout == 0 {
		timeout = time.Minute
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		s.Close()
		return nil, fmt.Errorf("etcd: member failed while starting: %w", err)
	case <-timer.C:
		s.Close()
		return nil, fmt.Errorf("etcd: member in %s not ready after %s", cfg.DataDir, timeout)
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
	s.client = v3client.New(e.Server)
	if !cfg.NoStartDefrag {
		s.defragmentIfSparse(ctx)
	}
	klog.InfoS("Embedded etcd ready", "dataDir", cfg.DataDir, "clientURLs", s.ClientURLs())
	return s, nil
}

func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("etcd: open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("etcd: data dir %s is in use by another process (lock %s held)", dir, path)
	}
	return f, nil
}

func embedConfig(cfg Config, logs *klogCore) (*embed.Config, error) {
	ec := embed.NewConfig()
	ec.Dir = filepath.Join(cfg.DataDir)
	if cfg.Name != "" {
		ec.Name = cfg.Name
	}
	var err error
	if ec.ListenClientUrls, err = parseURLs(cfg.ListenClientURLs, "http://127.0.0.1:0"); err != nil {
		return nil, err
	}
	if ec.ListenPeerUrls, err = parseURLs(cfg.ListenPeerURLs, "http://127.0.0.1:0"); err != nil {
		return nil, err
	}
	if ec.AdvertiseClientUrls, err = parseURLs(cfg.AdvertiseClientURLs, ""); err != nil {
		return nil, err
	}
	if len(ec.AdvertiseClientUrls) == 0 {
		ec.AdvertiseClientUrls = ec.ListenClientUrls
	}
	if ec.AdvertisePeerUrls, err = parseURLs(cfg.AdvertisePeerURLs, ""); err != nil {
		return nil, err
	}
	if len(ec.AdvertisePeerUrls) == 0 {
		ec.AdvertisePeerUrls = ec.ListenPeerUrls
	}
	if cfg.InitialCluster == "" {
		ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
		// A single member elects itself: short ticks make it ready in ~150 ms.
		ec.TickMs, ec.ElectionMs = 10, 100
		// It has no follower to catch up either: the applied raft entries
		// etcd keeps in memory for slow followers (5,000 by default, each
		// a whole request, a pod's worth of bytes: ~25 MB while pods are
		// written) are kept to a few hundred. A member added later gets a
		// snapshot instead.
		ec.SnapshotCatchUpEntries = singleMemberCatchUpEntries
	} else {
		ec.InitialCluster = cfg.InitialCluster
		ec.TickMs, ec.ElectionMs = 50, 500
	}
	if cfg.InitialClusterState != "" {
		ec.ClusterState = cfg.InitialClusterState
	}
	ct, pt := &ec.ClientTLSInfo, &ec.PeerTLSInfo
	ct.CertFile, ct.KeyFile, ct.TrustedCAFile, ct.ClientCertAuth = cfg.ClientTLS.CertFile, cfg.ClientTLS.KeyFile, cfg.ClientTLS.TrustedCAFile, cfg.ClientTLS.ClientCertAuth
	pt.CertFile, pt.KeyFile, pt.TrustedCAFile, pt.ClientCertAuth = cfg.PeerTLS.CertFile, cfg.PeerTLS.KeyFile, cfg.PeerTLS.TrustedCAFile, cfg.PeerTLS.ClientCertAuth
	ec.UnsafeNoFsync = cfg.UnsafeNoFsync
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logs.logger())
	if err := ec.Validate(); err != nil {
		return nil, fmt.Errorf("etcd: invalid configuration: %w", err)
	}
	return ec, nil
}

func parseURLs(in []string, def string) ([]url.URL, error) {
	if len(in) == 0 && def != "" {
		in = []string{def}
	}
	out := make([]url.URL, 0, len(in))
	for _, s := range in {
		u, err := url.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("etcd: bad URL %q: %w", s, err)
		}
		out = append(out, *u)
	}
	return out, nil
}

// Client returns an in-process client that skips the loopback gRPC hop.
func (s *Server) Client() *clientv3.Client { return s.client }

// ClientURLs returns the URLs the member serves clients on, with the real
// ports when port 0 was asked for.
func (s *Server) ClientURLs() []string {
	urls := make([]string, 0, len(s.etcd.Clients))
	for _, l := range s.etcd.Clients {
		urls = append(urls, s.cfg.ClientTLS.scheme()+"://"+l.Addr().String())
	}
	return urls
}

// PeerURLs returns the URLs the member serves peers on.
func (s *Server) PeerURLs() []string {
	urls := make([]string, 0, len(s.etcd.Peers))
	for _, p := range s.etcd.Peers {
		urls = append(urls, s.cfg.PeerTLS.scheme()+"://"+p.Listener.Addr().String())
	}
	return urls
}

// Err reports a fatal error of the running member.
func (s *Server) Err() <-chan error { return s.etcd.Err() }

// Close stops the member and releases the data dir. It is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.logs.closing.Store(true)
		if s.client != nil {
			_ = s.client.Close()
		}
		s.etcd.Close()
		_ = s.lock.Close()
	})
}
