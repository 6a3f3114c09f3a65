// +kubecore:deepcopy-gen=package

// Package v1 holds the node.k8s.io/v1 types: RuntimeClass, which names the
// container runtime handler a pod runs under and what that costs.
package v1
