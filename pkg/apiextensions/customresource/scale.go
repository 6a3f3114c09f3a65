package customresource

import (
	"context"
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// scaleSpec is a version's scale subresource: where the replica counts
// and the selector live in its objects.
type scaleSpec struct {
	specReplicas   []string
	statusReplicas []string
	labelSelector  []string
}

// newScaleSpec parses the paths (".spec.replicas") of a scale subresource.
func newScaleSpec(s *apiextensionsv1.CustomResourceSubresourceScale) *scaleSpec {
	if s == nil {
		return nil
	}
	out := &scaleSpec{specReplicas: SplitPath(s.SpecReplicasPath), statusReplicas: SplitPath(s.StatusReplicasPath)}
	if s.LabelSelectorPath != nil {
		out.labelSelector = SplitPath(*s.LabelSelectorPath)
	}
	return out
}

// SplitPath splits a simple JSON path (".spec.replicas") into its fields.
func SplitPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// validate checks the values at the scale paths: replica counts are
// integers from 0 to the int32 maximum, the selector a string.
func (s *scaleSpec) validate(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, path := range [][]string{s.specReplicas, s.statusReplicas} {
		v := unstructured.NestedField(obj, path...)
		if v == nil {
			continue
		}
		p := field.NewPath(path[0], path[1:]...)
		n, ok := unstructured.Int64(v)
		switch {
		case !ok:
			errs = append(errs, field.Invalid(p, v, "should be an integer"))
		case n < 0:
			errs = append(errs, field.Invalid(p, n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			errs = append(errs, field.Invalid(p, n, fmt.Sprintf("should be less than or equal to %d", math.MaxInt32)))
		}
	}
	if s.labelSelector != nil {
		if v := unstructured.NestedField(obj, s.labelSelector...); v != nil {
			if _, ok := v.(string); !ok {
				errs = append(errs, field.Invalid(field.NewPath(s.labelSelector[0], s.labelSelector[1:]...), v, "should be a string"))
			}
		}
	}
	return errs
}

// replicas reads the integer at path, 0 when absent.
func replicas(obj map[string]any, path []string) int32 {
	n, _ := unstructured.Int64(unstructured.NestedField(obj, path...))
	return int32(n)
}

// ScaleREST serves /scale of custom objects as an autoscaling/v1 Scale.
type ScaleREST struct {
	store *generic.Store
	spec  *scaleSpec
	// fm records managedFields at /scale (nil: none).
	fm *fieldmanager.FieldManager
}

var (
	_ rest.Getter       = (*ScaleREST)(nil)
	_ rest.Updater      = (*ScaleREST)(nil)
	_ rest.KindProvider = (*ScaleREST)(nil)
)

// New implements rest.Storage.
func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy implements rest.Storage; the main resource owns the storage.
func (r *ScaleREST) Destroy() {}

// GroupVersionKind implements rest.KindProvider: autoscaling/v1 Scale.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
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
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("unexpected object of type %T", obj))
	}
	m := u.GetObjectMeta()
	scale := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: autoscalingv1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas(u.Object, r.spec.specReplicas)},
		Status: autoscalingv1.ScaleStatus{Replicas: replicas(u.Object, r.spec.statusReplicas)},
	}
	if r.spec.labelSelector != nil {
		scale.Status.Selector = unstructured.NestedString(u.Object, r.spec.labelSelector...)
	}
	return scale, nil
}

// Update implements rest.Updater: it writes spec replicas of the object
// from the Scale the request computes. It never creates.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, _ rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdate{r: r, name: name, inner: objInfo, manager: scaleManager(ctx, opts)}, nil, nil, false, opts)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.toScale(obj)
	return scale, false, err
}

// scaleUpdate turns the update of a Scale into one of the object.
type scaleUpdate struct {
	r       *ScaleREST
	name    string
	inner   rest.UpdatedObjectInfo
	manager string
}

// RecordsManagedFields tells the Store the update was recorded at /scale.
func (u *scaleUpdate) RecordsManagedFields() bool { return u.r.fm != nil }

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
	if scale.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: autoscalingv1.GroupName, Kind: "Scale"}, scale.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0"),
		})
	}
	if scale.Name != "" && scale.Name != u.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", scale.Name, u.name))
	}
	out := old.DeepCopyObject().(*unstructured.Unstructured)
	unstructured.SetNestedField(out.Object, int64(scale.Spec.Replicas), u.r.spec.specReplicas...)
	if rv := scale.ResourceVersion; rv != "" {
		// The caller's resourceVersion guards the write of the object.
		out.SetResourceVersion(rv)
	}
	if u.r.fm != nil {
		return u.r.fm.UpdateNoErrors(old, out, u.manager), nil
	}
	return out, nil
}

// scaleManager is the field manager of a write to /scale.
func scaleManager(ctx context.Context, opts *metav1.UpdateOptions) string {
	var fm string
	if opts != nil {
		fm = opts.FieldManager
	}
	return fieldmanager.ManagerName(fm, apirequest.UserAgentValue(ctx))
}
