package strategy

import (
	"context"
	"encoding/json"
	"fmt"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ScaleMapper maps the objects of a resource to and from their
// autoscaling/v1 Scale: the built-in workloads through typed fields
// (Scalable), custom resources through their definition's paths.
type ScaleMapper interface {
	// ScaleOf returns the spec and status of obj's Scale.
	ScaleOf(obj runtime.Object) (autoscalingv1.ScaleSpec, autoscalingv1.ScaleStatus, error)
	// UpdateReplicas sets obj's spec replica count.
	UpdateReplicas(obj runtime.Object, replicas int32) error
	// ReplicasConfiguration is the apply configuration of the object
	// that sets its spec replica count.
	ReplicasConfiguration(replicas int64) map[string]any
}

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

var _ ScaleMapper = Scalable[*autoscalingv1.Scale]{}

// ScaleOf implements ScaleMapper.
func (s Scalable[T]) ScaleOf(obj runtime.Object) (autoscalingv1.ScaleSpec, autoscalingv1.ScaleStatus, error) {
	o, ok := obj.(T)
	if !ok {
		return autoscalingv1.ScaleSpec{}, autoscalingv1.ScaleStatus{}, fmt.Errorf("unexpected object of type %T", obj)
	}
	status := autoscalingv1.ScaleStatus{Replicas: s.StatusReplicas(o)}
	if sel := s.Selector(o); sel != nil {
		ls, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return autoscalingv1.ScaleSpec{}, status, fmt.Errorf("convert selector: %w", err)
		}
		status.Selector = ls.String()
	}
	return autoscalingv1.ScaleSpec{Replicas: s.Replicas(o)}, status, nil
}

// UpdateReplicas implements ScaleMapper.
func (s Scalable[T]) UpdateReplicas(obj runtime.Object, replicas int32) error {
	o, ok := obj.(T)
	if !ok {
		return fmt.Errorf("unexpected object of type %T", obj)
	}
	s.SetReplicas(o, replicas)
	return nil
}

// ReplicasConfiguration implements ScaleMapper: spec.replicas.
func (s Scalable[T]) ReplicasConfiguration(replicas int64) map[string]any {
	return map[string]any{"spec": map[string]any{"replicas": replicas}}
}

// ScaleREST serves a /scale subresource as an autoscaling/v1 Scale that
// a ScaleMapper maps to and from the resource's objects. Get, update,
// patch and apply, managedFields, preconditions, dry runs and the
// admission of the Scale are the same for every resource.
type ScaleREST struct {
	store     *generic.Store
	admission rest.Admission
	m         ScaleMapper
}

// NewScaleREST serves the scale of store's objects, which m maps. Admission
// sees the Scale objects, as in Kubernetes, not the workload; the store's
// FieldManager records writes at the scale subresource.
func NewScaleREST(store *generic.Store, m ScaleMapper) *ScaleREST {
	workload := *store
	workload.Admission, workload.DestroyFunc, workload.Subresource = nil, nil, "scale"
	workload.FieldManager = subresourceFieldManager(store.FieldManager, "scale", nil)
	return &ScaleREST{store: &workload, admission: store.Admission, m: m}
}

var (
	_ rest.Getter       = (*ScaleREST)(nil)
	_ rest.Updater      = (*ScaleREST)(nil)
	_ rest.Applier      = (*ScaleREST)(nil)
	_ rest.KindProvider = (*ScaleREST)(nil)
)

// New implements rest.Storage.
func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy implements rest.Storage; the main resource owns the storage.
func (r *ScaleREST) Destroy() {}

// GroupVersionKind implements rest.KindProvider: the Scale is
// autoscaling/v1 in every group.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return scaleKind
}

// Get implements rest.Getter.
func (r *ScaleREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return r.toScale(obj)
}

func (r *ScaleREST) toScale(obj runtime.Object) (*autoscalingv1.Scale, error) {
	a, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("unexpected object of type %T", obj))
	}
	m := a.GetObjectMeta()
	spec, status, err := r.m.ScaleOf(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("scale of %s: %w", m.GetName(), err))
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: scaleKind.Kind, APIVersion: scaleKind.GroupVersion().String()},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec: spec, Status: status,
	}, nil
}

// Update implements rest.Updater: it sets spec.replicas of the workload
// from the Scale the request computes. It never creates.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, _ rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdate{r: r, name: name, inner: objInfo, opts: opts}, nil, nil, false, opts)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.toScale(obj)
	return scale, false, err
}

// scaleUpdate turns the update of a Scale into one of the workload.
type scaleUpdate struct {
	r     *ScaleREST
	name  string
	inner rest.UpdatedObjectInfo
	opts  *metav1.UpdateOptions
}

func (u *scaleUpdate) Preconditions() *metav1.Preconditions { return u.inner.Preconditions() }

