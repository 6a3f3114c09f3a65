package generic

import (
	"context"
	"errors"
	"strings"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ViewedStorage is what a View asks of the storage it serves in another
// kind: every verb of a resource; the Store satisfies it.
type ViewedStorage interface {
	rest.Scoper
	rest.Getter
	rest.Lister
	rest.Watcher
	rest.Creater
	rest.Updater
	rest.GracefulDeleter
	rest.CollectionDeleter
	rest.ShortNamesProvider
	rest.CategoriesProvider
	rest.SingularNameProvider
}

// ViewedStatus is what a StatusView asks of the /status it serves in
// another kind.
type ViewedStatus interface {
	rest.Getter
	rest.Updater
}

var _ ViewedStorage = (*Store)(nil)

// StatusView serves a subresource that reads and writes the whole object
// (a /status) in the kind of a ViewOf: every object read is converted to
// the view, every object written back to the stored kind over the stored
// object. Applies merge into the view by the view's schema.
type StatusView struct {
	stored ViewedStatus
	conv   ViewConverter
	fm     *fieldmanager.FieldManager
	// allowCreate lets an apply create a missing object (not at a
	// subresource).
	allowCreate bool
}

var (
	_ rest.Storage = (*StatusView)(nil)
	_ rest.Getter  = (*StatusView)(nil)
	_ rest.Updater = (*StatusView)(nil)
	_ rest.Applier = (*StatusView)(nil)
)

// View serves a resource in the kind of a ViewOf over the storage of
// another kind or version (autoscaling/v1 autoscalers over the stored
// autoscaling/v2 ones, events.k8s.io events over core events): one set of
// stored objects, converted on every verb. Tables are the stored kind's,
// field selectors map onto the stored kind's fields, watches and lists
// convert each object, and the stored storage's errors name the view's
// group.
type View struct {
	StatusView
	stored ViewedStorage
}

var (
	_ ViewedStorage = (*View)(nil)
	_ rest.Applier  = (*View)(nil)
)

// NewView serves stored in conv's kind. storedFM is stored's FieldManager;
// with fms the view takes server-side applies by its own schema (neither:
// apply is a 415).
func NewView(stored ViewedStorage, storedFM *fieldmanager.FieldManager, conv ViewConverter, fms *fieldmanager.Builder) (*View, error) {
	s, err := NewStatusView(stored, storedFM, conv, fms)
	if err != nil {
		return nil, err
	}
	s.allowCreate = true
	return &View{StatusView: *s, stored: stored}, nil
}

// NewStatusView serves stored, a /status, in conv's kind; storedFM and fms
// are NewView's.
func NewStatusView(stored ViewedStatus, storedFM *fieldmanager.FieldManager, conv ViewConverter, fms *fieldmanager.Builder) (*StatusView, error) {
	if err := conv.check(); err != nil {
		return nil, err
	}
	fm, err := fms.ForView(storedFM, conv.newView)
	if err != nil {
		return nil, err
	}
	return &StatusView{stored: stored, conv: conv, fm: fm}, nil
}

// New implements rest.Storage.
func (v *StatusView) New() runtime.Object { return v.conv.newView() }

// Destroy implements rest.Storage: the stored resource owns the storage.
func (v *StatusView) Destroy() {}

// Get implements rest.Getter.
func (v *StatusView) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := v.stored.Get(ctx, name, opts)
	if err != nil {
		return nil, v.viewError(err)
	}
	return v.conv.toView(obj), nil
}

// Update implements rest.Updater: the new object (a PUT's body, a patch,
// an apply) is computed on the view of the stored object, checked by the
// view's rules and stored converted back over it.
func (v *StatusView) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &viewUpdate{inner: objInfo, view: v}
	out, created, err := v.stored.Update(ctx, name, info, createValidation, updateValidation, forceAllowCreate, opts)
	if err != nil {
		return nil, false, v.viewError(err)
	}
	return v.conv.toView(out), created, nil
}

// Apply implements rest.Applier: the configuration is merged into the view
// of the stored object by the view's schema, through Update.
func (v *StatusView) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return ApplyWith(ctx, v, v.fm, v.allowCreate, name, cfg, force, opts)
}

// viewError names the view's group in an error of the stored storage
// about the stored resource, when the two groups differ:
// `events "x" not found` becomes `events.events.k8s.io "x" not found`.
func (v *StatusView) viewError(err error) error {
	var se *apierrors.StatusError
	gk, gr := v.conv.groupKind(), v.conv.resource()
	if !errors.As(err, &se) || se.ErrStatus.Details == nil || se.ErrStatus.Details.Group == gk.Group {
		return err
	}
	st := se.ErrStatus
	d := *st.Details
	if d.Kind != gr.Resource && d.Kind != gk.Kind {
		return err
	}
	qualify := func(name, group string) string {
		if group == "" {
			return name
		}
		return name + "." + group
	}
	st.Message = strings.Replace(st.Message, qualify(d.Kind, d.Group)+` "`, qualify(d.Kind, gk.Group)+` "`, 1)
	d.Group = gk.Group
	st.Details = &d
	return &apierrors.StatusError{ErrStatus: st}
}

