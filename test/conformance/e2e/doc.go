// Package e2e is kubecore's entry point into the upstream Kubernetes e2e
// suite. It holds only a test main (e2e_test.go) that links the upstream
// framework and the test packages whose [Conformance] specs kubecore is
// measured by; `go test -c` turns it into _output/bin/e2e.test, which
// hack/conformance.sh runs under ginkgo against a kubecore all-in-one.
package e2e
