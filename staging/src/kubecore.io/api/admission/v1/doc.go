// +kubecore:deepcopy-gen=package

// Package v1 holds the admission.k8s.io/v1 types: the AdmissionReview the
// API server POSTs to an admission webhook, and the response it reads
// back. The group is not served; it only travels to webhooks.
package v1
