package generic

import (
	"context"
	"errors"
	"fmt"
	"kubecore.io/kubecore/pkg/apirequest"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// errEmptiedFinalizers stops an update that removed the last finalizer of
// an object whose deletion is due: the Store deletes it instead.
var errEmptiedFinalizers = errors.New("emptied finalizers")

// Update implements rest.Updater: PUT and PATCH. objInfo computes the new
// object from the current one inside the storage's compare-and-swap loop.
func (s *Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if s.UpdateStrategy == nil {
		return nil, false, apierrors.NewMethodNotSupported(s.DefaultQualifiedResource, "update")
	}
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, false, err
	}
	var preconditions *storage.Preconditions
	if p := objInfo.Preconditions(); p != nil {
		preconditions = &storage.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}
	}
	dryRun := opts != nil && isDryRun(opts.DryRun)
	var fieldManager string
	if opts != nil {
		fieldManager = opts.FieldManager
	}
	recorded := recordsManagedFields(objInfo)

	var (
		creating  bool
		toDelete  runtime.Object
		oldForDel metav1.Object
	)
	tryUpdate := func(existing runtime.Object) (runtime.Object, error) {
		creating, toDelete, oldForDel = false, nil, nil
		if existing == nil {
			if !s.UpdateStrategy.AllowCreateOnUpdate() && !forceAllowCreate {
				return nil, apierrors.NewNotFound(s.DefaultQualifiedResource, name)
			}
			obj, err := objInfo.UpdatedObject(ctx, nil)
			if err != nil {
				return nil, err
			}
			m, err := objectMeta(obj)
			if err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			if err := checkName(m, name); err != nil {
				return nil, err
			}
			m.SetResourceVersion("")
			if !recorded {
				obj = s.recordUpdate(ctx, nil, obj, fieldManager)
			}
			creating = true
			attrs := s.attributes(ctx, rest.OperationCreate, name, obj, nil, dryRun, createOptions(opts))
			if err := s.admitCreate(ctx, obj, m, attrs, createValidation); err != nil {
				return nil, err
			}
			return obj, nil
		}
		obj, err := objInfo.UpdatedObject(ctx, existing)
		if err != nil {
			return nil, err
		}
		if !recorded {
			obj = s.recordUpdate(ctx, existing, obj, fieldManager)
		}
		attrs := s.attributes(ctx, rest.OperationUpdate, name, obj, existing, dryRun, opts)
		if err := rest.Admit(ctx, s.Admission, attrs); err != nil {
			return nil, err
		}
		m, err := objectMeta(obj)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		old, err := objectMeta(existing)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if err := checkName(m, name); err != nil {
			return nil, err
		}
		switch {
		case m.GetResourceVersion() == "" && s.UpdateStrategy.AllowUnconditionalUpdate():
			m.SetResourceVersion(old.GetResourceVersion())
		case m.GetResourceVersion() == "":
			kind := schema.GroupKind{Group: s.DefaultQualifiedResource.Group, Kind: s.DefaultQualifiedResource.Resource}
			return nil, apierrors.NewInvalid(kind, name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update"),
			})
		case m.GetResourceVersion() != old.GetResourceVersion():
			return nil, apierrors.NewConflict(s.DefaultQualifiedResource, name, errors.New(apierrors.OptimisticLockErrorMsg))
		}
		if err := s.beforeUpdate(ctx, obj, existing, m, old); err != nil {
			return nil, err
		}
		if updateValidation != nil {
			if err := updateValidation(ctx, obj.DeepCopyObject(), existing.DeepCopyObject()); err != nil {
				return nil, err
			}
		}
		if err := rest.Validate(ctx, s.Admission, attrs); err != nil {
			return nil, err
		}
		if deleteDuringUpdate(m, old) {
			toDelete, oldForDel = obj, old
			return nil, errEmptiedFinalizers
		}
		return obj, nil
	}

	var out runtime.Object
	if dryRun {
		out, err = s.dryRunUpdate(ctx, key, preconditions, true, tryUpdate)
	} else {
		out, err = s.Storage.GuaranteedUpdate(ctx, key, preconditions, true, tryUpdate, nil)
	}
	switch {
	case errors.Is(err, errEmptiedFinalizers):
		return s.deleteWithoutFinalizers(ctx, key, name, toDelete, oldForDel, dryRun)
	case err != nil && creating:
		return nil, false, interpretStorageError(err, verbCreate, s.DefaultQualifiedResource, name)
	case err != nil:
		return nil, false, interpretStorageError(err, verbUpdate, s.DefaultQualifiedResource, name)
	}
	if !dryRun {
		if creating && s.AfterCreate != nil {
			s.AfterCreate(ctx, out)
		} else if !creating && s.AfterUpdate != nil {
			s.AfterUpdate(ctx, out)
		}
	}
	return out, creating, nil
}

