// Package namespace serves namespaces with their status and finalize
// subresources; a delete marks a namespace Terminating until the namespace
// controller has emptied it and removed the "kubernetes" finalizer.
package namespace

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// Storage is the storage of namespaces and their subresources.
type Storage struct {
	Namespace *REST
	Status    *strategy.StatusREST
	Finalize  *strategy.StatusREST
}

// REST serves namespaces.
type REST struct {
	*generic.Store
	// DeleteCollection hides the Store's: as in Kubernetes, namespaces have
	// no deletecollection verb, since each delete must go through the
	// finalizers (Delete below), which a collection delete would skip.
	DeleteCollection struct{}
}

// NewStrategy returns the namespace strategy: the "kubernetes" finalizer
// on create; spec.finalizers and status change only through subresources.
func NewStrategy() *strategy.Strategy[*corev1.Namespace] {
	return &strategy.Strategy[*corev1.Namespace]{
		StatusSubresource: true,
		PrepareCreate: func(_ context.Context, ns *corev1.Namespace) {
			ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
			if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
				ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
			}
		},
		PrepareUpdate: func(_ context.Context, ns, old *corev1.Namespace) {
			ns.Spec.Finalizers = old.Spec.Finalizers
		},
		ValidateFunc:       validation.ValidateNamespace,
		ValidateUpdateFunc: validation.ValidateNamespaceUpdate,
		CanonicalizeFunc: func(ns *corev1.Namespace) {
			if ns.Labels == nil {
				ns.Labels = map[string]string{}
			}
			ns.Labels[corev1.LabelMetadataName] = ns.Name
		},
	}
}

// NewStatusStrategy returns the strategy of namespaces/status.
func NewStatusStrategy() *strategy.StatusStrategy[*corev1.Namespace] {
	return &strategy.StatusStrategy[*corev1.Namespace]{
		ValidateStatus: validation.ValidateNamespaceStatusUpdate,
	}
}

// finalizeStrategy lets /finalize change spec.finalizers only.
type finalizeStrategy struct {
	strategy.StatusStrategy[*corev1.Namespace]
}

// PrepareForUpdate implements rest.UpdateStrategy.
func (finalizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, ok1 := obj.(*corev1.Namespace)
	prev, ok2 := old.(*corev1.Namespace)
	if !ok1 || !ok2 {
		return
	}
	finalizers := ns.Spec.Finalizers
	*ns = *prev.DeepCopy()
	ns.Spec.Finalizers = finalizers
}

// NewStorage returns the storage of namespaces.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	store, err := strategy.NewStore(opts, strategy.Of[corev1.Namespace, corev1.NamespaceList](corev1.Resource("namespaces"), "namespace", NewStrategy()).Short("ns").ReturnsDeleted())
	if err != nil {
		return nil, err
	}
	fin := &finalizeStrategy{StatusStrategy: strategy.StatusStrategy[*corev1.Namespace]{
		ValidateStatus: validation.ValidateNamespaceFinalizeUpdate,
	}}
	return &Storage{
		Namespace: &REST{Store: store},
		Status:    strategy.NewStatusREST(store, NewStatusStrategy()),
		Finalize:  strategy.NewStatusREST(store, fin),
	}, nil
}

var _ rest.GracefulDeleter = (*REST)(nil)

// Delete implements rest.GracefulDeleter. A namespace with spec
// finalizers is marked Terminating and returned; one without is deleted.
func (r *REST) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.Store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != ns.UID {
			return nil, false, apierrors.NewConflict(r.DefaultQualifiedResource, name, fmt.Errorf("%s: UID in precondition: %v, UID in object meta: %v", preconditionFailed, *p.UID, ns.UID))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != ns.ResourceVersion {
			return nil, false, apierrors.NewConflict(r.DefaultQualifiedResource, name, fmt.Errorf("%s: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", preconditionFailed, *p.ResourceVersion, ns.ResourceVersion))
		}
	}
	if ns.DeletionTimestamp != nil && len(ns.Spec.Finalizers) > 0 {
		// Already terminating: the namespace controller finishes it.
		return ns, false, nil
	}
	if len(ns.Spec.Finalizers) == 0 {
		out, done, err := r.Store.Delete(ctx, name, validate, opts)
		if err == nil && !slices.Contains(opts.DryRun, metav1.DryRunAll) {
			r.awaitCache(ctx, name, out)
		}
		return out, done, err
	}
	if slices.Contains(opts.DryRun, metav1.DryRunAll) {
		now := metav1.NewTime(time.Now().Truncate(time.Second))
		ns.DeletionTimestamp = &now
		ns.Status.Phase = corev1.NamespaceTerminating
		return ns, false, nil
	}
	key := r.KeyPrefix() + "/" + name
	out, err := r.Storage.GuaranteedUpdate(ctx, key, &storage.Preconditions{UID: &ns.UID}, false, func(current runtime.Object) (runtime.Object, error) {
		cur := current.(*corev1.Namespace)
		if validate != nil {
			if err := validate(ctx, cur.DeepCopy()); err != nil {
				return nil, err
			}
		}
		if cur.DeletionTimestamp == nil {
			now := metav1.NewTime(time.Now().Truncate(time.Second))
			cur.DeletionTimestamp = &now
			var zero int64
			cur.DeletionGracePeriodSeconds = &zero
		}
		cur.Status.Phase = corev1.NamespaceTerminating
		return cur, nil
	}, nil)
	if err != nil {
		return nil, false, strategy.StorageError(err, r.DefaultQualifiedResource, name)
	}
	r.awaitCache(ctx, name, out)
	return out, false, nil
}

// awaitCache waits, at most the watch cache's wait timeout, until the
// cache holds the namespace at the revision of written: Lifecycle reads
// the cache, and a create in the namespace right after its delete is
// answered must be refused by this server. A cache that does not catch
// up in time is not the delete's failure.
func (r *REST) awaitCache(ctx context.Context, name string, written runtime.Object) {
	m, ok := written.(metav1.Object)
	if !ok || m.GetResourceVersion() == "" {
		return
	}
	_, _ = r.Storage.Get(ctx, r.KeyPrefix()+"/"+name, storage.GetOptions{ResourceVersion: m.GetResourceVersion(), IgnoreNotFound: true})
}

// Lifecycle returns the namespace check of namespaced creates: the
// namespace must exist and not be terminating. It reads the watch cache,
// and etcd only for a namespace the cache does not have (yet).
func (r *REST) Lifecycle() func(ctx context.Context, namespace string) error {
	return func(ctx context.Context, namespace string) error {
		key := r.KeyPrefix() + "/" + namespace
		obj, err := r.Storage.Get(ctx, key, storage.GetOptions{ResourceVersion: "0"})
		if storage.IsNotFound(err) {
			obj, err = r.Storage.Get(ctx, key, storage.GetOptions{})
		}
		if err != nil {
			if storage.IsNotFound(err) {
				return apierrors.NewNotFound(r.DefaultQualifiedResource, namespace)
			}
			return strategy.StorageError(err, r.DefaultQualifiedResource, namespace)
		}
		ns, ok := obj.(*corev1.Namespace)
		if !ok {
			if e, ok := obj.(*storage.EncodedObject); ok {
				ns, _ = e.DeepCopyObject().(*corev1.Namespace)
			}
		}
		if ns != nil && helper.NamespaceTerminating(ns) {
			return apierrors.NewForbidden(corev1.Resource("namespaces"), namespace,
				fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
		}
		return nil
	}
}

// preconditionFailed starts Kubernetes' message for a failed delete
// precondition of a namespace.
const preconditionFailed = "Precondition failed"
