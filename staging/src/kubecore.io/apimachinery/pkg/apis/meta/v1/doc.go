// Package v1 holds the meta.k8s.io/v1 types every API object embeds or
// returns: object and list metadata, Status errors, watch events, options,
// tables and discovery documents, with Kubernetes' JSON wire format.
//
// +kubecore:deepcopy-gen=package
package v1
