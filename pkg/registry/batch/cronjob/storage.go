// Package cronjob serves cronjobs with their status subresource through
// the generic Store.
package cronjob

import (
	batchv1 "kubecore.io/api/batch/v1"

	"kubecore.io/kubecore/pkg/apis/batch/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of cronjobs: status only through
// /status, generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*batchv1.CronJob] {
	return &strategy.Strategy[*batchv1.CronJob]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidateCronJob,
		ValidateUpdateFunc: validation.ValidateCronJobUpdate,
	}
}

// NewStorage returns the storage of cronjobs and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	return strategy.NewWithStatus(opts, strategy.Of[batchv1.CronJob, batchv1.CronJobList](batchv1.Resource("cronjobs"), "cronjob", NewStrategy()).Short("cj").InCategories("all"))
}
