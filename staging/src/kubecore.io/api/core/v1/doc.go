// Package v1 holds the core API group's types (Pod, Node, Service, ConfigMap,
// Secret, Namespace, Event, volumes and claims) in Kubernetes' wire format.
//
// +kubecore:deepcopy-gen=package
package v1
