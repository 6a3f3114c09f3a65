// Package proxy tests the service proxy against a real API server: it
// programs a network namespace's nftables from Services and
// EndpointSlices, and connections through cluster IPs and node ports
// reach the endpoints (root).
package proxy

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
