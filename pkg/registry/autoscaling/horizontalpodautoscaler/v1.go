package horizontalpodautoscaler

import (
	"context"
	"fmt"
	"sync"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	v1conversion "kubecore.io/kubecore/pkg/apis/autoscaling/v1"
	v2defaults "kubecore.io/kubecore/pkg/apis/autoscaling/v2"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// V1REST serves autoscaling/v1 horizontalpodautoscalers from the
// autoscaling/v2 storage: every object read is converted to v1, every
// object written to v2 (keeping from the stored object what v1 cannot
// express).
type V1REST struct {
	v2 V2Storage
	fm *fieldmanager.FieldManager
}

// V2Storage is what V1REST asks of the autoscaling/v2 storage; the
// generic Store satisfies it.
type V2Storage interface {
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
	Destroy()
}

var (
	_ rest.Getter             = (*V1REST)(nil)
	_ rest.Lister             = (*V1REST)(nil)
	_ rest.Watcher            = (*V1REST)(nil)
	_ rest.Creater            = (*V1REST)(nil)
	_ rest.Updater            = (*V1REST)(nil)
	_ rest.GracefulDeleter    = (*V1REST)(nil)
	_ rest.CollectionDeleter  = (*V1REST)(nil)
	_ rest.ShortNamesProvider = (*V1REST)(nil)
	_ rest.CategoriesProvider = (*V1REST)(nil)
	_ rest.Scoper             = (*V1REST)(nil)
	_ rest.Applier            = (*V1REST)(nil)
)

// NewV1REST serves v2's objects as autoscaling/v1; fm is the FieldManager
// of autoscaling/v1 autoscalers (nil: no server-side apply).
func NewV1REST(v2 V2Storage, fm *fieldmanager.FieldManager) *V1REST { return &V1REST{v2: v2, fm: fm} }

// New implements rest.Storage.
func (r *V1REST) New() runtime.Object { return &autoscalingv1.HorizontalPodAutoscaler{} }

// NewList implements rest.Lister.
func (r *V1REST) NewList() runtime.Object { return &autoscalingv1.HorizontalPodAutoscalerList{} }

// Destroy implements rest.Storage; the v2 resource owns the storage.
func (r *V1REST) Destroy() {}

// NamespaceScoped implements rest.Scoper.
func (r *V1REST) NamespaceScoped() bool { return r.v2.NamespaceScoped() }

// ShortNames implements rest.ShortNamesProvider.
func (r *V1REST) ShortNames() []string { return r.v2.ShortNames() }

// Categories implements rest.CategoriesProvider.
func (r *V1REST) Categories() []string { return r.v2.Categories() }

// GetSingularName implements rest.SingularNameProvider.
func (r *V1REST) GetSingularName() string { return r.v2.GetSingularName() }

// Get implements rest.Getter.
func (r *V1REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.v2.Get(ctx, name, opts)
	return toV1(obj), err
}

// List implements rest.Lister. The items are converted one by one, so the
// shared v2 encodings of the watch cache, which the API server would
// write as they are, never reach it.
func (r *V1REST) List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error) {
	obj, err := storage.ListObjects(ctx, func(ctx context.Context) (runtime.Object, error) { return r.v2.List(ctx, opts) },
		func(obj runtime.Object) (*[]autoscalingv2.HorizontalPodAutoscaler, bool) {
			l, ok := obj.(*autoscalingv2.HorizontalPodAutoscalerList)
			if !ok {
				return nil, false
			}
			return &l.Items, true
		})
	if err != nil {
		return nil, err
	}
	return toV1(obj), nil
}

// ConvertToTable implements rest.TableConvertor with v2's printer.
func (r *V1REST) ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	return r.v2.ConvertToTable(ctx, toV2(obj, nil), opts)
}

// Watch implements rest.Watcher.
func (r *V1REST) Watch(ctx context.Context, opts *rest.ListOptions) (watch.Interface, error) {
	w, err := r.v2.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return newConvertingWatch(w), nil
}

// Create implements rest.Creater.
func (r *V1REST) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	in, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not an autoscaling/v1 HorizontalPodAutoscaler: %T", obj))
	}
	out, err := r.v2.Create(ctx, convertToV2(in, nil), validate, opts)
	return toV1(out), err
}

// Update implements rest.Updater: the update is computed on the v1 view
// of the stored object, and stored as v2.
func (r *V1REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	out, created, err := r.v2.Update(ctx, name, v1Update{objInfo}, createValidation, updateValidation, forceAllowCreate, opts)
	return toV1(out), created, err
}

// Apply implements rest.Applier: the configuration is merged into the v1
// view of the stored object by v1's schema, through Update.
func (r *V1REST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return generic.ApplyWith(ctx, r, r.fm, true, name, cfg, force, opts)
}

// Delete implements rest.GracefulDeleter.
func (r *V1REST) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	out, done, err := r.v2.Delete(ctx, name, validate, opts)
	return toV1(out), done, err
}

