// +kubecore:deepcopy-gen=package

// Package v1 holds the batch/v1 types: Job, which runs pods to completion,
// and CronJob, which makes Jobs on a schedule, in Kubernetes' wire format.
package v1