// createOptions are the options of a create an update makes.
func createOptions(opts *metav1.UpdateOptions) runtime.Object {
	if opts == nil {
		return nil
	}
	return &metav1.CreateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation}
}

// checkName fills an empty name from the URL and rejects another one.
func checkName(m metav1.Object, name string) error {
	switch m.GetName() {
	case name:
	case "":
		m.SetName(name)
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name))
	}
	return nil
}

// beforeUpdate keeps the metadata the server owns, runs the strategy and
// validates the result against the stored object.
func (s *Store) beforeUpdate(ctx context.Context, obj, existing runtime.Object, m, old metav1.Object) error {
	if err := s.ensureNamespace(ctx, m); err != nil {
		return err
	}
	// Clients do not set the generation: the strategy bumps it.
	m.SetGeneration(old.GetGeneration())
	s.UpdateStrategy.PrepareForUpdate(ctx, obj, existing)
	if m.GetUID() == "" {
		m.SetUID(old.GetUID())
	}
	if created := old.GetCreationTimestamp(); !created.IsZero() {
		m.SetCreationTimestamp(created)
	}
	// An update never removes or moves a deletion that has started.
	if t := old.GetDeletionTimestamp(); t != nil {
		m.SetDeletionTimestamp(t)
	}
	if g := old.GetDeletionGracePeriodSeconds(); g != nil && m.GetDeletionGracePeriodSeconds() == nil {
		m.SetDeletionGracePeriodSeconds(g)
	}
	errs := validation.ValidateObjectMetaUpdate(unstructured.ObjectMetaOf(m), unstructured.ObjectMetaOf(old), field.NewPath("metadata"))
	errs = appendNew(errs, s.UpdateStrategy.ValidateUpdate(ctx, obj, existing))
	if len(errs) > 0 {
		return apierrors.NewInvalid(s.qualifiedKind(obj), m.GetName(), errs)
	}
	s.UpdateStrategy.Canonicalize(obj)
	for _, w := range s.UpdateStrategy.WarningsOnUpdate(ctx, obj, existing) {
		apirequest.AddWarning(ctx, w)
	}
	return nil
}

// appendNew appends the errors of more that errs does not hold yet: a
// strategy that validates the metadata update too does not double them.
func appendNew(errs, more field.ErrorList) field.ErrorList {
	for _, e := range more {
		dup := false
		for _, have := range errs {
			if have.Type == e.Type && have.Field == e.Field && have.Detail == e.Detail {
				dup = true
				break
			}
		}
		if !dup {
			errs = append(errs, e)
		}
	}
	return errs
}

// deleteDuringUpdate reports an update that removed the last finalizer of
// an object marked for deletion whose grace period is over.
func deleteDuringUpdate(m, old metav1.Object) bool {
	g := old.GetDeletionGracePeriodSeconds()
	return len(m.GetFinalizers()) == 0 && len(old.GetFinalizers()) > 0 &&
		old.GetDeletionTimestamp() != nil && g != nil && *g == 0
}

// deleteWithoutFinalizers deletes the object an update emptied of
// finalizers, provided it did not change since; it returns the object of
// the update, as a PUT answers with an object.
func (s *Store) deleteWithoutFinalizers(ctx context.Context, key, name string, obj runtime.Object, old metav1.Object, dryRun bool) (runtime.Object, bool, error) {
	if dryRun {
		return obj, false, nil
	}
	uid, rv := old.GetUID(), old.GetResourceVersion()
	deleted, err := s.Storage.Delete(ctx, key, &storage.Preconditions{UID: &uid, ResourceVersion: &rv}, nil, nil)
	switch {
	case storage.IsNotFound(err):
		// Another update removed the finalizers and deleted it first.
		return obj, false, nil
	case err != nil:
		return nil, false, interpretStorageError(err, verbDelete, s.DefaultQualifiedResource, name)
	}
	if s.AfterDelete != nil {
		s.AfterDelete(ctx, deleted)
	}
	return obj, false, nil
}

// dryRunUpdate computes what GuaranteedUpdate would store, without
// writing: storage.Interface has no dry-run mode.
func (s *Store) dryRunUpdate(ctx context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc) (runtime.Object, error) {
	current, err := s.Storage.Get(ctx, key, storage.GetOptions{})
	switch {
	case storage.IsNotFound(err) && ignoreNotFound:
		current = nil
	case err != nil:
		return nil, err
	default:
		current = current.DeepCopyObject()
	}
	if err := preconditions.Check(key, current); err != nil {
		return nil, err
	}
	return tryUpdate(current)
}
