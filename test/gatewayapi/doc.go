// Package gatewayapi is a test-only module: it pins the Gateway API
// release whose standard-channel CRDs the e2e suite applies with the
// stock kubectl (hack/gatewayapi-crds.sh fetches them through the module
// cache), so that no CRD YAML is copied into the tree.
package gatewayapi
