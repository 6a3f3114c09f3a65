// Package event serves events.k8s.io/v1 events: the same stored objects
// as core v1 events, converted between the two shapes on the way in and
// out. It holds no storage of its own: every call goes to the core
// events Store.
package event

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	eventsv1 "kubecore.io/api/events/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/events/validation"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// CoreStore is what the events.k8s.io storage needs of the core v1
// events Store.
type CoreStore interface {
	rest.Getter
	rest.Lister
	rest.Watcher
	rest.Creater
	rest.Updater
	rest.GracefulDeleter
	rest.CollectionDeleter
}

// REST serves events.k8s.io/v1 events over the core v1 events Store.
type REST struct {
	core CoreStore
	fm   *fieldmanager.FieldManager
}

var (
	_ rest.Storage              = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
	_ CoreStore                 = (*REST)(nil)
	_ rest.Applier              = (*REST)(nil)
)

// NewREST returns the events.k8s.io/v1 storage over core; fm is the
// FieldManager of events.k8s.io events (nil: no server-side apply).
func NewREST(core CoreStore, fm *fieldmanager.FieldManager) *REST { return &REST{core: core, fm: fm} }

// New implements rest.Storage.
func (r *REST) New() runtime.Object { return &eventsv1.Event{} }

// Destroy implements rest.Storage: the core Store owns the watch cache.
func (r *REST) Destroy() {}

// NewList implements rest.Lister.
func (r *REST) NewList() runtime.Object { return &eventsv1.EventList{} }

// NamespaceScoped implements rest.Scoper.
func (r *REST) NamespaceScoped() bool { return true }

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return []string{"ev"} }

// GetSingularName implements rest.SingularNameProvider.
func (r *REST) GetSingularName() string { return "event" }

// Get implements rest.Getter.
func (r *REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.core.Get(ctx, name, opts)
	if err != nil {
		return nil, groupError(err)
	}
	return fromCore(obj)
}

// List implements rest.Lister: the core list, each item converted.
func (r *REST) List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error) {
	o, err := coreListOptions(opts)
	if err != nil {
		return nil, err
	}
	// Items the core Store serves from the watch cache come in their
	// shared core encodings: take the objects they wrap, never the bytes.
	obj, err := storage.ListObjects(ctx, func(ctx context.Context) (runtime.Object, error) { return r.core.List(ctx, o) },
		func(obj runtime.Object) (*[]corev1.Event, bool) {
			l, ok := obj.(*corev1.EventList)
			if !ok {
				return nil, false
			}
			return &l.Items, true
		})
	if err != nil {
		return nil, groupError(err)
	}
	return fromCoreList(obj)
}

// Watch implements rest.Watcher: the core watch, each object converted.
func (r *REST) Watch(ctx context.Context, opts *rest.ListOptions) (watch.Interface, error) {
	o, err := coreListOptions(opts)
	if err != nil {
		return nil, err
	}
	w, err := r.core.Watch(ctx, o)
	if err != nil {
		return nil, groupError(err)
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if e, ok := storage.Unwrap(ev.Object).(*corev1.Event); ok {
			ev.Object = eventsv1.FromCore(e)
		}
		return ev, true
	}), nil
}

// ConvertToTable implements rest.TableConvertor with the columns of core
// events, as kubectl shows both.
func (r *REST) ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	switch o := obj.(type) {
	case *eventsv1.Event:
		obj = eventsv1.ToCore(o)
	case *eventsv1.EventList:
		l := &corev1.EventList{ListMeta: o.ListMeta, Items: make([]corev1.Event, 0, len(o.Items))}
		for i := range o.Items {
			l.Items = append(l.Items, *eventsv1.ToCore(&o.Items[i]))
		}
		obj = l
	}
	table, err := r.core.ConvertToTable(ctx, obj, opts)
	if err != nil {
		return nil, err
	}
	// The row objects are the core shape: the API server fills them
	// again from the events.k8s.io objects.
	for i := range table.Rows {
		table.Rows[i].Object = nil
	}
	return table, nil
}

// Create implements rest.Creater: the event is checked by the
// events.k8s.io rules, then stored in its core shape.
func (r *REST) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	e, ok := obj.(*eventsv1.Event)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not an Event: %T", obj))
	}
	if e.Namespace == "" {
		e.Namespace = apirequest.NamespaceValue(ctx)
	}
	if errs := validation.ValidateEvent(e); len(errs) > 0 {
		return nil, invalid(e.Name, errs)
	}
	out, err := r.core.Create(ctx, eventsv1.ToCore(e), validate, opts)
	if err != nil {
		return nil, groupError(err)
	}
	return fromCore(out)
}

// Update implements rest.Updater: the update (a PUT body or a patch) is
// computed on the events.k8s.io shape of the stored event.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	out, created, err := r.core.Update(ctx, name, &convertingInfo{inner: objInfo}, createValidation, updateValidation, forceAllowCreate, opts)
	if err != nil {
		return nil, false, groupError(err)
	}
	obj, err := fromCore(out)
	return obj, created, err
}

