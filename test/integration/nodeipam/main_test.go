// Package nodeipam holds the integration tests of the node IPAM controller
// against a real API server and etcd.
package nodeipam

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
