// Package strategy is the registry side every per-resource strategy shares:
// a Strategy built from a few functions, the status and generation rules of
// resources with a spec, and the Stores of a resource and its status and
// scale subresources.
package strategy

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// Strategy is a resource's create, update and delete behaviour, made of the
// functions its resource package gives. T is the resource's pointer type
// (*v1.Pod). Nil functions do nothing.
type Strategy[T runtime.Object] struct {
	// Namespaced says the resource lives in namespaces.
	Namespaced bool
	// StatusSubresource: clients write .status only through /status, so
	// the main resource clears it on create and keeps the stored one on
	// update.
	StatusSubresource bool
	// Generation: metadata.generation is 1 on create and bumped when .spec
	// changes.
	Generation bool
	// CreateOnUpdate lets PUT create a missing object.
	CreateOnUpdate bool
	// ConditionalUpdate refuses a PUT without resourceVersion.
	ConditionalUpdate bool
	// OrphanByDefault: a delete that names no propagation orphans the
	// dependents (batch/v1 Jobs keep this old default) instead of
	// deleting them in the background.
	OrphanByDefault bool

	// PrepareCreate and PrepareUpdate clear or keep what clients may not
	// set, after the status and generation rules.
	PrepareCreate func(ctx context.Context, obj T)
	PrepareUpdate func(ctx context.Context, obj, old T)
	// ValidateFunc and ValidateUpdateFunc return the field errors: the
	// validation functions of pkg/apis/<group>/validation.
	ValidateFunc       func(obj T) field.ErrorList
	ValidateUpdateFunc func(obj, old T) field.ErrorList
	// Warn returns the warnings of a write.
	Warn func(obj T) []string
	// CanonicalizeFunc normalizes obj before it is stored.
	CanonicalizeFunc func(obj T)
}

// Namespaced is the strategy of a namespaced resource that only validates.
func Namespaced[T runtime.Object](validate func(T) field.ErrorList, validateUpdate func(obj, old T) field.ErrorList) *Strategy[T] {
	return &Strategy[T]{Namespaced: true, ValidateFunc: validate, ValidateUpdateFunc: validateUpdate}
}

// ClusterScoped is the strategy of a cluster-scoped resource that only
// validates.
func ClusterScoped[T runtime.Object](validate func(T) field.ErrorList, validateUpdate func(obj, old T) field.ErrorList) *Strategy[T] {
	return &Strategy[T]{ValidateFunc: validate, ValidateUpdateFunc: validateUpdate}
}

// ValidateNew is a ValidateUpdateFunc that validates the new object alone.
func ValidateNew[T runtime.Object](validate func(T) field.ErrorList) func(obj, old T) field.ErrorList {
	return func(obj, _ T) field.ErrorList { return validate(obj) }
}

var (
	_ rest.CreateStrategy                  = (*Strategy[*metav1.Status])(nil)
	_ rest.UpdateStrategy                  = (*Strategy[*metav1.Status])(nil)
	_ rest.DeleteStrategy                  = (*Strategy[*metav1.Status])(nil)
	_ rest.GarbageCollectionDeleteStrategy = (*Strategy[*metav1.Status])(nil)
)

// DefaultGarbageCollectionPolicy implements
// rest.GarbageCollectionDeleteStrategy.
func (s *Strategy[T]) DefaultGarbageCollectionPolicy(context.Context) metav1.DeletionPropagation {
	if s.OrphanByDefault {
		return metav1.DeletePropagationOrphan
	}
	return metav1.DeletePropagationBackground
}

// NamespaceScoped implements rest.CreateStrategy.
func (s *Strategy[T]) NamespaceScoped() bool { return s.Namespaced }

// AllowCreateOnUpdate implements rest.UpdateStrategy.
func (s *Strategy[T]) AllowCreateOnUpdate() bool { return s.CreateOnUpdate }

// AllowUnconditionalUpdate implements rest.UpdateStrategy.
func (s *Strategy[T]) AllowUnconditionalUpdate() bool { return !s.ConditionalUpdate }

