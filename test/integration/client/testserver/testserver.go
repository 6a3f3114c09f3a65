// Package testserver runs `kubecore apiserver` in-process over an embedded
// etcd member that the test holds, for the client framework's integration tests.
package testserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/test/integration/framework"
)

// Server is an API server on 127.0.0.1 and its etcd member. The etcd
// member outlives Restart, so a test can restart the API server alone, and
// compact etcd's history through Etcd.
type Server struct {
	// DataDir holds the API server's PKI and admin.kubeconfig, and etcd's
	// data under etcd/.
	DataDir string
	// Kubeconfig is the admin kubeconfig the API server wrote.
	Kubeconfig string
	// Config is the client configuration loaded from Kubeconfig.
	Config *rest.Config
	// Clientset is a typed client of the server.
	Clientset *typed.Clientset

	etcd *etcd.Server
	port int

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan error
}

// Start starts etcd and the API server, and stops both when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{DataDir: t.TempDir()}
	member, err := etcd.Start(context.Background(), etcd.Config{DataDir: filepath.Join(s.DataDir, "etcd"), UnsafeNoFsync: true})
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	s.etcd = member
	t.Cleanup(func() {
		s.Stop()
		member.Close()
	})
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	s.Kubeconfig = filepath.Join(s.DataDir, "admin.kubeconfig")
	if s.Config, err = clientcmd.BuildConfigFromFlags("", s.Kubeconfig); err != nil {
		t.Fatalf("load %s: %v", s.Kubeconfig, err)
	}
	if s.Clientset, err = typed.NewForConfig(s.Config); err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return s
}

// Etcd returns an in-process client of the etcd member.
func (s *Server) Etcd() *clientv3.Client { return s.etcd.Client() }

// URL returns the API server's URL.
func (s *Server) URL() string { return fmt.Sprintf("https://127.0.0.1:%d", s.port) }

// start runs the API server (on s.port once known) and waits until it is
// ready.
func (s *Server) start() error {
	o := apiserver.NewOptions()
	o.DataDir = s.DataDir
	o.EtcdServers = s.etcd.ClientURLs()
	o.SecurePort = s.port
	o.DisableAdmissionPlugins = framework.DefaultDisabledAdmissionPlugins()
	cfg, err := o.Complete()
	if err != nil {
		return fmt.Errorf("complete apiserver options: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cfg.Run(ctx) }()
	select {
	case <-cfg.Ready():
		s.port = cfg.Addr().(*net.TCPAddr).Port
	case err := <-done:
		cancel()
		return fmt.Errorf("apiserver: %w", err)
	case <-time.After(60 * time.Second):
		cancel()
		return errors.New("apiserver not ready after 60s")
	}
	s.mu.Lock()
	s.cancel, s.done = cancel, done
	s.mu.Unlock()
	return nil
}

// Stop stops the API server (not etcd) and waits for it to return. It is
// idempotent.
func (s *Server) Stop() error {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("apiserver stopped with: %w", err)
	}
	return nil
}

// Restart stops the API server and starts it again on the same port and
// data directory; clients keep their configuration.
func (s *Server) Restart() error {
	if err := s.Stop(); err != nil {
		return err
	}
	// The port was just released; another process may take it meanwhile,
	// so retry a few times before giving up.
	var err error
	for range 20 {
		if err = s.start(); err == nil || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}
