// Package certificates holds the integration tests of certificate signing
// requests: the API's validation, requester and subresources, and the
// approver and signer controllers, against an in-process API server over
// embedded etcd.
package certificates

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
