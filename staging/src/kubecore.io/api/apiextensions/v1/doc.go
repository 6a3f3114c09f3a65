// +kubecore:deepcopy-gen=package

// Package v1 holds the apiextensions.k8s.io/v1 types: the
// CustomResourceDefinition that extends the API with a new resource, and
// the OpenAPI v3 schema its objects are validated against.
package v1
