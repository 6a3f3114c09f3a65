package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"
)

// PatchFunc applies a JSON merge patch (types.MergePatchType) to the named
// object, e.g. a typed client's Patch with that patch type.
type PatchFunc func(ctx context.Context, namespace, name string, mergePatch []byte) error

// RefManager claims objects for a controller (owner): it adopts orphans that
// match the owner's selector and releases the objects it controls that no
// longer match. The ownerReference helpers of meta/v1 (GetControllerOf,
// IsControlledBy, NewControllerRef) read and make the references.
type RefManager[T metav1.Object] struct {
	owner    metav1.Object
	ownerGVK schema.GroupVersionKind
	selector labels.Selector
	patch    PatchFunc
	canAdopt func(ctx context.Context) error

	adoptChecked bool
	adoptErr     error
}

// NewRefManager returns a RefManager for one sync of owner, of kind ownerGVK.
// canAdopt is called once, before the first adoption, and must recheck the
// owner with an uncached GET (see RecheckDeletionTimestamp); a non-nil error
// forbids adoption. Make a new RefManager for every sync.
func NewRefManager[T metav1.Object](owner metav1.Object, ownerGVK schema.GroupVersionKind, selector labels.Selector, patch PatchFunc, canAdopt func(ctx context.Context) error) *RefManager[T] {
	return &RefManager[T]{owner: owner, ownerGVK: ownerGVK, selector: selector, patch: patch, canAdopt: canAdopt}
}

// Claim returns the objects of objs the owner controls once Claim is done:
// those it already controls and that match, and orphans it adopted. Objects
// that match a filter are kept; filters narrow matching (e.g. only active pods
// may be adopted). Errors of individual objects are joined; the objects
// claimed are returned even then.
func (m *RefManager[T]) Claim(ctx context.Context, objs []T, filters ...func(T) bool) ([]T, error) {
	var claimed []T
	var errs []error
	for _, obj := range objs {
		ok, err := m.claimOne(ctx, obj, filters)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			claimed = append(claimed, obj)
		}
	}
	return claimed, errors.Join(errs...)
}

func (m *RefManager[T]) matches(obj T, filters []func(T) bool) bool {
	if !m.selector.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	for _, f := range filters {
		if !f(obj) {
			return false
		}
	}
	return true
}

func (m *RefManager[T]) claimOne(ctx context.Context, obj T, filters []func(T) bool) (bool, error) {
	ref := metav1.GetControllerOf(obj)
	if ref != nil {
		if ref.UID != m.owner.GetUID() {
			return false, nil // another controller's
		}
		if m.matches(obj, filters) {
			return true, nil
		}
		if m.owner.GetDeletionTimestamp() != nil {
			return false, nil // the garbage collector releases it
		}
		if err := m.release(ctx, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, nil
	}
	// An orphan.
	if m.owner.GetDeletionTimestamp() != nil || obj.GetDeletionTimestamp() != nil || !m.matches(obj, filters) {
		return false, nil
	}
	if ns := m.owner.GetNamespace(); ns != "" && ns != obj.GetNamespace() {
		return false, nil
	}
	if err := m.adopt(ctx, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// ownerPatch is the merge patch that sets obj's ownerReferences to refs,
// guarded by obj's uid and resourceVersion so that a recreated or changed
// object is not patched from a stale copy.
func ownerPatch(obj metav1.Object, refs []metav1.OwnerReference) ([]byte, error) {
	if refs == nil {
		refs = []metav1.OwnerReference{}
	}
	type meta struct {
		UID             types.UID               `json:"uid"`
		ResourceVersion string                  `json:"resourceVersion,omitempty"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	}
	return json.Marshal(struct {
		Metadata meta `json:"metadata"`
	}{meta{UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion(), OwnerReferences: refs}})
}

func (m *RefManager[T]) adopt(ctx context.Context, obj T) error {
	if !m.adoptChecked {
		m.adoptChecked = true
		if m.canAdopt != nil {
			m.adoptErr = m.canAdopt(ctx)
		}
	}
	if m.adoptErr != nil {
		return fmt.Errorf("can't adopt %s/%s: %w", obj.GetNamespace(), obj.GetName(), m.adoptErr)
	}
	refs := append([]metav1.OwnerReference(nil), obj.GetOwnerReferences()...)
	refs = append(refs, *metav1.NewControllerRef(m.owner, m.ownerGVK))
	patch, err := ownerPatch(obj, refs)
	if err != nil {
		return fmt.Errorf("adopt %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	if err := m.patch(ctx, obj.GetNamespace(), obj.GetName(), patch); err != nil {
		return fmt.Errorf("adopt %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

func (m *RefManager[T]) release(ctx context.Context, obj T) error {
	var refs []metav1.OwnerReference
	for _, r := range obj.GetOwnerReferences() {
		if r.UID != m.owner.GetUID() {
			refs = append(refs, r)
		}
	}
	patch, err := ownerPatch(obj, refs)
	if err != nil {
		return fmt.Errorf("release %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	if err := m.patch(ctx, obj.GetNamespace(), obj.GetName(), patch); err != nil {
		return fmt.Errorf("release %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// RecheckDeletionTimestamp returns a canAdopt function for NewRefManager: it
// GETs the owner afresh (uncached) and forbids adoption if the owner was
// replaced by another object of the same name or is being deleted.
func RecheckDeletionTimestamp(owner metav1.Object, get func(ctx context.Context) (metav1.Object, error)) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		fresh, err := get(ctx)
		if err != nil {
			return fmt.Errorf("recheck owner %s/%s: %w", owner.GetNamespace(), owner.GetName(), err)
		}
		if fresh.GetUID() != owner.GetUID() {
			return fmt.Errorf("original %s/%s is gone: got uid %v, wanted %v", owner.GetNamespace(), owner.GetName(), fresh.GetUID(), owner.GetUID())
		}
		if ts := fresh.GetDeletionTimestamp(); ts != nil {
			return fmt.Errorf("%s/%s has just been deleted at %v", owner.GetNamespace(), owner.GetName(), ts)
		}
		return nil
	}
}

// ClaimFrom is Claim over every object of the owner's namespace in lister.
func ClaimFrom[T cache.Object](ctx context.Context, m *RefManager[T], lister cache.Lister[T], filters ...func(T) bool) ([]T, error) {
	all, err := lister.Namespaced(m.owner.GetNamespace()).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	return m.Claim(ctx, all, filters...)
}
