package generic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

var (
	// errDeleteNow ends the marking update of a delete that needs no mark.
	errDeleteNow = errors.New("delete now")
	// errAlreadyDeleting ends it when a graceful deletion is already pending.
	errAlreadyDeleting = errors.New("already deleting")
)

// validateDeleteOptions checks the options a delete acts on.
func validateDeleteOptions(o *metav1.DeleteOptions) error {
	var errs field.ErrorList
	if o.OrphanDependents != nil && o.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(field.NewPath("propagationPolicy"), *o.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := o.PropagationPolicy; p != nil {
		supported := []metav1.DeletionPropagation{metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan}
		if !slices.Contains(supported, *p) {
			errs = append(errs, field.NotSupported(field.NewPath("propagationPolicy"), *p, supported))
		}
	}
	for i, d := range o.DryRun {
		if d != metav1.DryRunAll {
			errs = append(errs, field.NotSupported(field.NewPath("dryRun").Index(i), d, []string{metav1.DryRunAll}))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "DeleteOptions"}, "", errs)
	}
	return nil
}

// copyDeleteOptions copies the options the delete path modifies.
func copyDeleteOptions(o *metav1.DeleteOptions) *metav1.DeleteOptions {
	if o == nil {
		// No options at all is the legacy "delete now".
		var zero int64
		return &metav1.DeleteOptions{GracePeriodSeconds: &zero}
	}
	c := *o
	if o.GracePeriodSeconds != nil {
		g := *o.GracePeriodSeconds
		c.GracePeriodSeconds = &g
	}
	return &c
}

// Delete implements rest.GracefulDeleter. It returns the deleted object (or
// a Success Status, see ReturnDeletedObject) and true when the object is
// gone, or the object marked for deletion and false when a grace period or
// finalizers hold it.
func (s *Store) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if s.DeleteStrategy == nil {
		return nil, false, apierrors.NewMethodNotSupported(s.DefaultQualifiedResource, "delete")
	}
	opts := copyDeleteOptions(options)
	if err := validateDeleteOptions(opts); err != nil {
		return nil, false, err
	}
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, false, err
	}
	existing, err := s.Storage.Get(ctx, key, storage.GetOptions{})
	if err != nil {
		return nil, false, interpretStorageError(err, verbDelete, s.DefaultQualifiedResource, name)
	}
	existing = owned(existing)
	var preconditions storage.Preconditions
	if p := opts.Preconditions; p != nil {
		preconditions.UID, preconditions.ResourceVersion = p.UID, p.ResourceVersion
	}
	dryRun := isDryRun(opts.DryRun)
	deleteValidation = s.admitDelete(name, opts, deleteValidation)

	graceful, pending, err := s.beforeDelete(ctx, existing, opts)
	if err != nil {
		return nil, false, err
	}
	if pending {
		// Finalizers cannot change through a delete once one is pending.
		return s.finalizeDelete(ctx, existing, false), false, nil
	}
	em, err := objectMeta(existing)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	changeFinalizers, _ := s.gcFinalizers(ctx, em, opts)
	if graceful || len(em.GetFinalizers()) > 0 || changeFinalizers {
		out, deleteNow, err := s.markForDeletion(ctx, key, name, options, &preconditions, deleteValidation, dryRun)
		if err != nil || !deleteNow {
			return out, false, err
		}
		if dryRun && out != nil {
			return s.finalizeDelete(ctx, out, false), true, nil
		}
		if out != nil && preconditions.ResourceVersion != nil {
			// The mark changed the object the caller pinned.
			rv := mustMeta(out).GetResourceVersion()
			preconditions.ResourceVersion = &rv
		}
	}

	validate := func(ctx context.Context, current runtime.Object) error {
		if deleteValidation == nil {
			return nil
		}
		return deleteValidation(ctx, current)
	}
	if dryRun {
		current, err := s.dryRunUpdate(ctx, key, &preconditions, false, func(current runtime.Object) (runtime.Object, error) {
			return current, validate(ctx, current)
		})
		if err != nil {
			return nil, false, interpretStorageError(err, verbDelete, s.DefaultQualifiedResource, name)
		}
		return s.finalizeDelete(ctx, current, false), true, nil
	}
	deleted, err := s.Storage.Delete(ctx, key, &preconditions, validate, nil)
	if err != nil {
		if storage.IsNotFound(err) && graceful {
			// A graceless delete raced with another one that won.
			return s.finalizeDelete(ctx, existing, true), true, nil
		}
		return nil, false, interpretStorageError(err, verbDelete, s.DefaultQualifiedResource, name)
	}
	return s.finalizeDelete(ctx, deleted, true), true, nil
}

