// Package batch provides the storage of the batch/v1 API group: the resources the
// API server serves for it, each built by its own package below.
package batch

import (
	"context"
	"errors"

	batchv1 "kubecore.io/api/batch/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/batch/cronjob"
	"kubecore.io/kubecore/pkg/registry/batch/job"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of batch/v1.
type Provider struct{}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return batchv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "jobs", opts, job.NewStorage),
		strategy.Add(rs, "cronjobs", opts, cronjob.NewStorage),
	)
}
