package fakenode

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"

	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/test/integration/framework"
)

// StartAPIServer runs an API server over an embedded etcd in a temporary
// directory until the test ends, and returns its admin REST config (no
// client-side rate limit) and the path of its admin kubeconfig.
func StartAPIServer(t testing.TB) (*rest.Config, string) {
	t.Helper()
	o := apiserver.NewOptions()
	o.DataDir = t.TempDir()
	o.SecurePort = 0
	o.DisableAdmissionPlugins = framework.DefaultDisabledAdmissionPlugins()
	c, err := o.Complete()
	if err != nil {
		t.Fatalf("apiserver options: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := c.Ready()
	errc := make(chan error, 1)
	go func() { errc <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(30 * time.Second):
			t.Error("apiserver did not stop within 30s")
		}
	})
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("apiserver: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("apiserver not ready after 60s")
	}
	kubeconfig := filepath.Join(o.DataDir, "admin.kubeconfig")
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("load %s: %v", kubeconfig, err)
	}
	rc.QPS, rc.Burst = 0, 0
	return rc, kubeconfig
}
