// Package dns tests the cluster DNS against a real API server: records
// follow Services and EndpointSlices, and the server publishes itself as
// an endpoint of kube-system/kube-dns.
package dns

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
