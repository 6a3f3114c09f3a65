package strategy

import (
	"context"
	"fmt"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Scalable reads and writes the replica count of a workload T.
type Scalable[T runtime.Object] struct {
	// Replicas returns spec.replicas (1 when unset) and SetReplicas sets it.
	Replicas    func(T) int32
	SetReplicas func(T, int32)
	// StatusReplicas returns status.replicas.
	StatusReplicas func(T) int32
	// Selector returns spec.selector.
	Selector func(T) *metav1.LabelSelector
}

// ScaleREST serves a /scale subresource as an autoscaling/v1 Scale that
// maps the workload's spec.replicas and status.selector.
type ScaleREST[T runtime.Object] struct {
	store     *generic.Store
	admission rest.Admission
	s         Scalable[T]
}

// NewScaleREST serves the scale of store's objects. Admission sees the
// Scale objects, as in Kubernetes, not the workload.
func NewScaleREST[T runtime.Object](store *generic.Store, s Scalable[T]) *ScaleREST[T] {
	workload := *store
	workload.Admission, workload.DestroyFunc, workload.Subresource = nil, nil, "scale"
	return &ScaleREST[T]{store: &workload, admission: store.Admission, s: s}
}

var (
	_ rest.Getter  = (*ScaleREST[*autoscalingv1.Scale])(nil)
	_ rest.Updater = (*ScaleREST[*autoscalingv1.Scale])(nil)
)

// New implements rest.Storage.
func (r *ScaleREST[T]) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy implements rest.Storage; the main resource owns the storage.
func (r *ScaleREST[T]) Destroy() {}

// GroupVersionKind implements rest.KindProvider: the Scale is
// autoscaling/v1 in every group.
func (r *ScaleREST[T]) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return scaleKind
}

// Get implements rest.Getter.
func (r *ScaleREST[T]) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return r.toScale(obj)
}

func (r *ScaleREST[T]) toScale(obj runtime.Object) (*autoscalingv1.Scale, error) {
	o, ok := obj.(T)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("unexpected object of type %T", obj))
	}
	m := Meta(o)
	scale := &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: r.s.Replicas(o)},
		Status: autoscalingv1.ScaleStatus{Replicas: r.s.StatusReplicas(o)},
	}
	if sel := r.s.Selector(o); sel != nil {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("convert selector of %s: %w", m.Name, err))
		}
		scale.Status.Selector = s.String()
	}
	return scale, nil
}

// Update implements rest.Updater: it sets spec.replicas of the workload
// from the Scale the request computes. It never creates.
func (r *ScaleREST[T]) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, _ rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdate[T]{r: r, name: name, inner: objInfo, opts: opts}, nil, nil, false, opts)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.toScale(obj)
	return scale, false, err
}

// scaleUpdate turns the update of a Scale into one of the workload.
type scaleUpdate[T runtime.Object] struct {
	r     *ScaleREST[T]
	name  string
	inner rest.UpdatedObjectInfo
	opts  *metav1.UpdateOptions
}

func (u *scaleUpdate[T]) Preconditions() *metav1.Preconditions { return u.inner.Preconditions() }

func (u *scaleUpdate[T]) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(u.r.store.DefaultQualifiedResource, u.name)
	}
	oldScale, err := u.r.toScale(old)
	if err != nil {
		return nil, err
	}
	newObj, err := u.inner.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	scale, ok := newObj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", newObj))
	}
	attrs := u.attributes(ctx, scale, oldScale)
	if err := rest.Admit(ctx, u.r.admission, attrs); err != nil {
		return nil, err
	}
	if errs := ValidateScale(scale); len(errs) > 0 {
		return nil, apierrors.NewInvalid(scaleKind.GroupKind(), scale.Name, errs)
	}
	if scale.Name != "" && scale.Name != u.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", scale.Name, u.name))
	}
	if err := rest.Validate(ctx, u.r.admission, attrs); err != nil {
		return nil, err
	}
	out := old.DeepCopyObject().(T)
	u.r.s.SetReplicas(out, scale.Spec.Replicas)
	if rv := scale.ResourceVersion; rv != "" {
		// The caller's resourceVersion guards the write of the workload.
		Meta(out).ResourceVersion = rv
	}
	return out, nil
}

var scaleKind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// attributes describe the update of the scale to admission.
func (u *scaleUpdate[T]) attributes(ctx context.Context, scale, old *autoscalingv1.Scale) *rest.Attributes {
	dryRun := u.opts != nil && len(u.opts.DryRun) > 0
	a := rest.NewAttributes(ctx, rest.OperationUpdate, u.r.store.DefaultQualifiedResource, "scale", scaleKind.GroupKind(), u.name, scale, old, dryRun, u.opts)
	a.Kind = scaleKind
	return a
}

// ValidateScale checks a Scale: replicas are not negative.
func ValidateScale(s *autoscalingv1.Scale) field.ErrorList {
	if s.Spec.Replicas < 0 {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), s.Spec.Replicas, "must be greater than or equal to 0")}
	}
	return nil
}
