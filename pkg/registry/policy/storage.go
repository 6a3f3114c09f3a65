// Package policy provides the storage of the policy/v1 API group: the
// resources the API server serves for it, each built by its own package
// below.
package policy

import (
	policyv1 "kubecore.io/api/policy/v1"

	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/policy/poddisruptionbudget"
)

// Provider builds the storage of policy/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(policyv1.SchemeGroupVersion,
		strategy.Served("poddisruptionbudgets", poddisruptionbudget.NewStorage),
	)
}
