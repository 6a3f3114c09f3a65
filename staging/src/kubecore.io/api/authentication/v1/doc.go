// +kubecore:deepcopy-gen=package

// Package v1 holds the authentication.k8s.io/v1 types: TokenRequest, what
// a client sends to serviceaccounts/NAME/token to get a token for the
// service account, and what it gets back.
package v1
