// Package customresource serves the objects of one CustomResourceDefinition
// version through the generic Store: an unstructured strategy that
// validates, prunes and defaults with the version's schema, the status and
// scale subresources, printer columns, and the storage decorator that
// rewrites apiVersion between the served and the storage version.
package customresource

import (
	"context"
	"fmt"
	"reflect"

	"kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
	"kubecore.io/kubecore/pkg/cel"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// strategy is the create, update and delete behaviour of custom objects of
// one version.
type strategy struct {
	namespaced bool
	kind       schema.GroupVersionKind
	schema     *apischema.Structural
	// status: the version has a status subresource, so the main resource
	// ignores status and /status ignores everything else.
	status bool
	// scale, when set, is the version's scale subresource.
	scale *scaleSpec
	// rules are the version's compiled x-kubernetes-validations, nil
	// when it has none.
	rules *cel.Validator
}

var (
	_ rest.CreateStrategy = (*strategy)(nil)
	_ rest.UpdateStrategy = (*strategy)(nil)
	_ rest.DeleteStrategy = (*strategy)(nil)
)

func (s *strategy) NamespaceScoped() bool          { return s.namespaced }
func (s *strategy) AllowCreateOnUpdate() bool      { return false }
func (s *strategy) AllowUnconditionalUpdate() bool { return false }

// content returns the JSON map of a custom object.
func content(obj runtime.Object) map[string]any {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	return u.Object
}

// normalize defaults and prunes obj with the schema; what a request body
// got in decoding, for writes made in-process too.
func (s *strategy) normalize(obj map[string]any) {
	apischema.Default(obj, s.schema)
	apischema.Prune(obj, s.schema)
}

// PrepareForCreate implements rest.CreateStrategy: generation 1, and no
// status when /status owns it.
func (s *strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	c := content(obj)
	if c == nil {
		return
	}
	if s.status {
		delete(c, "status")
	}
	s.normalize(c)
	u := obj.(*unstructured.Unstructured)
	u.GetObjectMeta().SetGeneration(1)
}

// PrepareForUpdate implements rest.UpdateStrategy: the stored status is
// kept when /status owns it, and the generation goes up when anything but
// metadata and status changed.
func (s *strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	c, oc := content(obj), content(old)
	if c == nil || oc == nil {
		return
	}
	if s.status {
		copyKey(c, oc, "status")
	}
	s.normalize(c)
	if !equalIgnoring(c, oc, "metadata", "status") {
		m := obj.(*unstructured.Unstructured).GetObjectMeta()
		m.SetGeneration(old.(*unstructured.Unstructured).GetObjectMeta().GetGeneration() + 1)
	}
}

// copyKey makes dst[key] what src[key] is (absent when absent).
func copyKey(dst, src map[string]any, key string) {
	if v, ok := src[key]; ok {
		dst[key] = unstructured.DeepCopyJSONValue(v)
		return
	}
	delete(dst, key)
}

// equalIgnoring compares two objects without the given top-level keys.
func equalIgnoring(a, b map[string]any, ignore ...string) bool {
	strip := func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		for _, k := range ignore {
			delete(out, k)
		}
		return out
	}
	return reflect.DeepEqual(normalizeNumbers(strip(a)), normalizeNumbers(strip(b)))
}

// normalizeNumbers turns every number into its decimal text, so that the
// int64 of a request and the json.Number of storage compare equal.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalizeNumbers(e)
		}
		return out
	case bool, string, nil:
		return t
	}
	return fmt.Sprint(v)
}

// Validate implements rest.CreateStrategy.
func (s *strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	errs := s.validate(obj)
	return append(errs, s.rules.Validate(ctx, content(obj), nil, nil)...)
}

func (s *strategy) validate(obj runtime.Object) field.ErrorList {
	c := content(obj)
	if c == nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("unexpected object of type %T", obj))}
	}
	u := obj.(*unstructured.Unstructured)
	var errs field.ErrorList
	if name := u.GetName(); name != "" {
		for _, msg := range validation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	errs = append(errs, apischema.Validate(s.schema, c)...)
	if s.scale != nil {
		errs = append(errs, s.scale.validate(c)...)
	}
	return errs
}

// ValidateUpdate implements rest.UpdateStrategy; transition rules see
// the stored object as oldSelf.
func (s *strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.validate(obj)
	return append(errs, s.rules.Validate(ctx, content(obj), content(old), nil)...)
}

// WarningsOnCreate implements rest.CreateStrategy.
func (s *strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// WarningsOnUpdate implements rest.UpdateStrategy.
func (s *strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Canonicalize implements rest.CreateStrategy.
func (s *strategy) Canonicalize(runtime.Object) {}

// statusStrategy is the update strategy of /status: everything but the
// status (and the resourceVersion guarding the write) is the stored
// object's.
type statusStrategy struct{ *strategy }

// PrepareForUpdate implements rest.UpdateStrategy.
func (s statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	c, oc := content(obj), content(old)
	if c == nil || oc == nil {
		return
	}
	status, hasStatus := c["status"]
	rv := obj.(*unstructured.Unstructured).GetResourceVersion()
	// The managedFields were recorded for this status write: keep them.
	var managed any
	if md, ok := c["metadata"].(map[string]any); ok {
		managed = md["managedFields"]
	}
	for k := range c {
		delete(c, k)
	}
	for k, v := range oc {
		c[k] = unstructured.DeepCopyJSONValue(v)
	}
	if hasStatus {
		c["status"] = status
	} else {
		delete(c, "status")
	}
	obj.(*unstructured.Unstructured).SetResourceVersion(rv)
	if md, ok := c["metadata"].(map[string]any); ok {
		if managed != nil {
			md["managedFields"] = managed
		} else {
			delete(md, "managedFields")
		}
	}
	s.normalize(c)
}
