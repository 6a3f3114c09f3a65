package apiserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/controlplane"
	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/pkg/registry/core/node"
)

// The authorizer reads roles and bindings from the watch caches: on a new
// data dir, the components that connect the instant the server is ready
// must already be allowed what the default policy grants them.
func TestPolicyAuthorizedRightAfterBootstrap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	srv, err := etcd.Start(ctx, etcd.Config{DataDir: filepath.Join(dir, "etcd"), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := controlPlane(controlPlaneConfig{serviceCIDR: "10.96.0.0/12", pkiDir: filepath.Join(dir, "pki"), eventTTL: time.Hour})(ctx, srv.Client(), node.KubeletClientConfig{}, controlplane.Endpoint{})
	if err != nil {
		t.Fatal(err)
	}
	scheduler := &apirequest.UserInfo{Name: "system:kube-scheduler", Groups: []string{"system:authenticated"}}
	for _, resource := range []string{"pods", "nodes", "persistentvolumes"} {
		decision, reason, err := res.Authorizer.Authorize(ctx, authorizer.Attributes{
			User:    scheduler,
			Request: &apirequest.RequestInfo{IsResourceRequest: true, Verb: "list", Resource: resource},
		})
		if decision != authorizer.Allow {
			t.Errorf("scheduler list %s: decision %v %q %v, want allowed", resource, decision, reason, err)
		}
	}
}