// admitDelete returns validate (nil for none) followed by both phases of
// admission of the delete of current, the stored object.
func (s *Store) admitDelete(name string, opts *metav1.DeleteOptions, validate rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	if s.Admission == nil {
		return validate
	}
	return func(ctx context.Context, current runtime.Object) error {
		if validate != nil {
			if err := validate(ctx, current); err != nil {
				return err
			}
		}
		attrs := s.attributes(ctx, rest.OperationDelete, name, nil, current, isDryRun(opts.DryRun), opts)
		if err := rest.Admit(ctx, s.Admission, attrs); err != nil {
			return err
		}
		return rest.Validate(ctx, s.Admission, attrs)
	}
}

// mustMeta is objectMeta for objects that passed it before.
func mustMeta(obj runtime.Object) metav1.Object {
	m, err := objectMeta(obj)
	if err != nil {
		return &metav1.ObjectMeta{}
	}
	return m
}

// markForDeletion records a graceful deletion or a deletion held by
// finalizers on the stored object. It returns the marked object and
// whether the object is to be deleted right away.
func (s *Store) markForDeletion(ctx context.Context, key, name string, options *metav1.DeleteOptions, preconditions *storage.Preconditions, deleteValidation rest.ValidateObjectFunc, dryRun bool) (runtime.Object, bool, error) {
	var graceful, pendingFinalizers, zeroGrace bool
	var existing runtime.Object
	tryUpdate := func(current runtime.Object) (runtime.Object, error) {
		if deleteValidation != nil {
			if err := deleteValidation(ctx, current.DeepCopyObject()); err != nil {
				return nil, err
			}
		}
		existing = current.DeepCopyObject()
		opts := copyDeleteOptions(options)
		var pending bool
		var err error
		graceful, pending, err = s.beforeDelete(ctx, current, opts)
		if err != nil {
			return nil, err
		}
		if pending {
			return nil, errAlreadyDeleting
		}
		m, err := objectMeta(current)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if change, fins := s.gcFinalizers(ctx, m, opts); change {
			m.SetFinalizers(fins)
		}
		pendingFinalizers = len(m.GetFinalizers()) > 0
		g := m.GetDeletionGracePeriodSeconds()
		zeroGrace = g != nil && *g == 0
		if !graceful {
			if !pendingFinalizers {
				return nil, errDeleteNow
			}
			s.markAsDeleting(m)
		}
		return current, nil
	}
	var out runtime.Object
	var err error
	if dryRun {
		out, err = s.dryRunUpdate(ctx, key, preconditions, false, tryUpdate)
	} else {
		out, err = s.Storage.GuaranteedUpdate(ctx, key, preconditions, false, tryUpdate, nil)
	}
	switch {
	case err == nil:
		if pendingFinalizers || (graceful && !zeroGrace) {
			return out, false, nil
		}
		// A graceful delete with no grace left: delete it now.
		return out, true, nil
	case errors.Is(err, errDeleteNow):
		return nil, true, nil
	case errors.Is(err, errAlreadyDeleting):
		return s.finalizeDelete(ctx, existing, false), false, nil
	}
	return nil, false, interpretStorageError(err, verbDelete, s.DefaultQualifiedResource, name)
}

// markAsDeleting sets the deletion timestamp of an object that finalizers
// hold, with a zero grace period.
func (s *Store) markAsDeleting(m metav1.Object) {
	now := s.now().Truncate(time.Second)
	dt := m.GetDeletionTimestamp()
	if dt == nil && m.GetGeneration() > 0 {
		m.SetGeneration(m.GetGeneration() + 1)
	}
	if dt == nil || dt.After(now) {
		t := metav1.NewTime(now)
		m.SetDeletionTimestamp(&t)
	}
	var zero int64
	m.SetDeletionGracePeriodSeconds(&zero)
}

