// Package cronjob serves cronjobs with their status subresource through
// the generic Store.
package cronjob

import (
	"context"

	batchv1 "kubecore.io/api/batch/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/batch/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of cronjobs and their status.
type Storage struct {
	CronJob *REST
	Status  *strategy.StatusREST
}

// REST serves cronjobs.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of cronjobs: status only through
// /status, generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*batchv1.CronJob] {
	return &strategy.Strategy[*batchv1.CronJob]{
		Namespaced:        true,
		StatusSubresource: true,
		Generation:        true,
		ValidateFunc: func(_ context.Context, cj *batchv1.CronJob) field.ErrorList {
			return validation.ValidateCronJob(cj)
		},
		ValidateUpdateFunc: func(_ context.Context, cj, old *batchv1.CronJob) field.ErrorList {
			return validation.ValidateCronJobUpdate(cj, old)
		},
	}
}

// NewStorage returns the storage of cronjobs.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*batchv1.CronJob]{
		Resource:   batchv1.Resource("cronjobs"),
		Singular:   batchv1.Resource("cronjob"),
		NewObj:     func() runtime.Object { return &batchv1.CronJob{} },
		NewList:    func() runtime.Object { return &batchv1.CronJobList{} },
		ShortNames: []string{"cj"},
		Categories: []string{"all"},
		Strategy:   NewStrategy(),
	})
	if err != nil {
		return nil, err
	}
	return &Storage{CronJob: &REST{Store: st.Store}, Status: st.Status}, nil
}
