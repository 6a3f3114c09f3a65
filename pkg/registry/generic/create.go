package generic

import (
	"context"
	"fmt"
	"slices"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

func (s *Store) generateName(base string) string {
	if s.NameGenerator != nil {
		return s.NameGenerator(base)
	}
	return rest.SimpleNameGenerator(base)
}

// generateNameAttempts bounds the retries of a generated name that
// collides with an existing object.
const generateNameAttempts = 8

// isDryRun reports dryRun=All.
func isDryRun(dryRun []string) bool { return slices.Contains(dryRun, metav1.DryRunAll) }

// ensureNamespace makes the object's namespace agree with the request's:
// an empty one takes the request's, a cluster-scoped object has none.
func (s *Store) ensureNamespace(ctx context.Context, m metav1.Object) error {
	if !s.NamespaceScoped() {
		m.SetNamespace("")
		return nil
	}
	reqNS := apirequest.NamespaceValue(ctx)
	switch {
	case m.GetNamespace() == reqNS:
	case m.GetNamespace() == "":
		m.SetNamespace(reqNS)
	case reqNS == "":
		// The key function will ask for the namespace parameter.
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// beforeCreate fills the metadata the server owns and runs the strategy:
// prepare, validate, canonicalize. obj is modified in place.
func (s *Store) beforeCreate(ctx context.Context, obj runtime.Object, m metav1.Object) error {
	if s.CreateStrategy == nil {
		return apierrors.NewMethodNotSupported(s.DefaultQualifiedResource, "create")
	}
	if err := s.ensureNamespace(ctx, m); err != nil {
		return err
	}
	if s.NamespaceScoped() && s.NamespaceLifecycle != nil && m.GetNamespace() != "" {
		if err := s.NamespaceLifecycle(ctx, m.GetNamespace()); err != nil {
			return err
		}
	}
	m.SetUID(newUID())
	m.SetCreationTimestamp(metav1.NewTime(s.now().Truncate(1e9)))
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetGeneration(0)
	m.SetSelfLink("")
	if m.GetGenerateName() != "" && m.GetName() == "" {
		m.SetName(s.generateName(m.GetGenerateName()))
	}
	s.CreateStrategy.PrepareForCreate(ctx, obj)
	if errs := s.CreateStrategy.Validate(ctx, obj); len(errs) > 0 {
		return apierrors.NewInvalid(s.qualifiedKind(obj), m.GetName(), errs)
	}
	// The strategy's messages come first; the generic metadata checks
	// catch what a strategy does not look at.
	nameFn := func(name string, prefix bool) []string {
		if prefix {
			return nil
		}
		return validatePathSegmentName(name)
	}
	if errs := validation.ValidateObjectMeta(unstructured.ObjectMetaOf(m), s.NamespaceScoped(), nameFn, field.NewPath("metadata")); len(errs) > 0 {
		return apierrors.NewInvalid(s.qualifiedKind(obj), m.GetName(), errs)
	}
	s.CreateStrategy.Canonicalize(obj)
	for _, w := range s.CreateStrategy.WarningsOnCreate(ctx, obj) {
		apirequest.AddWarning(ctx, w)
	}
	return nil
}

// admitCreate runs the mutating admission of a create, the strategy
// (beforeCreate), createValidation and the validating admission.
func (s *Store) admitCreate(ctx context.Context, obj runtime.Object, m metav1.Object, attrs *rest.Attributes, createValidation rest.ValidateObjectFunc) error {
	if err := rest.Admit(ctx, s.Admission, attrs); err != nil {
		return err
	}
	if err := s.beforeCreate(ctx, obj, m); err != nil {
		return err
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return err
		}
	}
	attrs.Name = m.GetName()
	return rest.Validate(ctx, s.Admission, attrs)
}

// Create implements rest.Creater.
func (s *Store) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if m.GetResourceVersion() != "" {
		return nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	generated := m.GetGenerateName() != "" && m.GetName() == ""
	dryRun := opts != nil && isDryRun(opts.DryRun)
	var fieldManager string
	if opts != nil {
		fieldManager = opts.FieldManager
	}
	obj = s.recordUpdate(ctx, nil, obj, fieldManager)
	attrs := s.attributes(ctx, rest.OperationCreate, m.GetName(), obj, nil, dryRun, opts)
	if err := s.admitCreate(ctx, obj, m, attrs, createValidation); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		key, err := s.key(ctx, m.GetName())
		if err != nil {
			return nil, err
		}
		var out runtime.Object
		if dryRun {
			out, err = s.dryRunCreate(ctx, key, obj)
		} else {
			out, err = s.Storage.Create(ctx, key, obj)
		}
		if err == nil {
			if !dryRun && s.AfterCreate != nil {
				s.AfterCreate(ctx, out)
			}
			return out, nil
		}
		if !storage.IsExist(err) {
			return nil, interpretStorageError(err, verbCreate, s.DefaultQualifiedResource, m.GetName())
		}
		if generated {
			if attempt < generateNameAttempts {
				m.SetName(s.generateName(m.GetGenerateName()))
				continue
			}
			return nil, apierrors.NewGenerateNameConflict(s.DefaultQualifiedResource, m.GetName(), 1)
		}
		return nil, s.alreadyExists(ctx, key, m.GetName())
	}
}

// dryRunCreate answers as a create would, without writing.
func (s *Store) dryRunCreate(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	_, err := s.Storage.Get(ctx, key, storage.GetOptions{})
	switch {
	case err == nil:
		return nil, storage.NewError(storage.ErrCodeKeyExists, key, 0, "")
	case storage.IsNotFound(err):
		return obj, nil
	}
	return nil, err
}

// alreadyExists is the AlreadyExists error of a create, which says so when
// the existing object is being deleted.
func (s *Store) alreadyExists(ctx context.Context, key, name string) error {
	err := apierrors.NewAlreadyExists(s.DefaultQualifiedResource, name)
	existing, getErr := s.Storage.Get(ctx, key, storage.GetOptions{})
	if getErr != nil {
		return err
	}
	if em, merr := objectMeta(existing); merr == nil && em.GetDeletionTimestamp() != nil {
		err.ErrStatus.Message = fmt.Sprintf("object is being deleted: %s", err.ErrStatus.Message)
	}
	return err
}
