package e2e

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"

	// The suite's Synchronized{Before,After}Suite hooks (node readiness,
	// namespace cleanup, log dumps) and RunE2ETests, the upstream way of
	// handing the framework's configuration to ginkgo.
	upstream "k8s.io/kubernetes/test/e2e"

	// Files the specs read at run time (manifests, fixtures), served from
	// the binary itself so it needs no Kubernetes checkout beside it.
	conformancedata "k8s.io/kubernetes/test/conformance/testdata"
	manifests "k8s.io/kubernetes/test/e2e/testing-manifests"
	fixtures "k8s.io/kubernetes/test/fixtures"

	// Feature and environment labels must be defined before any spec.
	_ "k8s.io/kubernetes/test/e2e/feature"

	// The test packages: every sig whose specs carry [Conformance].
	_ "k8s.io/kubernetes/test/e2e/apimachinery"
	_ "k8s.io/kubernetes/test/e2e/apps"
	_ "k8s.io/kubernetes/test/e2e/architecture"
	_ "k8s.io/kubernetes/test/e2e/auth"
	_ "k8s.io/kubernetes/test/e2e/common"
	_ "k8s.io/kubernetes/test/e2e/instrumentation"
	_ "k8s.io/kubernetes/test/e2e/kubectl"
	_ "k8s.io/kubernetes/test/e2e/network"
	_ "k8s.io/kubernetes/test/e2e/node"
	_ "k8s.io/kubernetes/test/e2e/scheduling"
	_ "k8s.io/kubernetes/test/e2e/storage"

	// Framework extensions: failure dumps, metrics gathering, node helpers
	// and the object formatter used in failure messages.
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/utils/format"
)

// TestMain parses the framework's flags (kubeconfig, provider, report dir,
// ginkgo's own) before ginkgo starts, as the framework requires.
func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "e2e.test: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}

	for _, fs := range []testfiles.FileSource{
		manifests.GetE2ETestingManifestsFS(),
		fixtures.GetTestFixturesFS(),
		conformancedata.GetConformanceTestdataFS(),
	} {
		testfiles.AddFileSource(fs)
	}

	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

// TestE2E runs every spec that the ginkgo focus and skip select.
func TestE2E(t *testing.T) {
	upstream.RunE2ETests(t)
}
