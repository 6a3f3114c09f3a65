// Package e2e drives the built kubecore binary (hack/test-e2e.sh sets
// $KUBECORE_BIN) with the stock kubectl, as a user would.
package e2e
