// +kubecore:deepcopy-gen=package

// Package v1 holds the apiregistration.k8s.io/v1 types: APIService, which
// says which server serves a group version (the API server itself, or an
// aggregated server behind a Service).
package v1
