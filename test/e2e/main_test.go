package e2e

import (
	"os"
	"testing"

	"kubecore.io/kubecore/test/e2e/framework"
)

// server is the API server the tests of this package share; each test
// works in namespaces of its own.
var server *framework.APIServer

func TestMain(m *testing.M) { os.Exit(framework.RunWithAPIServer(m, &server)) }
