// +kubecore:deepcopy-gen=package

// Package v1 holds the events.k8s.io/v1 types: Event, the newer shape of
// the core v1 Events. Both groups serve the same stored objects; the API
// server converts between the shapes.
package v1
