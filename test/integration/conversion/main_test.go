// Package conversion tests CustomResourceDefinitions with the Webhook
// conversion strategy against an in-process API server: a conversion
// webhook served by the test over TLS (webhooktest) converts objects
// between two versions on reads, lists, watches and writes.
package conversion

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
