package generic

import (
	"context"
	"errors"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/storage"
)

// ViewOf says how a View serves the objects a storage keeps as S (listed
// as SL) in another kind or version V (listed as VL): the two conversions,
// where the lists keep their items, and what the view checks beyond the
// stored kind's strategy. V, VL, S and SL are structs whose pointers are
// runtime.Objects.
type ViewOf[V, VL, S, SL any] struct {
	// Resource is the resource the view is served as; its errors name it
	// where the stored resource's name another group.
	Resource schema.GroupResource
	// Kind is the view's kind, named in its 422s.
	Kind string

	// ToView converts a stored object.
	ToView func(*S) *V
	// ToStored converts a view object to the stored kind. base is the
	// stored object an update replaces (nil on a create), from which it
	// keeps what the view cannot express.
	ToStored func(v *V, base *S) *S
	// ViewItems and StoredItems return where a list keeps its items.
	ViewItems   func(*VL) *[]V
	StoredItems func(*SL) *[]S

	// Validate and ValidateUpdate, when set, check a view object by the
	// view's own rules before it is converted and stored (the stored
	// kind's strategy still runs after them).
	Validate       func(*V) field.ErrorList
	ValidateUpdate func(v, old *V) field.ErrorList
	// FieldLabel, when set, maps a field selector's label and value of the
	// view onto those of the stored kind; an error refuses the selector.
	FieldLabel func(label, value string) (string, string, error)
}

// ViewConverter is a ViewOf whatever its types: what a View and a
// StatusView ask of it.
type ViewConverter interface {
	check() error
	groupKind() schema.GroupKind
	resource() schema.GroupResource
	newView() runtime.Object
	newViewList() runtime.Object
	toView(obj runtime.Object) runtime.Object
	toStored(obj, base runtime.Object) (runtime.Object, error)
	validate(obj, old runtime.Object) field.ErrorList
	fieldLabel() func(label, value string) (string, string, error)
	listStored(ctx context.Context, list func(context.Context) (runtime.Object, error)) (runtime.Object, error)
}

var _ ViewConverter = ViewOf[metav1.Status, metav1.Status, metav1.Status, metav1.Status]{}

// check says what is missing from c for a View to work with it.
func (c ViewOf[V, VL, S, SL]) check() error {
	var errs []error
	for what, obj := range map[string]any{"view": new(V), "view list": new(VL), "stored": new(S), "stored list": new(SL)} {
		if _, ok := obj.(runtime.Object); !ok {
			errs = append(errs, fmt.Errorf("the %s type %T is not a runtime.Object", what, obj))
		}
	}
	for _, l := range []any{new(VL), new(SL)} {
		if _, ok := l.(metav1.ListInterface); !ok {
			errs = append(errs, fmt.Errorf("%T has no list metadata", l))
		}
	}
	if c.ToView == nil || c.ToStored == nil || c.ViewItems == nil || c.StoredItems == nil {
		errs = append(errs, errors.New("ToView, ToStored, ViewItems and StoredItems are all required"))
	}
	if c.Resource.Resource == "" || c.Kind == "" {
		errs = append(errs, errors.New("the Resource and Kind of the view are required"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("view %s: %w", c.Resource, err)
	}
	return nil
}

func (c ViewOf[V, VL, S, SL]) groupKind() schema.GroupKind {
	return schema.GroupKind{Group: c.Resource.Group, Kind: c.Kind}
}

func (c ViewOf[V, VL, S, SL]) resource() schema.GroupResource { return c.Resource }

func (c ViewOf[V, VL, S, SL]) newView() runtime.Object { return any(new(V)).(runtime.Object) }

func (c ViewOf[V, VL, S, SL]) newViewList() runtime.Object { return any(new(VL)).(runtime.Object) }

func (c ViewOf[V, VL, S, SL]) fieldLabel() func(string, string) (string, string, error) {
	return c.FieldLabel
}

// toView converts a stored object or list; anything else (nil, a Status)
// passes as it is.
func (c ViewOf[V, VL, S, SL]) toView(obj runtime.Object) runtime.Object {
	switch o := any(storage.Unwrap(obj)).(type) {
	case *S:
		return any(c.ToView(o)).(runtime.Object)
	case *SL:
		l := new(VL)
		copyListMeta(any(l).(metav1.ListInterface), any(o).(metav1.ListInterface))
		from, to := *c.StoredItems(o), c.ViewItems(l)
		*to = make([]V, len(from))
		for i := range from {
			(*to)[i] = *c.ToView(&from[i])
			// List items carry no kind.
			any(&(*to)[i]).(runtime.Object).GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
		return any(l).(runtime.Object)
	}
	return obj
}

// toStored converts a view object (or, for the stored kind's printer, a
// view list) over base, the stored object it replaces or nil.
func (c ViewOf[V, VL, S, SL]) toStored(obj, base runtime.Object) (runtime.Object, error) {
	var b *S
	if base != nil {
		var ok bool
		if b, ok = any(storage.Unwrap(base)).(*S); !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("stored %s is a %T, not a %T", c.Resource, base, b))
		}
	}
	switch o := any(obj).(type) {
	case *V:
		return any(c.ToStored(o, b)).(runtime.Object), nil
	case *VL:
		l := new(SL)
		copyListMeta(any(l).(metav1.ListInterface), any(o).(metav1.ListInterface))
		from, to := *c.ViewItems(o), c.StoredItems(l)
		*to = make([]S, len(from))
		for i := range from {
			(*to)[i] = *c.ToStored(&from[i], nil)
		}
		return any(l).(runtime.Object), nil
	}
	return nil, apierrors.NewBadRequest(fmt.Sprintf("not a %s object: %T", c.groupKind(), obj))
}

// validate runs the view's own checks on a view object: those of a
// create when old is nil.
func (c ViewOf[V, VL, S, SL]) validate(obj, old runtime.Object) field.ErrorList {
	v, ok := any(obj).(*V)
	switch {
	case !ok:
		return nil // not a view object: toStored refuses it
	case old != nil && c.ValidateUpdate != nil:
		o, _ := any(old).(*V)
		return c.ValidateUpdate(v, o)
	case old == nil && c.Validate != nil:
		return c.Validate(v)
	}
	return nil
}

// listStored runs list, a List of the stored kind, and fills in the items
// the watch cache left encoded: the view must convert the objects, never
// send the stored kind's shared bytes.
func (c ViewOf[V, VL, S, SL]) listStored(ctx context.Context, list func(context.Context) (runtime.Object, error)) (runtime.Object, error) {
	return storage.ListObjects(ctx, list, func(obj runtime.Object) (*[]S, bool) {
		l, ok := any(obj).(*SL)
		if !ok {
			return nil, false
		}
		return c.StoredItems(l), true
	})
}

func copyListMeta(dst, src metav1.ListInterface) {
	dst.SetResourceVersion(src.GetResourceVersion())
	dst.SetSelfLink(src.GetSelfLink())
	dst.SetContinue(src.GetContinue())
	dst.SetRemainingItemCount(src.GetRemainingItemCount())
}