// NewList implements rest.Lister.
func (v *View) NewList() runtime.Object { return v.conv.newViewList() }

// NamespaceScoped implements rest.Scoper.
func (v *View) NamespaceScoped() bool { return v.stored.NamespaceScoped() }

// ShortNames implements rest.ShortNamesProvider.
func (v *View) ShortNames() []string { return v.stored.ShortNames() }

// Categories implements rest.CategoriesProvider.
func (v *View) Categories() []string { return v.stored.Categories() }

// GetSingularName implements rest.SingularNameProvider.
func (v *View) GetSingularName() string { return v.stored.GetSingularName() }

// List implements rest.Lister: the stored list, each item converted.
func (v *View) List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error) {
	o, err := v.storedListOptions(opts)
	if err != nil {
		return nil, err
	}
	obj, err := v.conv.listStored(ctx, func(ctx context.Context) (runtime.Object, error) { return v.stored.List(ctx, o) })
	if err != nil {
		return nil, v.viewError(err)
	}
	return v.conv.toView(obj), nil
}

// Watch implements rest.Watcher: the stored watch, each object converted.
func (v *View) Watch(ctx context.Context, opts *rest.ListOptions) (watch.Interface, error) {
	o, err := v.storedListOptions(opts)
	if err != nil {
		return nil, err
	}
	w, err := v.stored.Watch(ctx, o)
	if err != nil {
		return nil, v.viewError(err)
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		ev.Object = v.conv.toView(ev.Object)
		return ev, true
	}), nil
}

// ConvertToTable implements rest.TableConvertor with the stored kind's
// printer. The rows carry no object: the API server fills them from the
// view's objects.
func (v *View) ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	stored, err := v.conv.toStored(obj, nil)
	if err != nil {
		return nil, err
	}
	table, err := v.stored.ConvertToTable(ctx, stored, opts)
	if err != nil {
		return nil, err
	}
	for i := range table.Rows {
		table.Rows[i].Object = nil
	}
	return table, nil
}

// Create implements rest.Creater: the object is checked by the view's
// rules, then stored converted.
func (v *View) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	stored, err := v.check(ctx, obj, nil, nil)
	if err != nil {
		return nil, err
	}
	out, err := v.stored.Create(ctx, stored, validate, opts)
	if err != nil {
		return nil, v.viewError(err)
	}
	return v.conv.toView(out), nil
}

// Delete implements rest.GracefulDeleter.
func (v *View) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	out, done, err := v.stored.Delete(ctx, name, validate, opts)
	if err != nil {
		return nil, false, v.viewError(err)
	}
	return v.conv.toView(out), done, nil
}

// DeleteCollection implements rest.CollectionDeleter.
func (v *View) DeleteCollection(ctx context.Context, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *rest.ListOptions) (runtime.Object, error) {
	o, err := v.storedListOptions(listOpts)
	if err != nil {
		return nil, err
	}
	out, err := v.stored.DeleteCollection(ctx, validate, opts, o)
	if err != nil {
		return nil, v.viewError(err)
	}
	return v.conv.toView(out), nil
}

// storedListOptions maps the view's field selector onto the stored kind's
// fields.
func (v *View) storedListOptions(opts *rest.ListOptions) (*rest.ListOptions, error) {
	label := v.conv.fieldLabel()
	if label == nil || opts == nil || opts.FieldSelector == nil {
		return opts, nil
	}
	sel, err := opts.FieldSelector.Transform(label)
	if err != nil {
		return nil, err
	}
	o := *opts
	o.FieldSelector = sel
	return &o, nil
}

// check checks a view object by the view's rules, those of an update
// when old (the view of base, the stored object) is set, and converts it
// over base. A new object's empty namespace is the request's, as the
// Store would make it, before the rules see it.
func (v *StatusView) check(ctx context.Context, obj, old, base runtime.Object) (runtime.Object, error) {
	if m, ok := obj.(metav1.Object); ok && old == nil && m.GetNamespace() == "" {
		m.SetNamespace(apirequest.NamespaceValue(ctx))
	}
	if errs := v.conv.validate(obj, old); len(errs) > 0 {
		name := ""
		if m, ok := obj.(metav1.Object); ok {
			name = m.GetName()
		}
		return nil, apierrors.NewInvalid(v.conv.groupKind(), name, errs)
	}
	return v.conv.toStored(obj, base)
}

// viewUpdate hands the inner update the view of the stored object, and
// the stored storage the stored kind of its result.
type viewUpdate struct {
	inner rest.UpdatedObjectInfo
	view  *StatusView
}

var _ rest.UpdatedObjectInfo = (*viewUpdate)(nil)

func (u *viewUpdate) Preconditions() *metav1.Preconditions { return u.inner.Preconditions() }

// RecordsManagedFields forwards the inner info's (an apply's) to the
// stored Store, which then records no Update over the apply.
func (u *viewUpdate) RecordsManagedFields() bool { return RecordsManagedFields(u.inner) }

func (u *viewUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	var oldView runtime.Object
	if old != nil {
		oldView = u.view.conv.toView(old)
	}
	obj, err := u.inner.UpdatedObject(ctx, oldView)
	if err != nil {
		return nil, err
	}
	return u.view.check(ctx, obj, oldView, old)
}
