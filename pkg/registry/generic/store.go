package generic

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// Store serves one resource: it runs the resource's strategies around its
// storage.Interface and implements the REST verbs. Fields left zero take the
// defaults documented on them; a Store is not modified after it serves.
type Store struct {
	// NewFunc returns an empty object (&v1.Pod{}). Required.
	NewFunc func() runtime.Object
	// NewListFunc returns an empty list (&v1.PodList{}). Required.
	NewListFunc func() runtime.Object

	// DefaultQualifiedResource names the resource in errors ("pods",
	// "deployments.apps"). Required.
	DefaultQualifiedResource schema.GroupResource
	// SingularQualifiedResource is the singular name ("pod") for discovery.
	SingularQualifiedResource schema.GroupResource
	// QualifiedKind names the kind in Invalid errors (`Pod "x" is
	// invalid`); by default the kind the object's TypeMeta carries.
	QualifiedKind schema.GroupKind

	// ResourcePrefix is the first key segment, DefaultQualifiedResource's
	// resource by default: keys are "/<prefix>/<namespace>/<name>" and
	// "/<prefix>/<name>" (the storage prepends its own "/registry").
	ResourcePrefix string
	// KeyRootFunc returns the key prefix of a list or watch in ctx's
	// namespace; derived from ResourcePrefix by default.
	KeyRootFunc func(ctx context.Context) string
	// KeyFunc returns the key of one object; derived from ResourcePrefix by
	// default.
	KeyFunc func(ctx context.Context, name string) (string, error)

	// GetAttrs returns the labels and selectable fields of an object:
	// metadata.name (and metadata.namespace when namespaced) by default.
	GetAttrs storage.AttrFunc

	// CreateStrategy is required for Create and says the scope.
	CreateStrategy rest.CreateStrategy
	// UpdateStrategy is required for Update.
	UpdateStrategy rest.UpdateStrategy
	// DeleteStrategy is required for Delete; it may implement
	// rest.GracefulDeleteStrategy and rest.GarbageCollectionDeleteStrategy.
	DeleteStrategy rest.DeleteStrategy

	// ReturnDeletedObject returns the deleted object from a delete that
	// completes; otherwise a Status of kind Success naming it is returned.
	ReturnDeletedObject bool

	// TableConvertor renders Tables; DefaultTableConvertor when nil.
	TableConvertor rest.TableConvertor

	// Storage holds the objects. Required.
	Storage storage.Interface
	// DestroyFunc releases the storage (the watch cache); may be nil.
	DestroyFunc func()

	// ShortNamesList, CategoriesList feed discovery.
	ShortNamesList []string
	CategoriesList []string

	// NamespaceLifecycle, when set, vets the namespace of every create of a
	// namespaced object: it returns NotFound for a missing namespace and
	// Forbidden for a terminating one.
	NamespaceLifecycle func(ctx context.Context, namespace string) error

	// Admission is the admission chain every write passes (see
	// rest.Admission); nil admits everything.
	Admission rest.Admission
	// Subresource names the subresource a copy of a resource's Store
	// serves ("status"), for admission; empty for the resource itself.
	Subresource string
	// FieldManager keeps metadata.managedFields on every write through
	// this Store (and serves apply); nil records none. CompleteWithOptions
	// builds it from StoreOptions.FieldManagers; a subresource's copy has
	// its own (ForSubresource).
	FieldManager *fieldmanager.FieldManager

	// AfterCreate, AfterUpdate and AfterDelete run after a write that was
	// stored (not on dry runs) with the stored object.
	AfterCreate func(ctx context.Context, obj runtime.Object)
	AfterUpdate func(ctx context.Context, obj runtime.Object)
	AfterDelete func(ctx context.Context, obj runtime.Object)

	// DeleteCollectionWorkers bounds the parallel deletes of a
	// DeleteCollection (4 when zero).
	DeleteCollectionWorkers int

	// Clock returns the time for creationTimestamp and deletionTimestamp;
	// time.Now when nil.
	Clock func() time.Time
	// NameGenerator returns a name from a generateName prefix; by default
	// the prefix plus five random characters.
	NameGenerator func(base string) string
}

var (
	_ rest.Storage              = (*Store)(nil)
	_ rest.Scoper               = (*Store)(nil)
	_ rest.Getter               = (*Store)(nil)
	_ rest.Lister               = (*Store)(nil)
	_ rest.Watcher              = (*Store)(nil)
	_ rest.Creater              = (*Store)(nil)
	_ rest.Updater              = (*Store)(nil)
	_ rest.Applier              = (*Store)(nil)
	_ rest.GracefulDeleter      = (*Store)(nil)
	_ rest.CollectionDeleter    = (*Store)(nil)
	_ rest.TableConvertor       = (*Store)(nil)
	_ rest.ShortNamesProvider   = (*Store)(nil)
	_ rest.CategoriesProvider   = (*Store)(nil)
	_ rest.SingularNameProvider = (*Store)(nil)
)

// New implements rest.Storage.
func (s *Store) New() runtime.Object { return s.NewFunc() }

// NewList implements rest.Lister.
func (s *Store) NewList() runtime.Object { return s.NewListFunc() }