// DeleteCollection implements rest.CollectionDeleter.
func (r *V1REST) DeleteCollection(ctx context.Context, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *rest.ListOptions) (runtime.Object, error) {
	out, err := r.v2.DeleteCollection(ctx, validate, opts, listOpts)
	return toV1(out), err
}

// V1StatusREST serves the /status of autoscaling/v1 autoscalers from
// v2's.
type V1StatusREST struct {
	v2 V2Status
	fm *fieldmanager.FieldManager
}

// V2Status is what V1StatusREST asks of v2's /status.
type V2Status interface {
	rest.Getter
	rest.Updater
}

var (
	_ rest.Getter  = (*V1StatusREST)(nil)
	_ rest.Updater = (*V1StatusREST)(nil)
	_ rest.Applier = (*V1StatusREST)(nil)
)

// NewV1StatusREST serves v2's status as autoscaling/v1; fm is the
// FieldManager of autoscaling/v1 autoscalers at /status (nil: no
// server-side apply).
func NewV1StatusREST(v2 V2Status, fm *fieldmanager.FieldManager) *V1StatusREST {
	return &V1StatusREST{v2: v2, fm: fm}
}

// New implements rest.Storage.
func (r *V1StatusREST) New() runtime.Object { return &autoscalingv1.HorizontalPodAutoscaler{} }

// Destroy implements rest.Storage.
func (r *V1StatusREST) Destroy() {}

// Get implements rest.Getter.
func (r *V1StatusREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.v2.Get(ctx, name, opts)
	return toV1(obj), err
}

// Update implements rest.Updater.
func (r *V1StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	out, created, err := r.v2.Update(ctx, name, v1Update{objInfo}, createValidation, updateValidation, forceAllowCreate, opts)
	return toV1(out), created, err
}

// Apply implements rest.Applier: a status apply on the v1 view, through
// Update; it never creates the object.
func (r *V1StatusREST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return generic.ApplyWith(ctx, r, r.fm, false, name, cfg, force, opts)
}

// v1Update computes a v2 update from a v1 one.
type v1Update struct{ inner rest.UpdatedObjectInfo }

func (u v1Update) Preconditions() *metav1.Preconditions { return u.inner.Preconditions() }

// RecordsManagedFields forwards the inner info's (an apply's) to the v2
// Store, which then records no Update over the apply.
func (u v1Update) RecordsManagedFields() bool { return generic.RecordsManagedFields(u.inner) }

func (u v1Update) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	var base *autoscalingv2.HorizontalPodAutoscaler
	var oldV1 runtime.Object
	if old != nil {
		b, ok := storage.Unwrap(old).(*autoscalingv2.HorizontalPodAutoscaler)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("stored object is a %T, not an autoscaling/v2 HorizontalPodAutoscaler", old))
		}
		base, oldV1 = b, v1conversion.ToV1(b)
	}
	obj, err := u.inner.UpdatedObject(ctx, oldV1)
	if err != nil {
		return nil, err
	}
	in, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not an autoscaling/v1 HorizontalPodAutoscaler: %T", obj))
	}
	return convertToV2(in, base), nil
}

// convertToV2 converts and applies v2's defaults, which give an
// autoscaler without a CPU target its default metric.
func convertToV2(in *autoscalingv1.HorizontalPodAutoscaler, base *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	out := v1conversion.ToV2(in, base)
	v2defaults.SetDefaultsHorizontalPodAutoscaler(out)
	return out
}

// toV1 converts v2 objects and lists; anything else (a Status, nil)
// passes through.
func toV1(obj runtime.Object) runtime.Object {
	switch o := storage.Unwrap(obj).(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		return v1conversion.ToV1(o)
	case *autoscalingv2.HorizontalPodAutoscalerList:
		return v1conversion.ListToV1(o)
	}
	return obj
}

// toV2 converts v1 objects and lists for v2's printer.
func toV2(obj runtime.Object, base *autoscalingv2.HorizontalPodAutoscaler) runtime.Object {
	switch o := storage.Unwrap(obj).(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		return v1conversion.ToV2(o, base)
	case *autoscalingv1.HorizontalPodAutoscalerList:
		return v1conversion.ListToV2(o)
	}
	return obj
}

// convertingWatch relays a v2 watch as v1 events.
type convertingWatch struct {
	inner watch.Interface
	out   chan watch.Event
	done  chan struct{}
	stop  sync.Once
}

func newConvertingWatch(inner watch.Interface) *convertingWatch {
	w := &convertingWatch{inner: inner, out: make(chan watch.Event), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *convertingWatch) run() {
	defer close(w.out)
	for ev := range w.inner.ResultChan() {
		ev.Object = toV1(ev.Object)
		select {
		case w.out <- ev:
		case <-w.done:
			return
		}
	}
}

// Stop implements watch.Interface.
func (w *convertingWatch) Stop() {
	w.stop.Do(func() {
		w.inner.Stop()
		close(w.done)
	})
}

// ResultChan implements watch.Interface.
func (w *convertingWatch) ResultChan() <-chan watch.Event { return w.out }
