// Package webhook tests admission webhooks against an in-process API
// server: webhooks served by the test over TLS (webhooktest), reached by
// URL and through a Service, allowing, denying, patching, timing out and
// failing per their failurePolicy.
package webhook

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
