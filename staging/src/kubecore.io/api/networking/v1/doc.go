// +kubecore:deepcopy-gen=package

// Package v1 holds the networking.k8s.io/v1 types: Ingress and
// IngressClass (HTTP routing to Services), NetworkPolicy (which traffic
// pods accept and send), and IPAddress and ServiceCIDR (the Service
// ClusterIP ranges and the addresses allocated from them).
package v1
