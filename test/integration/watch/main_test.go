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

// testEtcd is the etcd every test's server runs on, one after the other:
// a later server starts on an etcd an earlier one wrote.
var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
