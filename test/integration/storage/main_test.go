// Package storage tests storage.k8s.io through an API server with the
// scheduler, a fake node and the local-path provisioner.
package storage

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
