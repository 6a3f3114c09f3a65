// Package main is a small operator of our own, built on the stock
// sigs.k8s.io/controller-runtime (fetched from the module proxy, never
// copied into the tree), for the e2e test of server-side apply from
// controller-runtime: for each Widget (widgets.example.kubecore.io) it
// applies a ConfigMap with client.Apply, a label on the Widget with
// Patch(obj, client.Apply) and the Widget's status with Status().Apply,
// under a manager with leader election on a Lease and informer caches.
//
// It is a test-only module: hack/controller-runtime.sh builds it into
// _output/bin/widget-operator.
package main
