package runtime

import (
	"fmt"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/runtime/strictjson"
)

// Scheme knows the Go type of every registered kind, the kinds of every
// registered type, the resource each kind is served as, and the defaulting
// functions of each type.
//
// Register everything first (API packages do it from AddToScheme); after
// that a Scheme is read-only and safe for concurrent use. Registration
// mistakes, such as two types under one kind, are programming errors and
// panic, as they would on the first run of any test.
type Scheme struct {
	name string

	gvkToType map[schema.GroupVersionKind]reflect.Type
	// typeToGVK is keyed by the pointer type of the objects; the first kind
	// of each type is the one it encodes as.
	typeToGVK   map[reflect.Type][]schema.GroupVersionKind
	unversioned map[reflect.Type]bool
	// versions lists the group versions in the order they were first
	// registered, which is also their priority within a group.
	versions []schema.GroupVersion

	kindToResource map[schema.GroupVersionKind]schema.GroupVersionResource
	resourceToKind map[schema.GroupVersionResource]schema.GroupVersionKind

	defaulters map[reflect.Type][]func(any)

	// json decodes into registered types and caches their field layout.
	json strictjson.Decoder
}

// NewScheme returns an empty scheme named after the place that created it,
// so that its errors say which scheme did not know a kind.
func NewScheme() *Scheme {
	return &Scheme{
		name:           callerName(),
		gvkToType:      map[schema.GroupVersionKind]reflect.Type{},
		typeToGVK:      map[reflect.Type][]schema.GroupVersionKind{},
		unversioned:    map[reflect.Type]bool{},
		kindToResource: map[schema.GroupVersionKind]schema.GroupVersionResource{},
		resourceToKind: map[schema.GroupVersionResource]schema.GroupVersionKind{},
		defaulters:     map[reflect.Type][]func(any){},
	}
}

// callerName returns "import/path/file.go:line" of NewScheme's caller.
func callerName() string {
	pc, file, line, ok := goruntime.Caller(2)
	if !ok {
		return "unknown"
	}
	base := file[strings.LastIndexByte(file, '/')+1:]
	if fn := goruntime.FuncForPC(pc); fn != nil {
		name := fn.Name()
		// The package path ends at the first dot after the last slash.
		slash := strings.LastIndexByte(name, '/')
		if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
			return fmt.Sprintf("%s/%s:%d", name[:slash+1+dot], base, line)
		}
	}
	return fmt.Sprintf("%s:%d", base, line)
}

// Name identifies the scheme in error messages.
func (s *Scheme) Name() string { return s.name }

// AddKnownTypes registers each type under gv with its Go type name as kind.
// Types must be pointers to structs, e.g. &Pod{}.
func (s *Scheme) AddKnownTypes(gv schema.GroupVersion, types ...Object) {
	for _, obj := range types {
		t := objectType(obj)
		s.AddKnownTypeWithName(gv.WithKind(t.Elem().Name()), obj)
	}
}

// AddUnversionedTypes registers types whose wire form is the same in every
// group version, such as Status: they always encode as gv.
func (s *Scheme) AddUnversionedTypes(gv schema.GroupVersion, types ...Object) {
	s.AddKnownTypes(gv, types...)
	for _, obj := range types {
		s.unversioned[objectType(obj)] = true
	}
}

// AddKnownTypeWithName registers obj's type under gvk. Registering the same
// type twice is harmless; a second type for one kind panics.
func (s *Scheme) AddKnownTypeWithName(gvk schema.GroupVersionKind, obj Object) {
	t := objectType(obj)
	if gvk.Version == "" || gvk.Kind == "" {
		panic(fmt.Sprintf("runtime: register %v: version and kind are required, got %q", t, gvk.String()))
	}
	if old, ok := s.gvkToType[gvk]; ok {
		if old != t {
			panic(fmt.Sprintf("runtime: double registration of different types for %v: old=%v, new=%v in scheme %q", gvk, old, t, s.name))
		}
		return
	}
	s.gvkToType[gvk] = t
	s.typeToGVK[t] = append(s.typeToGVK[t], gvk)
	if gv := gvk.GroupVersion(); !slices.Contains(s.versions, gv) {
		s.versions = append(s.versions, gv)
	}
	if _, ok := s.kindToResource[gvk]; !ok && !isListKind(gvk.Kind) {
		plural, _ := KindToResource(gvk)
		s.kindToResource[gvk] = plural
		if _, taken := s.resourceToKind[plural]; !taken {
			s.resourceToKind[plural] = gvk
		}
	}
}

// objectType returns the type of a registered object and panics on anything
// but a non-nil pointer to a struct.
func objectType(obj Object) reflect.Type {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("runtime: registered types must be pointers to structs, got %v", t))
	}
	return t
}

// isListKind reports whether kind names the list of another kind (PodList);
// lists are served by their item's resource.
func isListKind(kind string) bool {
	return len(kind) > len("List") && strings.HasSuffix(kind, "List")
}

// New returns a new, empty object of the registered kind.
func (s *Scheme) New(gvk schema.GroupVersionKind) (Object, error) {
	t, ok := s.gvkToType[gvk]
	if !ok {
		return nil, NewNotRegisteredErrForKind(s.name, gvk)
	}
	return reflect.New(t.Elem()).Interface().(Object), nil
}

