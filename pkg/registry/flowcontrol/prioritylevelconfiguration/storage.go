// Package prioritylevelconfiguration serves prioritylevelconfigurations,
// the concurrency shares of API priority and fairness, and their status
// subresource through the generic Store.
package prioritylevelconfiguration

import (
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/apis/flowcontrol/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of prioritylevelconfigurations and their
// status: the generation counts spec changes, the status only through
// /status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	s := &strategy.Strategy[*flowcontrolv1.PriorityLevelConfiguration]{
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidatePriorityLevelConfiguration,
		ValidateUpdateFunc: validation.ValidatePriorityLevelConfigurationUpdate,
	}
	r := strategy.Of[flowcontrolv1.PriorityLevelConfiguration, flowcontrolv1.PriorityLevelConfigurationList](
		flowcontrolv1.Resource("prioritylevelconfigurations"), "prioritylevelconfiguration", s)
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*flowcontrolv1.PriorityLevelConfiguration]{
		ResetMetadata:  true,
		ValidateStatus: validation.ValidatePriorityLevelConfigurationStatusUpdate,
	}))
}