// Apply implements rest.Applier: the configuration is merged into the
// events.k8s.io shape of the stored event by its schema, through Update.
func (r *REST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return generic.ApplyWith(ctx, r, r.fm, true, name, cfg, force, opts)
}

// Delete implements rest.GracefulDeleter.
func (r *REST) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	out, done, err := r.core.Delete(ctx, name, validate, opts)
	if err != nil {
		return nil, false, groupError(err)
	}
	if e, ok := storage.Unwrap(out).(*corev1.Event); ok {
		return eventsv1.FromCore(e), done, nil
	}
	return out, done, nil
}

// DeleteCollection implements rest.CollectionDeleter.
func (r *REST) DeleteCollection(ctx context.Context, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *rest.ListOptions) (runtime.Object, error) {
	o, err := coreListOptions(listOpts)
	if err != nil {
		return nil, err
	}
	out, err := r.core.DeleteCollection(ctx, validate, opts, o)
	if err != nil {
		return nil, groupError(err)
	}
	if l, ok := out.(*corev1.EventList); ok {
		return fromCoreList(l)
	}
	return out, nil
}

// convertingInfo hands the inner update the events.k8s.io shape of the
// stored event and gives the Store back the core shape of its result.
type convertingInfo struct {
	inner rest.UpdatedObjectInfo
}

func (c *convertingInfo) Preconditions() *metav1.Preconditions { return c.inner.Preconditions() }

// RecordsManagedFields forwards the inner info's (an apply's) to the core
// Store, which then records no Update over the apply.
func (c *convertingInfo) RecordsManagedFields() bool { return generic.RecordsManagedFields(c.inner) }

func (c *convertingInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	var prev *eventsv1.Event
	if e, ok := old.(*corev1.Event); ok {
		prev = eventsv1.FromCore(e)
		old = prev
	}
	obj, err := c.inner.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	e, ok := obj.(*eventsv1.Event)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not an Event: %T", obj))
	}
	var errs field.ErrorList
	if prev == nil {
		// A create on apply: the namespace is the request's, as Create
		// takes it.
		if e.Namespace == "" {
			e.Namespace = apirequest.NamespaceValue(ctx)
		}
		errs = validation.ValidateEvent(e)
	} else {
		errs = validation.ValidateEventUpdate(e, prev)
	}
	if len(errs) > 0 {
		return nil, invalid(e.Name, errs)
	}
	return eventsv1.ToCore(e), nil
}

// coreListOptions maps the field selector of events.k8s.io onto the
// fields of core events: regarding.* is involvedObject.*, and
// reportingController is reportingComponent.
func coreListOptions(opts *rest.ListOptions) (*rest.ListOptions, error) {
	if opts == nil || opts.FieldSelector == nil {
		return opts, nil
	}
	o := *opts
	sel, err := opts.FieldSelector.Transform(func(f, v string) (string, string, error) {
		switch {
		case strings.HasPrefix(f, "regarding."):
			return "involvedObject." + strings.TrimPrefix(f, "regarding."), v, nil
		case f == "reportingController":
			return "reportingComponent", v, nil
		case f == "note":
			return "", "", apierrors.NewBadRequest(`field label "note" is not supported`)
		}
		return f, v, nil
	})
	if err != nil {
		return nil, err
	}
	o.FieldSelector = sel
	return &o, nil
}

func fromCore(obj runtime.Object) (runtime.Object, error) {
	e, ok := storage.Unwrap(obj).(*corev1.Event)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("stored event is a %T", obj))
	}
	return eventsv1.FromCore(e), nil
}

func fromCoreList(obj runtime.Object) (runtime.Object, error) {
	l, ok := obj.(*corev1.EventList)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("stored event list is a %T", obj))
	}
	out := &eventsv1.EventList{ListMeta: l.ListMeta, Items: make([]eventsv1.Event, 0, len(l.Items))}
	for i := range l.Items {
		out.Items = append(out.Items, *eventsv1.FromCore(&l.Items[i]))
	}
	return out, nil
}

// invalid is the 422 of an events.k8s.io event.
func invalid(name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(eventsv1.SchemeGroupVersion.WithKind("Event").GroupKind(), name, errs)
}

// groupError names events.k8s.io in the errors of the core Store, which
// name the core group.
func groupError(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil || se.ErrStatus.Details.Group != "" {
		return err
	}
	st := se.ErrStatus
	d := *st.Details
	switch d.Kind {
	case "events":
		st.Message = strings.Replace(st.Message, `events "`, `events.events.k8s.io "`, 1)
	case "Event":
		st.Message = strings.Replace(st.Message, `Event "`, `Event.events.k8s.io "`, 1)
	default:
		return err
	}
	d.Group = eventsv1.GroupName
	st.Details = &d
	return &apierrors.StatusError{ErrStatus: st}
}
