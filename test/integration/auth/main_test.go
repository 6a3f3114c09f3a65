// Package auth holds the integration tests of authentication and
// authorization: tokens, RBAC, the Node authorizer and access reviews,
// against an in-process API server over embedded etcd.
package auth

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