// GetResetFields implements rest.ResetFieldsStrategy: a resource with a
// status subresource keeps its status on update.
func (s *Strategy[T]) GetResetFields() *fieldpath.Set {
	if !s.StatusSubresource {
		return nil
	}
	return fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
}

// PrepareForCreate implements rest.CreateStrategy.
func (s *Strategy[T]) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	o, ok := obj.(T)
	if !ok {
		return
	}
	if s.StatusSubresource {
		ClearField(o, "Status")
	}
	if s.Generation {
		Meta(o).Generation = 1
	}
	if s.PrepareCreate != nil {
		s.PrepareCreate(ctx, o)
	}
}

// PrepareForUpdate implements rest.UpdateStrategy.
func (s *Strategy[T]) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	o, ok1 := obj.(T)
	prev, ok2 := old.(T)
	if !ok1 || !ok2 {
		return
	}
	if s.StatusSubresource {
		CopyField(o, prev, "Status")
	}
	if s.Generation {
		BumpGeneration(o, prev)
	}
	if s.PrepareUpdate != nil {
		s.PrepareUpdate(ctx, o, prev)
	}
}

// Validate implements rest.CreateStrategy.
func (s *Strategy[T]) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	o, ok := obj.(T)
	if !ok {
		return typeError(obj)
	}
	if s.ValidateFunc == nil {
		return nil
	}
	return s.ValidateFunc(o)
}

// ValidateUpdate implements rest.UpdateStrategy.
func (s *Strategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateUpdate(s.ValidateUpdateFunc, obj, old)
}

// validateUpdate runs validate (nil for none) on obj and old as Ts.
func validateUpdate[T runtime.Object](validate func(obj, old T) field.ErrorList, obj, old runtime.Object) field.ErrorList {
	o, ok := obj.(T)
	if !ok {
		return typeError(obj)
	}
	prev, ok := old.(T)
	if !ok {
		return typeError(old)
	}
	if validate == nil {
		return nil
	}
	return validate(o, prev)
}

// WarningsOnCreate implements rest.CreateStrategy.
func (s *Strategy[T]) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	if o, ok := obj.(T); ok && s.Warn != nil {
		return s.Warn(o)
	}
	return nil
}

// WarningsOnUpdate implements rest.UpdateStrategy.
func (s *Strategy[T]) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return s.WarningsOnCreate(context.Background(), obj)
}

// Canonicalize implements rest.CreateStrategy.
func (s *Strategy[T]) Canonicalize(obj runtime.Object) {
	if o, ok := obj.(T); ok && s.CanonicalizeFunc != nil {
		s.CanonicalizeFunc(o)
	}
}

// StatusStrategy is the update strategy of a /status subresource: it keeps
// the stored spec and validates with ValidateStatus. The metadata of the
// write is stored as sent, as most of Kubernetes' status endpoints do (a
// status patch may also set an annotation); ResetMetadata keeps the stored
// labels, annotations, finalizers and owners instead, as the newer
// resources of Kubernetes do.
type StatusStrategy[T runtime.Object] struct {
	Namespaced bool
	// ResetMetadata: the write's labels, annotations, finalizers and
	// owner references are ignored.
	ResetMetadata bool
	// ValidateStatus returns the field errors of a status update.
	ValidateStatus func(obj, old T) field.ErrorList
	// PrepareStatus keeps more of the stored object, after the spec.
	PrepareStatus func(ctx context.Context, obj, old T)
}

var _ rest.UpdateStrategy = (*StatusStrategy[*metav1.Status])(nil)

// NamespaceScoped implements rest.UpdateStrategy.
func (s *StatusStrategy[T]) NamespaceScoped() bool { return s.Namespaced }

// AllowCreateOnUpdate implements rest.UpdateStrategy: /status never creates.
func (s *StatusStrategy[T]) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate implements rest.UpdateStrategy.
func (s *StatusStrategy[T]) AllowUnconditionalUpdate() bool { return true }

