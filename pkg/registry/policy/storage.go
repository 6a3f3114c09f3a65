// Package policy provides the storage of the policy/v1 API group: the resources the
// API server serves for it, each built by its own package below.
package policy

import (
	"context"
	"errors"

	policyv1 "kubecore.io/api/policy/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/policy/poddisruptionbudget"
)

// Provider builds the storage of policy/v1.
type Provider struct{}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return policyv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "poddisruptionbudgets", opts, poddisruptionbudget.NewStorage),
	)
}
