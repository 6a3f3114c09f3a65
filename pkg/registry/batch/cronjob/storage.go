// Package cronjob serves cronjobs with their status subresource through
// the generic Store.
package cronjob

import (
	batchv1 "kubecore.io/api/batch/v1"

	"kubecore.io/kubecore/pkg/apis/batch/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of cronjobs and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	s := strategy.SpecAndStatus(validation.ValidateCronJob, validation.ValidateCronJobUpdate)
	return strategy.NewWithStatus(opts, strategy.Of[batchv1.CronJob, batchv1.CronJobList](batchv1.Resource("cronjobs"), "cronjob", s).Short("cj").InCategories("all"))
}
