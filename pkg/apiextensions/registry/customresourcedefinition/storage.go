// Package customresourcedefinition serves CustomResourceDefinitions and
// their status through the generic Store. Deleting a definition first
// gives it the cleanup finalizer, so that its objects go before it does.
package customresourcedefinition

import (
	"context"
	"fmt"
	"slices"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apiextensions/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Storage is the storage of definitions and their status.
type Storage struct {
	CustomResourceDefinition *REST
	Status                   *strategy.StatusREST
}

// REST serves definitions.
type REST struct{ *generic.Store }

var (
	_ rest.GracefulDeleter   = (*REST)(nil)
	_ rest.CollectionDeleter = (*REST)(nil)
)

// NewStorage returns the storage of definitions.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*apiextensionsv1.CustomResourceDefinition]{
		Resource:   apiextensionsv1.Resource("customresourcedefinitions"),
		Singular:   apiextensionsv1.Resource("customresourcedefinition"),
		NewObj:     func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
		NewList:    func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },
		ShortNames: []string{"crd", "crds"},
		Categories: []string{"api-extensions"},
		Strategy: &strategy.Strategy[*apiextensionsv1.CustomResourceDefinition]{
			StatusSubresource: true,
			Generation:        true,
			PrepareCreate: func(_ context.Context, crd *apiextensionsv1.CustomResourceDefinition) {
				crd.Status.StoredVersions = nil
				addStoredVersion(crd)
			},
			PrepareUpdate: func(_ context.Context, crd, old *apiextensionsv1.CustomResourceDefinition) {
				crd.Status.StoredVersions = slices.Clone(old.Status.StoredVersions)
				addStoredVersion(crd)
			},
			ValidateFunc:       validation.ValidateCustomResourceDefinition,
			ValidateUpdateFunc: validation.ValidateCustomResourceDefinitionUpdate,
		},
	})
	if err != nil {
		return nil, err
	}
	status := strategy.NewStatusREST(st.Store, &strategy.StatusStrategy[*apiextensionsv1.CustomResourceDefinition]{
		ValidateStatus: func(crd, _ *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
			return validation.ValidateStatusUpdate(crd)
		},
	})
	return &Storage{CustomResourceDefinition: &REST{Store: st.Store}, Status: status}, nil
}

// addStoredVersion records the storage version in status.storedVersions.
func addStoredVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if v.Storage && !slices.Contains(crd.Status.StoredVersions, v.Name) {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
		}
	}
	if crd.Status.StoredVersions == nil {
		crd.Status.StoredVersions = []string{}
	}
}

// Delete implements rest.GracefulDeleter: a definition not yet being
// deleted gets the cleanup finalizer first, then the delete marks it; the
// finalizer controller deletes its objects and removes the finalizer.
func (r *REST) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if opts == nil || !slices.Contains(opts.DryRun, metav1.DryRunAll) {
		if err := r.addCleanupFinalizer(ctx, name, opts); err != nil {
			return nil, false, err
		}
	}
	return r.Store.Delete(ctx, name, validate, opts)
}

// addCleanupFinalizer adds the finalizer to a definition that is not
// being deleted and lacks it.
func (r *REST) addCleanupFinalizer(ctx context.Context, name string, opts *metav1.DeleteOptions) error {
	var pre *metav1.Preconditions
	if opts != nil {
		pre = opts.Preconditions
	}
	_, _, err := r.Store.Update(ctx, name, finalizerUpdate{pre}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	// A missing definition is the delete's NotFound to report.
	return nil
}

// finalizerUpdate adds the cleanup finalizer, checking the delete's
// preconditions.
type finalizerUpdate struct{ pre *metav1.Preconditions }

func (f finalizerUpdate) Preconditions() *metav1.Preconditions { return f.pre }

func (f finalizerUpdate) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	crd, ok := old.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("unexpected object of type %T", old))
	}
	if p := f.pre; p != nil {
		if p.UID != nil && *p.UID != crd.UID {
			return nil, apierrors.NewConflict(apiextensionsv1.Resource("customresourcedefinitions"), crd.Name,
				fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s)", *p.UID, crd.UID))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != crd.ResourceVersion {
			return nil, apierrors.NewConflict(apiextensionsv1.Resource("customresourcedefinitions"), crd.Name,
				fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s)", *p.ResourceVersion, crd.ResourceVersion))
		}
	}
	out := crd.DeepCopy()
	if crd.DeletionTimestamp == nil && !slices.Contains(out.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		out.Finalizers = append(out.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	return out, nil
}

// DeleteCollection implements rest.CollectionDeleter through Delete, so
// that every definition gets its finalizer.
func (r *REST) DeleteCollection(ctx context.Context, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *rest.ListOptions) (runtime.Object, error) {
	var lo rest.ListOptions
	if listOpts != nil {
		lo = *listOpts
	}
	lo.Limit, lo.Continue = 0, ""
	list, err := r.Store.List(ctx, &lo)
	if err != nil {
		return nil, err
	}
	for _, crd := range list.(*apiextensionsv1.CustomResourceDefinitionList).Items {
		if _, _, err := r.Delete(ctx, crd.Name, validate, opts); err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return list, nil
}