func (u *scaleUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
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
	out := old.DeepCopyObject()
	if err := u.r.m.UpdateReplicas(out, scale.Spec.Replicas); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if rv := scale.ResourceVersion; rv != "" {
		// The caller's resourceVersion guards the write of the workload.
		out.(metav1.ObjectMetaAccessor).GetObjectMeta().SetResourceVersion(rv)
	}
	return out, nil
}

var scaleKind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// attributes describe the update of the scale to admission.
func (u *scaleUpdate) attributes(ctx context.Context, scale, old *autoscalingv1.Scale) *rest.Attributes {
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

// Apply implements rest.Applier: the Scale configuration is applied to
// the workload as a configuration of its spec.replicas, by the workload's
// FieldManager at the scale subresource, so that the manager owns
// spec.replicas there. It never creates.
func (r *ScaleREST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	fm := r.store.FieldManager
	if fm == nil {
		return nil, false, apierrors.NewBadRequest("server-side apply is not available for " + r.store.DefaultQualifiedResource.String() + "/scale")
	}
	parent, err := scaleApplyConfiguration(cfg, fm.Kind(), name, r.m.ReplicasConfiguration)
	if err != nil {
		return nil, false, err
	}
	if opts == nil {
		opts = &metav1.UpdateOptions{}
	}
	info := &scaleApply{r: r, name: name, fm: fm, cfg: parent, manager: opts.FieldManager, force: force, opts: opts}
	obj, _, err := r.store.Update(ctx, name, info, nil, nil, false, opts)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.toScale(obj)
	return scale, false, err
}

// scaleApplyConfiguration turns the apply configuration of an
// autoscaling/v1 Scale into one of the workload of kind parent named
// name, whose replicas path withReplicas builds.
func scaleApplyConfiguration(cfg map[string]any, parent schema.GroupVersionKind, name string, withReplicas func(int64) map[string]any) (map[string]any, error) {
	apiVersion, _ := cfg["apiVersion"].(string)
	kind, _ := cfg["kind"].(string)
	if gv, err := schema.ParseGroupVersion(apiVersion); err != nil || gv.WithKind(kind) != scaleKind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid object type: %s, Kind=%s", apiVersion, kind))
	}
	meta, _ := cfg["metadata"].(map[string]any)
	if meta != nil && meta["managedFields"] != nil {
		return nil, apierrors.NewBadRequest("metadata.managedFields must be nil")
	}
	out := map[string]any{}
	if spec, ok := cfg["spec"].(map[string]any); ok {
		if v, ok := spec["replicas"]; ok && v != nil {
			n, ok := toInt64(v)
			if !ok {
				return nil, apierrors.NewInvalid(scaleKind.GroupKind(), name, field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), v, "must be an integer")})
			}
			if n < 0 {
				return nil, apierrors.NewInvalid(scaleKind.GroupKind(), name, field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), n, "must be greater than or equal to 0")})
			}
			out = withReplicas(n)
		}
	}
	pmeta := map[string]any{"name": name}
	if meta != nil {
		if rv, ok := meta["resourceVersion"].(string); ok && rv != "" {
			pmeta["resourceVersion"] = rv
		}
	}
	out["apiVersion"] = parent.GroupVersion().String()
	out["kind"] = parent.Kind
	out["metadata"] = pmeta
	return out, nil
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n != float64(int64(n)) {
			return 0, false
		}
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// scaleApply applies a Scale's configuration, translated to the
// workload's, inside the workload's compare-and-swap loop, with the
// admission of the Scale.
type scaleApply struct {
	r       *ScaleREST
	name    string
	fm      *fieldmanager.FieldManager
	cfg     map[string]any
	manager string
	force   bool
	opts    *metav1.UpdateOptions
}

func (a *scaleApply) Preconditions() *metav1.Preconditions { return nil }

// RecordsManagedFields tells the Store the apply set managedFields.
func (a *scaleApply) RecordsManagedFields() bool { return true }

func (a *scaleApply) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(a.r.store.DefaultQualifiedResource, a.name)
	}
	out, err := a.fm.Apply(old, a.cfg, a.manager, a.force)
	if err != nil {
		return nil, err
	}
	oldScale, err := a.r.toScale(old)
	if err != nil {
		return nil, err
	}
	newScale, err := a.r.toScale(out)
	if err != nil {
		return nil, err
	}
	u := &scaleUpdate{r: a.r, name: a.name, opts: a.opts}
	attrs := u.attributes(ctx, newScale, oldScale)
	if err := rest.Admit(ctx, a.r.admission, attrs); err != nil {
		return nil, err
	}
	if err := rest.Validate(ctx, a.r.admission, attrs); err != nil {
		return nil, err
	}
	return out, nil
}
