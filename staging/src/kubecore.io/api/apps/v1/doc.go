// +kubecore:deepcopy-gen=package

// Package v1 holds the apps/v1 workload types: Deployment, ReplicaSet,
// StatefulSet, DaemonSet and ControllerRevision, in Kubernetes' wire format.
package v1
