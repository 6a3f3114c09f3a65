// Package node serves nodes and their status subresource; nodes can be
// selected by spec.unschedulable.
package node

import (
	"context"
	"fmt"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the node strategy.
func NewStrategy() *strategy.Strategy[*corev1.Node] {
	return &strategy.Strategy[*corev1.Node]{
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateNode,
		ValidateUpdateFunc: validation.ValidateNodeUpdate,
	}
}

// keepStatusOnCreate keeps the status a node registers with: the kubelet
// creates its node with its capacity and addresses.
func keepStatusOnCreate(s *strategy.Strategy[*corev1.Node]) *strategy.Strategy[*corev1.Node] {
	s.StatusSubresource = false
	s.PrepareUpdate = func(_ context.Context, n, old *corev1.Node) { n.Status = old.Status }
	return s
}

// GetAttrs returns a node's labels and selectable fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil, nil, fmt.Errorf("not a node: %T", obj)
	}
	return labels.Set(n.Labels), fields.Set{
		"metadata.name":      n.Name,
		"spec.unschedulable": strconv.FormatBool(n.Spec.Unschedulable),
	}, nil
}

// NewStorage returns the storage of nodes and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	return strategy.NewWithStatus(opts, strategy.Of[corev1.Node, corev1.NodeList](corev1.Resource("nodes"), "node", keepStatusOnCreate(NewStrategy())).Short("no").Selectable(GetAttrs))
}
