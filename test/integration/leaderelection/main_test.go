// Package leaderelection tests that leaders and node heartbeats survive an
// API server overloaded by one user's writes.
package leaderelection

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
