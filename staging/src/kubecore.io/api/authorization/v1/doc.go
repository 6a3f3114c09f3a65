// +kubecore:deepcopy-gen=package

// Package v1 holds the authorization.k8s.io/v1 types: access reviews that
// ask the API server whether a user (or the caller itself) may do
// something, as `kubectl auth can-i` does.
package v1
