// Package batch provides the storage of the batch/v1 API group: the
// resources the API server serves for it, each built by its own package
// below.
package batch

import (
	batchv1 "kubecore.io/api/batch/v1"

	"kubecore.io/kubecore/pkg/registry/batch/cronjob"
	"kubecore.io/kubecore/pkg/registry/batch/job"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of batch/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(batchv1.SchemeGroupVersion,
		strategy.Served("jobs", job.NewStorage),
		strategy.Served("cronjobs", cronjob.NewStorage),
	)
}
