package resource

import (
	"context"
	"errors"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
)

// Client returns the dynamic client of the info's resource in its
// namespace.
func (r *Result) Client(info *Info) *dynamic.ResourceClient {
	return r.dyn.Resource(info.Mapping.Resource).Namespace(info.Namespace)
}

// ListOptions returns the selectors as list options.
func (r *Result) ListOptions() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: r.LabelSelector, FieldSelector: r.FieldSelector}
}

// Fetch reads the objects from the server: each named object, and the
// members of each collection. Errors (a name not found) are collected,
// joined, and returned beside the objects that were read.
func (r *Result) Fetch(ctx context.Context) ([]*Info, error) {
	var out []*Info
	var errs []error
	for _, info := range r.Infos {
		c := r.Client(info)
		if info.Name != "" {
			obj, err := c.Get(ctx, info.Name, metav1.GetOptions{})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, &Info{Mapping: info.Mapping, Namespace: info.Namespace, Name: info.Name, Object: obj, Source: info.Source})
			continue
		}
		list, err := c.List(ctx, r.ListOptions())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, item := range list.Items() {
			if item.GetKind() == "" {
				item.SetGroupVersionKind(info.Mapping.Kind)
			}
			out = append(out, &Info{Mapping: info.Mapping, Namespace: item.GetNamespace(), Name: item.GetName(), Object: item})
		}
	}
	return out, errors.Join(errs...)
}

// IgnoreNotFound returns nil for a NotFound error.
func IgnoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
