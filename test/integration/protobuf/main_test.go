// Package protobuf tests kubecore's Kubernetes protobuf encoding end to end:
// the API types' tags against Kubernetes' field numbers, byte-for-byte
// agreement with Kubernetes' own encoder on the fixtures, content
// negotiation over HTTPS, and the stock kubectl against the apiserver.
package protobuf

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

// testEtcd is the package's etcd, started by TestMain.
var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