// Destroy implements rest.Storage.
func (s *Store) Destroy() {
	if s.DestroyFunc != nil {
		s.DestroyFunc()
	}
}

// NamespaceScoped implements rest.Scoper, from the first strategy set.
func (s *Store) NamespaceScoped() bool {
	switch {
	case s.CreateStrategy != nil:
		return s.CreateStrategy.NamespaceScoped()
	case s.UpdateStrategy != nil:
		return s.UpdateStrategy.NamespaceScoped()
	case s.DeleteStrategy != nil:
		return s.DeleteStrategy.NamespaceScoped()
	}
	return false
}

// ShortNames implements rest.ShortNamesProvider.
func (s *Store) ShortNames() []string { return s.ShortNamesList }

// Categories implements rest.CategoriesProvider.
func (s *Store) Categories() []string { return s.CategoriesList }

// GetSingularName implements rest.SingularNameProvider.
func (s *Store) GetSingularName() string { return s.SingularQualifiedResource.Resource }

// ConvertToTable implements rest.TableConvertor.
func (s *Store) ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	if s.TableConvertor != nil {
		return s.TableConvertor.ConvertToTable(ctx, obj, opts)
	}
	return DefaultTableConvertor{}.ConvertToTable(ctx, obj, opts)
}

func (s *Store) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

func (s *Store) resourcePrefix() string {
	if s.ResourcePrefix != "" {
		return "/" + strings.Trim(s.ResourcePrefix, "/")
	}
	return "/" + s.DefaultQualifiedResource.Resource
}

// keyRoot is the key prefix of the objects in ctx's namespace (all
// namespaces when it has none).
func (s *Store) keyRoot(ctx context.Context) string {
	if s.KeyRootFunc != nil {
		return s.KeyRootFunc(ctx)
	}
	prefix := s.resourcePrefix()
	if ns := apirequest.NamespaceValue(ctx); s.NamespaceScoped() && ns != "" {
		return prefix + "/" + ns
	}
	return prefix
}

// key is the key of the object name in ctx's namespace.
func (s *Store) key(ctx context.Context, name string) (string, error) {
	if s.KeyFunc != nil {
		return s.KeyFunc(ctx, name)
	}
	if name == "" {
		return "", apierrors.NewBadRequest("Name parameter required.")
	}
	if msgs := validatePathSegmentName(name); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	if !s.NamespaceScoped() {
		return s.resourcePrefix() + "/" + name, nil
	}
	ns := apirequest.NamespaceValue(ctx)
	if ns == "" {
		return "", apierrors.NewBadRequest("Namespace parameter required.")
	}
	if msgs := validatePathSegmentName(ns); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("Namespace parameter invalid: %q: %s", ns, strings.Join(msgs, ";")))
	}
	return s.resourcePrefix() + "/" + ns + "/" + name, nil
}

// attrs returns GetAttrs or the default attribute function.
func (s *Store) attrs() storage.AttrFunc {
	if s.GetAttrs != nil {
		return s.GetAttrs
	}
	namespaced := s.NamespaceScoped()
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		m, err := objectMeta(obj)
		if err != nil {
			return nil, nil, err
		}
		fs := fields.Set{"metadata.name": m.GetName()}
		if namespaced {
			fs["metadata.namespace"] = m.GetNamespace()
		}
		return labels.Set(m.GetLabels()), fs, nil
	}
}

// DefaultAttrs is the default GetAttrs of a namespaced resource: its
// labels, metadata.name and metadata.namespace. Resources with more
// selectable fields extend its result.
func DefaultAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return nil, nil, err
	}
	return labels.Set(m.GetLabels()), fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}, nil
}

// qualifiedKind names obj's kind in Invalid errors.
func (s *Store) qualifiedKind(obj runtime.Object) schema.GroupKind {
	if s.QualifiedKind.Kind != "" {
		return s.QualifiedKind
	}
	if obj != nil {
		if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
			return gvk.GroupKind()
		}
	}
	return schema.GroupKind{Group: s.DefaultQualifiedResource.Group, Kind: s.DefaultQualifiedResource.Resource}
}

// attributes describes a write of the object name to admission.
func (s *Store) attributes(ctx context.Context, op rest.Operation, name string, obj, old runtime.Object, dryRun bool, opts runtime.Object) *rest.Attributes {
	kindOf := obj
	if kindOf == nil {
		kindOf = old
	}
	return rest.NewAttributes(ctx, op, s.DefaultQualifiedResource, s.Subresource, s.qualifiedKind(kindOf), name, obj, old, dryRun, opts)
}

// owned returns an object the caller may keep and modify: storage may hand
// out shared watch-cache objects wrapped in an EncodedObject.
func owned(obj runtime.Object) runtime.Object {
	if e, ok := obj.(*storage.EncodedObject); ok {
		return e.DeepCopyObject()
	}
	return obj
}

// Get implements rest.Getter.
func (s *Store) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, err
	}
	var gopts storage.GetOptions
	if opts != nil {
		gopts.ResourceVersion = opts.ResourceVersion
	}
	obj, err := s.Storage.Get(ctx, key, gopts)
	if err != nil {
		return nil, interpretStorageError(err, verbGet, s.DefaultQualifiedResource, name)
	}
	return owned(obj), nil
}

