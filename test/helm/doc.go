// Package helm is a test-only module that pins the stock Helm 4 CLI
// (helm.sh/helm/v4) as a Go tool, so that hack/helm.sh builds it from the
// module proxy (never copied into the tree) for the e2e tests that drive
// kubecore with `helm install`, `upgrade`, `rollback`, `uninstall` and
// `helm test`.
package helm
