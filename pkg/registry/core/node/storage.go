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
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of nodes and their status.
type Storage struct {
	Node   *REST
	Status *strategy.StatusREST
}

// REST serves nodes.
type REST struct{ *generic.Store }

// NewStrategy returns the node strategy.
func NewStrategy() *strategy.Strategy[*corev1.Node] {
	return &strategy.Strategy[*corev1.Node]{
		StatusSubresource: true,
		ValidateFunc: func(_ context.Context, n *corev1.Node) field.ErrorList {
			return validation.ValidateNode(n)
		},
		ValidateUpdateFunc: func(_ context.Context, n, old *corev1.Node) field.ErrorList {
			return validation.ValidateNodeUpdate(n, old)
		},
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

// NewStorage returns the storage of nodes.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*corev1.Node]{
		Resource:   corev1.Resource("nodes"),
		Singular:   corev1.Resource("node"),
		NewObj:     func() runtime.Object { return &corev1.Node{} },
		NewList:    func() runtime.Object { return &corev1.NodeList{} },
		ShortNames: []string{"no"},
		GetAttrs:   GetAttrs,
		Strategy:   keepStatusOnCreate(NewStrategy()),
	})
	if err != nil {
		return nil, err
	}
	return &Storage{Node: &REST{Store: st.Store}, Status: st.Status}, nil
}