// predicate builds the selection of a list or watch. A field selector on
// a field the resource does not offer is a BadRequest, as in Kubernetes.
func (s *Store) predicate(opts *rest.ListOptions) (storage.SelectionPredicate, error) {
	p := storage.SelectionPredicate{GetAttrs: s.attrs(), Label: labels.Everything(), Field: fields.Everything()}
	if opts == nil {
		return p, nil
	}
	if opts.LabelSelector != nil {
		p.Label = opts.LabelSelector
	}
	if opts.FieldSelector != nil {
		if err := s.checkFieldLabels(opts.FieldSelector); err != nil {
			return p, err
		}
		p.Field = opts.FieldSelector
	}
	p.Limit = opts.Limit
	p.Continue = opts.Continue
	return p, nil
}

// checkFieldLabels accepts metadata.name, metadata.namespace and the fields
// GetAttrs offers (the keys it returns for an empty object).
func (s *Store) checkFieldLabels(sel fields.Selector) error {
	if sel.Empty() {
		return nil
	}
	var offered fields.Set
	for _, r := range sel.Requirements() {
		if r.Field == "metadata.name" || r.Field == "metadata.namespace" {
			continue
		}
		if offered == nil {
			_, fs, err := s.attrs()(s.NewFunc())
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("selectable fields of %s: %w", s.DefaultQualifiedResource, err))
			}
			offered = fs
		}
		if _, ok := offered[r.Field]; !ok {
			return apierrors.NewBadRequest("field label not supported: " + r.Field)
		}
	}
	return nil
}

// narrowNamespace puts a metadata.namespace=NS field selector's namespace
// into a context that has none, so that the storage reads one namespace.
func (s *Store) narrowNamespace(ctx context.Context, p storage.SelectionPredicate) context.Context {
	if !s.NamespaceScoped() || apirequest.NamespaceValue(ctx) != "" || p.Field == nil {
		return ctx
	}
	if ns, ok := p.Field.RequiresExactMatch("metadata.namespace"); ok && ns != "" && len(validatePathSegmentName(ns)) == 0 {
		return apirequest.WithNamespace(ctx, ns)
	}
	return ctx
}

// List implements rest.Lister. A metadata.name field selector reads the one
// key instead of the whole prefix.
func (s *Store) List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error) {
	p, err := s.predicate(opts)
	if err != nil {
		return nil, err
	}
	lopts := storage.ListOptions{Predicate: p, Recursive: true}
	if opts != nil {
		lopts.ResourceVersion = opts.ResourceVersion
		lopts.ResourceVersionMatch = opts.ResourceVersionMatch
	}
	ctx = s.narrowNamespace(ctx, p)
	key := s.keyRoot(ctx)
	if name, ok := p.MatchesSingle(); ok {
		if k, err := s.key(ctx, name); err == nil {
			key, lopts.Recursive = k, false
		}
	}
	page, err := s.Storage.GetList(ctx, key, lopts)
	if err != nil {
		return nil, interpretStorageError(err, verbList, s.DefaultQualifiedResource, "")
	}
	list := s.NewListFunc()
	// A caller writing the items from their shared encodings wants none
	// here: thousands of objects would be copied for nothing.
	if encoded, ok := storage.EncodedItemsFrom(ctx); !ok || !encoded.Complete {
		items := make([]runtime.Object, len(page.Items))
		for i, it := range page.Items {
			items[i] = owned(it)
		}
		if err := setListItems(list, items); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	lm, err := listMeta(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if page.ResourceVersion != 0 {
		lm.SetResourceVersion(fmt.Sprint(page.ResourceVersion))
	}
	lm.SetContinue(page.Continue)
	lm.SetRemainingItemCount(page.RemainingItemCount)
	return list, nil
}

// Watch implements rest.Watcher. Bookmarks are asked for with
// AllowWatchBookmarks; the HTTP layer enforces TimeoutSeconds.
func (s *Store) Watch(ctx context.Context, opts *rest.ListOptions) (watch.Interface, error) {
	p, err := s.predicate(opts)
	if err != nil {
		return nil, err
	}
	// A watch streams every change: paging does not apply.
	p.Limit, p.Continue = 0, ""
	lopts := storage.ListOptions{Predicate: p, Recursive: true}
	if opts != nil {
		lopts.ResourceVersion = opts.ResourceVersion
		lopts.ProgressNotify = opts.AllowWatchBookmarks
		lopts.SendInitialEvents = opts.SendInitialEvents
	}
	ctx = s.narrowNamespace(ctx, p)
	key := s.keyRoot(ctx)
	if name, ok := p.MatchesSingle(); ok {
		if k, err := s.key(ctx, name); err == nil {
			key, lopts.Recursive = k, false
		}
	}
	w, err := s.Storage.Watch(ctx, key, lopts)
	if err != nil {
		return nil, interpretStorageError(err, verbWatch, s.DefaultQualifiedResource, "")
	}
	return w, nil
}
