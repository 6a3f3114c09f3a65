// +kubecore:deepcopy-gen=package

// Package v1 holds the certificates.k8s.io/v1 types: CertificateSigningRequest,
// with which a client (a joining kubelet) asks a signer for an x509 certificate.
package v1
