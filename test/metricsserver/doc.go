// Package metricsserver is a test-only module that pins the stock
// sigs.k8s.io/metrics-server as a Go tool, so that hack/metrics-server.sh
// builds it from the module proxy (never copied into the tree) for the
// e2e test of resource metrics, `kubectl top` and the HPA.
package metricsserver