// Recognizes reports whether gvk is registered.
func (s *Scheme) Recognizes(gvk schema.GroupVersionKind) bool {
	_, ok := s.gvkToType[gvk]
	return ok
}

// ObjectKinds returns every kind obj's type is registered as, the one it
// encodes as first, and whether the type is unversioned.
func (s *Scheme) ObjectKinds(obj Object) ([]schema.GroupVersionKind, bool, error) {
	t := reflect.TypeOf(obj)
	gvks, ok := s.typeToGVK[t]
	if !ok {
		return nil, false, NewNotRegisteredErrForType(s.name, t)
	}
	return gvks, s.unversioned[t], nil
}

// ObjectKind returns the kind obj's type encodes as.
func (s *Scheme) ObjectKind(obj Object) (schema.GroupVersionKind, error) {
	gvks, _, err := s.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gvks[0], nil
}

// KnownTypes returns the struct types registered in gv by kind.
func (s *Scheme) KnownTypes(gv schema.GroupVersion) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for gvk, t := range s.gvkToType {
		if gvk.GroupVersion() == gv {
			out[gvk.Kind] = t.Elem()
		}
	}
	return out
}

// AllKnownTypes returns every registered kind with its struct type.
func (s *Scheme) AllKnownTypes() map[schema.GroupVersionKind]reflect.Type {
	out := make(map[schema.GroupVersionKind]reflect.Type, len(s.gvkToType))
	for gvk, t := range s.gvkToType {
		out[gvk] = t.Elem()
	}
	return out
}

// IsGroupRegistered reports whether any version of group is registered.
func (s *Scheme) IsGroupRegistered(group string) bool {
	return slices.ContainsFunc(s.versions, func(gv schema.GroupVersion) bool { return gv.Group == group })
}

// IsVersionRegistered reports whether any kind of gv is registered.
func (s *Scheme) IsVersionRegistered(gv schema.GroupVersion) bool {
	return slices.Contains(s.versions, gv)
}

// PrioritizedVersionsForGroup returns the registered versions of group,
// the preferred one first.
func (s *Scheme) PrioritizedVersionsForGroup(group string) []schema.GroupVersion {
	var out []schema.GroupVersion
	for _, gv := range s.versions {
		if gv.Group == group {
			out = append(out, gv)
		}
	}
	return out
}

// PrioritizedVersionsAllGroups returns every registered group version, each
// group's preferred version before its others.
func (s *Scheme) PrioritizedVersionsAllGroups() []schema.GroupVersion {
	return slices.Clone(s.versions)
}

// AddTypeDefaultingFunc registers fn to default objects of srcType's type.
// fn receives the object itself (the same pointer type as srcType).
// Several functions for one type run in registration order.
func (s *Scheme) AddTypeDefaultingFunc(srcType Object, fn func(any)) {
	t := objectType(srcType)
	s.defaulters[t] = append(s.defaulters[t], fn)
}

// AddDefaultingFunc registers a typed defaulting function:
//
//	runtime.AddDefaultingFunc(scheme, func(p *corev1.Pod) { ... })
func AddDefaultingFunc[T Object](s *Scheme, fn func(T)) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("runtime: defaulted types must be pointers to structs, got %v", t))
	}
	s.defaulters[t] = append(s.defaulters[t], func(obj any) { fn(obj.(T)) })
}

// Default applies the defaulting functions of obj's type, if any.
func (s *Scheme) Default(obj Object) {
	for _, fn := range s.defaulters[reflect.TypeOf(obj)] {
		fn(obj)
	}
}

// SetResource makes resource the plural resource name of gvk, replacing the
// guessed one.
func (s *Scheme) SetResource(gvk schema.GroupVersionKind, resource string) {
	if old, ok := s.kindToResource[gvk]; ok && s.resourceToKind[old] == gvk {
		delete(s.resourceToKind, old)
	}
	gvr := gvk.GroupVersion().WithResource(resource)
	s.kindToResource[gvk] = gvr
	s.resourceToKind[gvr] = gvk
}

// ResourceFor returns the resource a registered kind is served as.
func (s *Scheme) ResourceFor(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	if gvr, ok := s.kindToResource[gvk]; ok {
		return gvr, nil
	}
	return schema.GroupVersionResource{}, NewNotRegisteredErrForKind(s.name, gvk)
}

// KindFor returns the kind served as a resource.
func (s *Scheme) KindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	if gvk, ok := s.resourceToKind[gvr]; ok {
		return gvk, nil
	}
	return schema.GroupVersionKind{}, &notRegisteredErr{schemeName: s.name, gvr: gvr}
}

// KindToResource guesses the plural and singular resource names of a kind
// the way Kubernetes does: lower case, "s" appended, "es" after a final s,
// "ies" for a final y, and kinds ending in "endpoints" left alone.
func KindToResource(gvk schema.GroupVersionKind) (plural, singular schema.GroupVersionResource) {
	gv := gvk.GroupVersion()
	name := strings.ToLower(gvk.Kind)
	singular = gv.WithResource(name)
	switch {
	case name == "":
		return singular, singular
	case strings.HasSuffix(name, "endpoints"):
		return singular, singular
	case strings.HasSuffix(name, "s"):
		return gv.WithResource(name + "es"), singular
	case strings.HasSuffix(name, "y"):
		return gv.WithResource(strings.TrimSuffix(name, "y") + "ies"), singular
	}
	return gv.WithResource(name + "s"), singular
}