// GetResetFields implements rest.ResetFieldsStrategy: what
// PrepareForUpdate keeps from the stored object.
func (s *StatusStrategy[T]) GetResetFields() *fieldpath.Set {
	if !s.ResetMetadata {
		return fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))
	}
	return fieldpath.NewSet(
		fieldpath.MakePathOrDie("spec"),
		fieldpath.MakePathOrDie("metadata", "labels"),
		fieldpath.MakePathOrDie("metadata", "annotations"),
		fieldpath.MakePathOrDie("metadata", "finalizers"),
		fieldpath.MakePathOrDie("metadata", "ownerReferences"),
	)
}

// PrepareForUpdate implements rest.UpdateStrategy.
func (s *StatusStrategy[T]) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	o, ok1 := obj.(T)
	prev, ok2 := old.(T)
	if !ok1 || !ok2 {
		return
	}
	CopyField(o, prev, "Spec")
	if s.ResetMetadata {
		m, pm := Meta(o), Meta(prev)
		m.Labels, m.Annotations = pm.Labels, pm.Annotations
		m.Finalizers, m.OwnerReferences = pm.Finalizers, pm.OwnerReferences
	}
	if s.PrepareStatus != nil {
		s.PrepareStatus(ctx, o, prev)
	}
}

// ValidateUpdate implements rest.UpdateStrategy.
func (s *StatusStrategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateUpdate(s.ValidateStatus, obj, old)
}

// WarningsOnUpdate implements rest.UpdateStrategy.
func (s *StatusStrategy[T]) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Canonicalize implements rest.UpdateStrategy.
func (s *StatusStrategy[T]) Canonicalize(runtime.Object) {}

func typeError(obj runtime.Object) field.ErrorList {
	return field.ErrorList{field.InternalError(nil, fmt.Errorf("unexpected object of type %T", obj))}
}

// Meta returns obj's object metadata; every API object has one.
func Meta(obj runtime.Object) *metav1.ObjectMeta {
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok {
			return m
		}
	}
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
		if f := v.Elem().FieldByName("ObjectMeta"); f.IsValid() {
			if m, ok := f.Addr().Interface().(*metav1.ObjectMeta); ok {
				return m
			}
		}
	}
	return &metav1.ObjectMeta{}
}

// structField returns the named field of the struct obj points to.
func structField(obj any, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.Elem().FieldByName(name)
	return f, f.IsValid() && f.CanSet()
}

// ClearField sets the named field of *obj ("Status") to its zero value.
func ClearField(obj any, name string) {
	if f, ok := structField(obj, name); ok {
		f.SetZero()
	}
}

// CopyField sets the named field of *dst to that of *src. src is not
// modified; dst shares its value, as objects from storage are not shared.
func CopyField(dst, src any, name string) {
	d, ok1 := structField(dst, name)
	s, ok2 := structField(src, name)
	if ok1 && ok2 && d.Type() == s.Type() {
		d.Set(s)
	}
}

// FieldChanged reports whether the named fields of *a and *b differ in
// their JSON form, which ignores nil against empty and equal quantities
// written differently.
func FieldChanged(a, b any, name string) bool {
	fa, ok1 := structField(a, name)
	fb, ok2 := structField(b, name)
	if !ok1 || !ok2 {
		return false
	}
	ja, err1 := json.Marshal(fa.Interface())
	jb, err2 := json.Marshal(fb.Interface())
	if err1 != nil || err2 != nil {
		return !reflect.DeepEqual(fa.Interface(), fb.Interface())
	}
	return string(ja) != string(jb)
}

// BumpGeneration sets obj's generation one past old's when the spec
// changed and to old's otherwise.
func BumpGeneration(obj, old runtime.Object) {
	m, pm := Meta(obj), Meta(old)
	m.Generation = pm.Generation
	if FieldChanged(obj, old, "Spec") {
		m.Generation = pm.Generation + 1
	}
}
