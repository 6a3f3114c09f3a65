// Package apiextensions tests CustomResourceDefinitions against an
// in-process API server: serving, validation, pruning, defaulting,
// subresources, discovery, OpenAPI and deletion.
package apiextensions

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
