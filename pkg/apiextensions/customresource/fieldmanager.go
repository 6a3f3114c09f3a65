package customresource

import (
	"context"
	"fmt"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"kubecore.io/kubecore/pkg/fieldmanager"
)

// newFieldManager is the FieldManager of one served version of a custom
// resource, from the version's structural schema; nil when the Stores
// record no managedFields. It is rebuilt with the Resource whenever the
// definition changes.
func newFieldManager(builder *fieldmanager.Builder, kind schema.GroupVersionKind, props *apiextensionsv1.JSONSchemaProps, status bool) (*fieldmanager.FieldManager, error) {
	if builder == nil || builder.TypeConverter == nil {
		return nil, nil
	}
	tc, err := fieldmanager.NewCRDTypeConverter(builder.TypeConverter, kind, props)
	if err != nil {
		return nil, fmt.Errorf("schema of %s for server-side apply: %w", kind, err)
	}
	var reset *fieldpath.Set
	if status {
		reset = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	return fieldmanager.New(fieldmanager.Options{Kind: kind, TypeConverter: tc, ResetFields: reset})
}

// GetResetFields implements rest.ResetFieldsStrategy: the main resource
// keeps the status when /status serves it.
func (s *strategy) GetResetFields() *fieldpath.Set {
	if !s.status {
		return nil
	}
	return fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
}

// GetResetFields implements rest.ResetFieldsStrategy: /status keeps
// everything but the status.
func (s statusStrategy) GetResetFields() *fieldpath.Set {
	set := fieldpath.NewSet(
		fieldpath.MakePathOrDie("metadata", "labels"),
		fieldpath.MakePathOrDie("metadata", "annotations"),
		fieldpath.MakePathOrDie("metadata", "finalizers"),
		fieldpath.MakePathOrDie("metadata", "ownerReferences"),
	)
	if s.schema != nil {
		for name := range s.schema.Properties {
			switch name {
			case "apiVersion", "kind", "metadata", "status":
			default:
				set.Insert(fieldpath.MakePathOrDie(name))
			}
		}
	}
	return set
}

// Apply implements rest.Applier. While the definition is terminating an
// apply may change objects but not create them.
func (r *REST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if r.resource.terminating.Load() {
		if _, err := r.Store.Get(ctx, name, &metav1.GetOptions{}); apierrors.IsNotFound(err) {
			err := apierrors.NewMethodNotSupported(r.DefaultQualifiedResource, "create")
			err.ErrStatus.Message = "create not allowed while custom resource definition is terminating"
			return nil, false, err
		}
	}
	return r.Store.Apply(ctx, name, cfg, force, opts)
}
