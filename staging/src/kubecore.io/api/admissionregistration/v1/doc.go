// +kubecore:deepcopy-gen=package

// Package v1 holds the admissionregistration.k8s.io/v1 types: the webhook
// configurations and the CEL admission policies with their bindings.
package v1
