// Package flowschema serves flowschemas, which classify requests for API
// priority and fairness, and their status subresource through the
// generic Store.
package flowschema

import (
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/apis/flowcontrol/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of flowschemas and their status: the
// generation counts spec changes, the status only through /status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	s := &strategy.Strategy[*flowcontrolv1.FlowSchema]{
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidateFlowSchema,
		ValidateUpdateFunc: validation.ValidateFlowSchemaUpdate,
	}
	r := strategy.Of[flowcontrolv1.FlowSchema, flowcontrolv1.FlowSchemaList](flowcontrolv1.Resource("flowschemas"), "flowschema", s)
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*flowcontrolv1.FlowSchema]{ResetMetadata: true, ValidateStatus: validation.ValidateFlowSchemaStatusUpdate}))
}