// beforeDelete checks the preconditions early and applies the graceful
// deletion of the strategy to obj. graceful says obj now carries a
// deletion timestamp to store; pending says a graceful deletion at least as
// short is already under way, so there is nothing to do.
func (s *Store) beforeDelete(ctx context.Context, obj runtime.Object, opts *metav1.DeleteOptions) (graceful, pending bool, err error) {
	m, err := objectMeta(obj)
	if err != nil {
		return false, false, apierrors.NewInternalError(err)
	}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != m.GetUID() {
			return false, false, apierrors.NewConflict(s.DefaultQualifiedResource, m.GetName(), fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, m.GetUID()))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
			return false, false, apierrors.NewConflict(s.DefaultQualifiedResource, m.GetName(), fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, m.GetResourceVersion()))
		}
	}
	// Negative grace periods count as one second.
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		opts.GracePeriodSeconds = &one
	}
	if g := m.GetDeletionGracePeriodSeconds(); g != nil && *g < 0 {
		one := int64(1)
		m.SetDeletionGracePeriodSeconds(&one)
	}
	strategy, ok := s.DeleteStrategy.(rest.GracefulDeleteStrategy)
	if !ok {
		return false, false, nil
	}
	if dt := m.GetDeletionTimestamp(); dt != nil {
		current := m.GetDeletionGracePeriodSeconds()
		if current == nil || *current == 0 {
			// Marked with no grace left (by finalizers, or a delete that
			// failed after its mark): delete it now.
			return false, false, nil
		}
		if opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds >= *current {
			return false, true, nil
		}
		// Only a shorter grace period is taken: move the deadline closer.
		period := *opts.GracePeriodSeconds
		deadline := dt.Add(time.Duration(period-*current) * time.Second)
		t := metav1.NewTime(deadline)
		m.SetDeletionTimestamp(&t)
		m.SetDeletionGracePeriodSeconds(&period)
		return true, false, nil
	}
	if !strategy.CheckGracefulDelete(ctx, obj, opts) {
		return false, false, nil
	}
	if opts.GracePeriodSeconds == nil {
		return false, false, apierrors.NewInternalError(errors.New("options.GracePeriodSeconds should not be nil"))
	}
	period := *opts.GracePeriodSeconds
	t := metav1.NewTime(s.now().Truncate(time.Second).Add(time.Duration(period) * time.Second))
	m.SetDeletionTimestamp(&t)
	m.SetDeletionGracePeriodSeconds(&period)
	if m.GetGeneration() > 0 {
		m.SetGeneration(m.GetGeneration() + 1)
	}
	return true, false, nil
}

// gcFinalizers returns the finalizers the propagation policy asks for, and
// whether they differ from the object's.
func (s *Store) gcFinalizers(ctx context.Context, m metav1.Object, opts *metav1.DeleteOptions) (bool, []string) {
	policy := s.propagation(ctx, m, opts)
	var fins []string
	current := m.GetFinalizers()
	for _, f := range current {
		if f != FinalizerOrphanDependents && f != FinalizerDeleteDependents {
			fins = append(fins, f)
		}
	}
	switch policy {
	case metav1.DeletePropagationOrphan:
		fins = append(fins, FinalizerOrphanDependents)
	case metav1.DeletePropagationForeground:
		fins = append(fins, FinalizerDeleteDependents)
	}
	if sameSet(fins, current) {
		return false, current
	}
	return true, fins
}

// propagation decides the propagation of a delete: the options first, then
// a garbage-collection finalizer already on the object, then the
// strategy's default, then Background.
func (s *Store) propagation(ctx context.Context, m metav1.Object, opts *metav1.DeleteOptions) metav1.DeletionPropagation {
	if opts.OrphanDependents != nil {
		if *opts.OrphanDependents {
			return metav1.DeletePropagationOrphan
		}
		return metav1.DeletePropagationBackground
	}
	if opts.PropagationPolicy != nil {
		return *opts.PropagationPolicy
	}
	for _, f := range m.GetFinalizers() {
		switch f {
		case FinalizerOrphanDependents:
			return metav1.DeletePropagationOrphan
		case FinalizerDeleteDependents:
			return metav1.DeletePropagationForeground
		}
	}
	if gc, ok := s.DeleteStrategy.(rest.GarbageCollectionDeleteStrategy); ok {
		if p := gc.DefaultGarbageCollectionPolicy(ctx); p == metav1.DeletePropagationOrphan {
			return p
		}
	}
	return metav1.DeletePropagationBackground
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// finalizeDelete runs AfterDelete when the object is gone and answers with
// the object or with a Success Status naming it.
func (s *Store) finalizeDelete(ctx context.Context, obj runtime.Object, gone bool) runtime.Object {
	if gone && s.AfterDelete != nil {
		s.AfterDelete(ctx, obj)
	}
	if s.ReturnDeletedObject {
		return obj
	}
	m := mustMeta(obj)
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name:  m.GetName(),
			Group: s.DefaultQualifiedResource.Group,
			Kind:  s.DefaultQualifiedResource.Resource,
			UID:   m.GetUID(),
		},
	}
}

// DeleteCollection implements rest.CollectionDeleter: it lists the objects
// the selectors match and deletes each, a few at a time, and returns the
// list of the objects it deleted.
func (s *Store) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOpts *rest.ListOptions) (runtime.Object, error) {
	var lo rest.ListOptions
	if listOpts != nil {
		lo = *listOpts
	}
	// Every match is deleted, not one page of them.
	lo.Limit, lo.Continue = 0, ""
	list, err := s.List(ctx, &lo)
	if err != nil {
		return nil, err
	}
	items, err := listItems(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	workers := s.DeleteCollectionWorkers
	if workers <= 0 {
		workers = 4
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	sem := make(chan struct{}, workers)
	for _, item := range items {
		m, err := objectMeta(item)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		ictx := ctx
		if s.NamespaceScoped() {
			ictx = apirequest.WithNamespace(ctx, m.GetNamespace())
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_, _, err := s.Delete(ictx, m.GetName(), deleteValidation, options)
			if err != nil && !apierrors.IsNotFound(err) {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return list, nil
}
