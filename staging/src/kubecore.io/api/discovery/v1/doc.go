// +kubecore:deepcopy-gen=package

// Package v1 holds the discovery.k8s.io/v1 types: EndpointSlice, the
// scalable list of a Service's backends that kube-proxy-like consumers and
// kubectl read.
package v1
