// +kubecore:deepcopy-gen=package

// Package v1 holds the resource.k8s.io/v1 types of dynamic resource
// allocation: DeviceClasses, ResourceClaims, ResourceClaimTemplates and
// ResourceSlices.
package v1
