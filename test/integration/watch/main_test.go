// Package watch checks watches on every resource discovery lists, built-in
// and custom, in JSON and protobuf: bookmarks and every other event encode
// with the served apiVersion and kind, streaming lists end with their
// annotated bookmark, and the stock client-go informers never relist.
package watch

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
