package fieldmanager

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// DefaultMaxUpdateManagers is how many Update managers an object keeps
// before the oldest are merged into one "ancient-changes" entry per API
// version.
const DefaultMaxUpdateManagers = 10

// ancientChanges names the entry old Update managers are merged into.
const ancientChanges = "ancient-changes"

// Options configure the FieldManager of one kind at one endpoint (the main
// resource or a subresource).
type Options struct {
	// Kind is the kind the endpoint reads and writes; apply configurations
	// must name it.
	Kind schema.GroupVersionKind
	// Subresource is "" for the main resource, or "status", "scale", ...
	Subresource string
	// TypeConverter knows Kind's type.
	TypeConverter *TypeConverter
	// New returns an empty object of Kind: the live object of a create. Nil
	// for custom kinds, whose objects are *unstructured.Unstructured.
	New func() runtime.Object
	// Default fills defaults into an object an apply produced (the
	// scheme's defaulting); optional.
	Default func(runtime.Object)
	// ResetFields are the fields the endpoint's strategy resets, which no
	// request through it can own: status at the main resource, everything
	// but status at /status. Optional.
	ResetFields *fieldpath.Set
	// MaxUpdateManagers caps the Update entries; DefaultMaxUpdateManagers
	// when zero.
	MaxUpdateManagers int
	// Now is the clock of the entries' times; time.Now when nil.
	Now func() time.Time
}

// FieldManager maintains the managedFields of one kind's objects at one
// endpoint. It is safe for concurrent use.
type FieldManager struct {
	opts       Options
	typ        typed.ParseableType
	apiVersion fieldpath.APIVersion
	updater    *merge.Updater
	strip      *fieldpath.Set
	// empty is the empty object of a create as a value, made once (it is
	// only read); slowCreate turns the create fast path off (tests).
	empty      value.Value
	slowCreate bool
	// compareWhole makes updates compare whole objects, equal top-level
	// fields included (tests; see toTypedPair).
	compareWhole bool
	// emptyShape is empty as plain maps, lists and scalars; shapes caches
	// the FieldsV1 of creates by the new object's shape (Go-typed kinds
	// only, nil otherwise). See shape.go.
	emptyShape any
	shapes     *shapeCache
	// lastLogged is when UpdateNoErrors last logged (unix nanoseconds): a
	// failure repeated on every write is logged at most once a second.
	lastLogged atomic.Int64
}

// New makes the FieldManager opts describe.
func New(opts Options) (*FieldManager, error) {
	if opts.TypeConverter == nil {
		return nil, fmt.Errorf("field manager for %s: no type converter", opts.Kind)
	}
	typ, ok := opts.TypeConverter.Type(opts.Kind)
	if !ok {
		return nil, fmt.Errorf("field manager for %s: no schema for the kind", opts.Kind)
	}
	if opts.MaxUpdateManagers <= 0 {
		opts.MaxUpdateManagers = DefaultMaxUpdateManagers
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	apiVersion := fieldpath.APIVersion(opts.Kind.GroupVersion().String())
	b := &merge.UpdaterBuilder{Converter: sameVersion{}}
	if opts.ResetFields != nil {
		b.IgnoredFields = map[fieldpath.APIVersion]*fieldpath.Set{apiVersion: opts.ResetFields}
	}
	f := &FieldManager{
		opts:       opts,
		typ:        typ,
		apiVersion: apiVersion,
		updater:    b.BuildUpdater(),
		strip:      strippedFields(),
	}
	empty, err := f.toTyped(f.newObject(), true)
	if err != nil {
		return nil, fmt.Errorf("field manager for %s: the empty object: %w", opts.Kind, err)
	}
	// Read as plain maps, its few fields are looked up by name cheaply.
	f.emptyShape = empty.AsValue().Unstructured()
	f.empty = value.NewValueInterface(f.emptyShape)
	if opts.New != nil {
		f.shapes = newShapeCache()
	}
	return f, nil
}

// strippedFields are the fields nobody owns: the type and the metadata the
// server sets.
func strippedFields() *fieldpath.Set {
	return fieldpath.NewSet(
		fieldpath.MakePathOrDie("apiVersion"),
		fieldpath.MakePathOrDie("kind"),
		fieldpath.MakePathOrDie("metadata"),
		fieldpath.MakePathOrDie("metadata", "name"),
		fieldpath.MakePathOrDie("metadata", "namespace"),
		fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
		fieldpath.MakePathOrDie("metadata", "selfLink"),
		fieldpath.MakePathOrDie("metadata", "uid"),
		fieldpath.MakePathOrDie("metadata", "clusterName"),
		fieldpath.MakePathOrDie("metadata", "generation"),
		fieldpath.MakePathOrDie("metadata", "managedFields"),
		fieldpath.MakePathOrDie("metadata", "resourceVersion"),
	)
}

// sameVersion is the version converter of a kind served in one version, or
// of custom kinds whose versions differ only in apiVersion: a field set
// recorded in any version names the same fields.
type sameVersion struct{}

func (sameVersion) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}

func (sameVersion) IsMissingVersionError(error) bool { return false }

// Update records the fields manager changed from live to obj (live is nil
// on create) and returns obj with its managedFields set. managedFields a
// client sent are kept when they decode (a client may edit them), reset
// when they are [] or [{}], and replaced by live's when they do not decode
// or are absent; at a subresource, live's are always used. manager is
// "unknown" when empty.
func (f *FieldManager) Update(live, obj runtime.Object, manager string) (runtime.Object, error) {
	create := live == nil
	if create {
		live = f.newObject()
	}
	liveMeta, err := accessor(live)
	if err != nil {
		return nil, err
	}
	newMeta, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	managed := f.decodeLiveOrNew(liveMeta.GetManagedFields(), newMeta.GetManagedFields())
	newMeta.SetManagedFields(nil)

	const current = "current-operation"
	if create && len(managed.Fields) == 0 && !f.slowCreate {
		return f.create(obj, newMeta, managed, manager, current)
	}
	return f.update(live, obj, newMeta, managed, manager, current)
}

// create records a create with no managedFields to keep: from the cache
// when an object of the same shape was created before, else by the fast
// path (whose result is then cached), else by the slow one.
func (f *FieldManager) create(obj runtime.Object, newMeta metav1.Object, managed *Managed, manager, current string) (runtime.Object, error) {
	var w *shapeWriter
	if f.shapes != nil {
		w = shapeWriters.Get().(*shapeWriter)
		defer shapeWriters.Put(w)
		if !w.shapeKey(obj, f.emptyShape) {
			w = nil
		} else if raw, ok := f.shapes.get(w.buf); ok {
			f.finishCached(newMeta, raw, manager)
			return obj, nil
		}
	}
	done, err := f.createFast(obj, managed, current)
	if err != nil {
		return nil, err
	}
	if !done {
		return f.update(f.newObject(), obj, newMeta, managed, manager, current)
	}
	out, err := f.finishUpdate(obj, newMeta, managed, manager, current)
	if err != nil || w == nil {
		return out, err
	}
	var raw []byte
	switch entries := newMeta.GetManagedFields(); len(entries) {
	case 0:
	case 1:
		if entries[0].FieldsV1 == nil {
			return out, nil
		}
		raw = entries[0].FieldsV1.Raw
	default:
		return out, nil
	}
	f.shapes.put(w.buf, raw)
	return out, nil
}

// finishCached writes the managedFields of a create whose fields are raw
// (nil: none), as finishUpdate writes them: one Update entry of manager.
func (f *FieldManager) finishCached(newMeta metav1.Object, raw []byte, manager string) {
	if raw == nil {
		newMeta.SetManagedFields(nil)
		return
	}
	id := f.identity(manager, OperationUpdate)
	newMeta.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager:     id.Manager,
		Operation:   OperationUpdate,
		APIVersion:  string(f.apiVersion),
		Time:        f.now(),
		FieldsType:  FieldsTypeV1,
		FieldsV1:    &metav1.FieldsV1{Raw: slices.Clone(raw)},
		Subresource: id.Subresource,
	}})
}

// update records the change from live to obj by structured-merge-diff's
// Compare.
func (f *FieldManager) update(live, obj runtime.Object, newMeta metav1.Object, managed *Managed, manager, current string) (runtime.Object, error) {
	liveTyped, newTyped, err := f.toTypedPair(live, obj)
	if err != nil {
		return nil, err
	}
	// The change is recorded under a manager of its own, then merged into
	// manager's entry: the entry's old fields that this change touched
	// were taken from it like from any other manager.
	_, fields, err := f.updater.Update(liveTyped, newTyped, f.apiVersion, managed.Fields, current)
	if err != nil {
		return nil, fmt.Errorf("update managed fields of %s: %w", describe(obj), err)
	}
	managed.Fields = fields
	return f.finishUpdate(obj, newMeta, managed, manager, current)
}

// createFast records a create with no managedFields to keep: the fields
// structured-merge-diff's update would give current, from createFields
// instead of a Compare with the empty object. It reports false when the
// fast path does not apply to obj (the slow path then runs).
func (f *FieldManager) createFast(obj runtime.Object, managed *Managed, current string) (bool, error) {
	newTyped, err := f.toTyped(obj, true)
	if err != nil {
		return false, fmt.Errorf("new object %s: %w", describe(obj), err)
	}
	set, err := createFields(f.typ.Schema, f.typ.TypeRef, f.empty, newTyped.AsValue())
	if err != nil {
		return false, nil
	}
	if f.opts.ResetFields != nil {
		set = set.RecursiveDifference(f.opts.ResetFields)
	}
	if !set.Empty() {
		managed.Fields[current] = fieldpath.NewVersionedSet(set, f.apiVersion, false)
	}
	return true, nil
}

// finishUpdate moves the fields recorded under current to manager's
// Update entry and writes the entries on obj.
func (f *FieldManager) finishUpdate(obj runtime.Object, newMeta metav1.Object, managed *Managed, manager, current string) (runtime.Object, error) {
	f.stripFrom(managed, current)
	key := f.identity(manager, OperationUpdate).key()
	if vs, ok := managed.Fields[current]; ok {
		delete(managed.Fields, current)
		set := vs.Set()
		if previous, ok := managed.Fields[key]; ok {
			set = set.Union(previous.Set())
		}
		managed.Fields[key] = fieldpath.NewVersionedSet(set, vs.APIVersion(), false)
		managed.Times[key] = f.now()
	}
	f.capUpdateManagers(managed)
	entries, err := EncodeManagedFields(managed)
	if err != nil {
		return nil, err
	}
	newMeta.SetManagedFields(entries)
	return obj, nil
}

// UpdateNoErrors is Update for write paths that must not fail because of
// managedFields: on an error (which should not happen) it logs, keeps
// live's managedFields on obj and returns obj.
func (f *FieldManager) UpdateNoErrors(live, obj runtime.Object, manager string) runtime.Object {
	out, err := f.Update(live, obj, manager)
	if err == nil {
		return out
	}
	now, last := time.Now().UnixNano(), f.lastLogged.Load()
	if now-last >= int64(time.Second) && f.lastLogged.CompareAndSwap(last, now) {
		klog.ErrorS(err, "Failed to update managedFields; keeping the previous ones", "kind", f.opts.Kind, "subresource", f.opts.Subresource)
	}
	if newMeta, aerr := accessor(obj); aerr == nil {
		var entries []metav1.ManagedFieldsEntry
		if live != nil {
			if liveMeta, aerr := accessor(live); aerr == nil {
				entries = liveMeta.GetManagedFields()
			}
		}
		newMeta.SetManagedFields(entries)
	}
	return obj
}

func (f *FieldManager) decodeLiveOrNew(live, sent []metav1.ManagedFieldsEntry) *Managed {
	fromLive := func() *Managed {
		m, err := DecodeManagedFields(live)
		if err != nil {
			return newManaged()
		}
		return m
	}
	if f.opts.Subresource != "" {
		return fromLive()
	}
	if isReset(sent) {
		return newManaged()
	}
	m, err := DecodeManagedFields(sent)
	if err != nil || len(m.Fields) == 0 {
		return fromLive()
	}
	return m
}

// Apply merges the apply configuration applied (parsed YAML or JSON) into
// live (nil on create) as manager, and returns the merged object with its
// managedFields. Fields other managers own with other values are
// conflicts: without force, the error is a 409 Status listing them
// (IsConflict); with force, manager takes them over. Fields manager applied
// before and leaves out now are removed unless another manager owns them.
func (f *FieldManager) Apply(live runtime.Object, applied map[string]any, manager string, force bool) (runtime.Object, error) {
	cfg := &unstructured.Unstructured{Object: applied}
	if gvk := cfg.GroupVersionKind(); gvk != f.opts.Kind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid object type: %v", gvk))
	}
	if meta, ok := applied["metadata"].(map[string]any); ok && meta["managedFields"] != nil {
		return nil, apierrors.NewBadRequest("metadata.managedFields must be nil")
	}
	create := live == nil
	if create {
		live = f.newObject()
	}
	liveMeta, err := accessor(live)
	if err != nil {
		return nil, err
	}
	managed, err := DecodeManagedFields(liveMeta.GetManagedFields())
	if err != nil {
		return nil, fmt.Errorf("failed to decode managed fields: %w", err)
	}
	liveTyped, err := f.toTyped(live, true)
	if err != nil {
		return nil, fmt.Errorf("failed to create typed live object (%s): %w", describe(live), err)
	}
	cfgTyped, err := f.typ.FromUnstructured(applied)
	if err != nil {
		return nil, fmt.Errorf("failed to create typed patch object (%s): %w", describe(cfg), err)
	}
	key := f.identity(manager, OperationApply).key()

	merged, fields, err := f.updater.Apply(liveTyped, cfgTyped, f.apiVersion, managed.Fields.Copy(), key, force)
	var conflicts merge.Conflicts
	if errors.As(err, &conflicts) && manager == kubectlManager {
		// kubectl taking over from client-side apply: fields whose values
		// are still those of the last-applied annotation are not conflicts.
		if allowed := f.lastAppliedFields(live, liveTyped); allowed != nil {
			if remaining := conflictsOutside(conflicts, allowed); len(remaining) > 0 {
				err = remaining
			} else {
				merged, fields, err = f.updater.Apply(liveTyped, cfgTyped, f.apiVersion, managed.Fields.Copy(), key, true)
			}
		}
	}
	if err != nil {
		if errors.As(err, &conflicts) {
			return nil, NewConflictError(conflicts)
		}
		return nil, err
	}
	managed.Fields = fields
	f.stripFrom(managed, key)

	var out runtime.Object
	if merged == nil {
		// Nothing changed but, perhaps, ownership.
		out = live.DeepCopyObject()
	} else {
		managed.Times[key] = f.now()
		if out, err = f.fromTyped(merged); err != nil {
			return nil, fmt.Errorf("failed to convert new typed object (%s): %w", describe(cfg), err)
		}
		if f.opts.Default != nil {
			f.opts.Default(out)
		}
	}
	outMeta, err := accessor(out)
	if err != nil {
		return nil, err
	}
	if manager == kubectlManager {
		if err := syncLastApplied(outMeta, applied); err != nil {
			return nil, err
		}
	}
	entries, err := EncodeManagedFields(managed)
	if err != nil {
		return nil, err
	}
	outMeta.SetManagedFields(entries)
	return out, nil
}

// identity is who manager is at this endpoint for operation.
func (f *FieldManager) identity(manager, operation string) identity {
	if manager == "" {
		manager = "unknown"
	}
	return identity{Manager: manager, Operation: operation, APIVersion: string(f.apiVersion), Subresource: f.opts.Subresource}
}

func (f *FieldManager) now() *metav1.Time {
	t := metav1.NewTime(f.opts.Now().UTC().Truncate(time.Second))
	return &t
}

// stripFrom removes the fields nobody owns from key's set, and key when
// nothing is left.
func (f *FieldManager) stripFrom(m *Managed, key string) {
	vs, ok := m.Fields[key]
	if !ok {
		return
	}
	set := vs.Set().Difference(f.strip)
	if set.Empty() {
		delete(m.Fields, key)
		return
	}
	m.Fields[key] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
}

// capUpdateManagers merges the oldest Update managers, beyond the cap, into
// one ancient-changes entry per API version: the first old manager of a
// version becomes the bucket when a second one joins it, and the bucket
// takes the time of the newest manager merged into it.
func (f *FieldManager) capUpdateManagers(m *Managed) {
	var updaters []string
	for key, vs := range m.Fields {
		if !vs.Applied() {
			updaters = append(updaters, key)
		}
	}
	if len(updaters) <= f.opts.MaxUpdateManagers {
		return
	}
	seconds := func(key string) int64 {
		if t := m.Times[key]; t != nil {
			return t.Unix()
		}
		return 0
	}
	sort.Slice(updaters, func(i, j int) bool {
		if si, sj := seconds(updaters[i]), seconds(updaters[j]); si != sj {
			return si < sj
		}
		return updaters[i] < updaters[j]
	})
	firstOfVersion := map[fieldpath.APIVersion]string{}
	remaining := len(updaters)
	for _, key := range updaters {
		if remaining <= f.opts.MaxUpdateManagers {
			break
		}
		vs := m.Fields[key]
		version := vs.APIVersion()
		first, seen := firstOfVersion[version]
		if !seen {
			firstOfVersion[version] = key
			continue
		}
		bucket := identity{Manager: ancientChanges, Operation: OperationUpdate, APIVersion: string(version)}.key()
		if _, ok := m.Fields[bucket]; !ok {
			m.Fields[bucket] = m.Fields[first]
			delete(m.Fields, first)
			delete(m.Times, first)
		}
		m.Fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(m.Fields[bucket].Set()), version, false)
		m.Times[bucket] = m.Times[key]
		delete(m.Fields, key)
		delete(m.Times, key)
		remaining--
	}
}

// newObject is the empty object a create starts from.
func (f *FieldManager) newObject() runtime.Object {
	if f.opts.New != nil {
		return f.opts.New()
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(f.opts.Kind)
	return u
}

// toTyped views obj, without its managedFields, as a value of the kind's
// type. Typed objects are read by reflection, with no JSON round trip;
// unstructured ones are validated (duplicates allowed when asked).
func (f *FieldManager) toTyped(obj runtime.Object, allowDuplicates bool) (*typed.TypedValue, error) {
	var opts []typed.ValidationOptions
	if allowDuplicates {
		opts = append(opts, typed.AllowDuplicates)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content := withoutManagedFields(u.Object)
		if n, changed := withoutJSONNumbers(content); changed {
			content = n.(map[string]any)
		}
		return f.typ.FromUnstructured(content, opts...)
	}
	v, err := value.NewValueReflect(shallowWithoutManagedFields(obj))
	if err != nil {
		return nil, err
	}
	// A Go-typed object conforms to its schema by construction (the
	// schema is generated from the same types), so it is not validated
	// again: validation is a quarter of the cost of an Update.
	//lint:ignore SA1019 validating what the type system guarantees costs a quarter of every write.
	return typed.AsTypedUnvalidated(v, f.typ.Schema, f.typ.TypeRef), nil
}

// toTypedPair views live and obj as toTyped does, for a Compare of the
// two. The top-level fields of a Go-typed object (metadata, spec, status)
// that are equal in both are left out of both views: Compare finds
// nothing in equal subtrees, and the managed fields merge.Updater.Update
// derives depend only on what Compare finds and on the schema, so the
// result is the same, while a status write no longer walks the whole
// spec and metadata of the object twice. compareWhole turns this off
// (tests).
func (f *FieldManager) toTypedPair(live, obj runtime.Object) (*typed.TypedValue, *typed.TypedValue, error) {
	if !f.compareWhole {
		if l, n, ok := withoutEqualFields(live, obj); ok {
			lv, err := value.NewValueReflect(l)
			if err != nil {
				return nil, nil, fmt.Errorf("live object %s: %w", describe(live), err)
			}
			nv, err := value.NewValueReflect(n)
			if err != nil {
				return nil, nil, fmt.Errorf("new object %s: %w", describe(obj), err)
			}
			//lint:ignore SA1019 as in toTyped: a Go-typed object conforms to its schema by construction.
			return typed.AsTypedUnvalidated(lv, f.typ.Schema, f.typ.TypeRef), typed.AsTypedUnvalidated(nv, f.typ.Schema, f.typ.TypeRef), nil
		}
	}
	liveTyped, err := f.toTyped(live, true)
	if err != nil {
		return nil, nil, fmt.Errorf("live object %s: %w", describe(live), err)
	}
	newTyped, err := f.toTyped(obj, true)
	if err != nil {
		return nil, nil, fmt.Errorf("new object %s: %w", describe(obj), err)
	}
	return liveTyped, newTyped, nil
}

// withoutEqualFields returns shallow copies of the structs live and obj
// point to, without their managedFields and with every exported top-level
// field that is deeply equal in both set to its zero value in both. It
// reports false for anything but two pointers to structs of one type
// (unstructured objects).
func withoutEqualFields(live, obj runtime.Object) (any, any, bool) {
	lv, nv := reflect.ValueOf(live), reflect.ValueOf(obj)
	if lv.Type() != nv.Type() || lv.Kind() != reflect.Pointer || lv.IsNil() || nv.IsNil() || lv.Elem().Kind() != reflect.Struct {
		return nil, nil, false
	}
	if _, ok := live.(*unstructured.Unstructured); ok {
		return nil, nil, false
	}
	t := lv.Elem().Type()
	lc, nc := reflect.New(t), reflect.New(t)
	lc.Elem().Set(lv.Elem())
	nc.Elem().Set(nv.Elem())
	for _, c := range []reflect.Value{lc, nc} {
		m, err := accessor(c.Interface())
		if err != nil {
			return nil, nil, false
		}
		m.SetManagedFields(nil)
	}
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			continue
		}
		lf, nf := lc.Elem().Field(i), nc.Elem().Field(i)
		if reflect.DeepEqual(lf.Interface(), nf.Interface()) {
			lf.SetZero()
			nf.SetZero()
		}
	}
	return lc.Interface(), nc.Interface(), true
}

// fromTyped turns a merged value back into an object of the kind.
func (f *FieldManager) fromTyped(tv *typed.TypedValue) (runtime.Object, error) {
	if f.opts.New == nil {
		content, ok := tv.AsValue().Unstructured().(map[string]any)
		if !ok {
			return nil, fmt.Errorf("merged value is not an object")
		}
		return &unstructured.Unstructured{Object: content}, nil
	}
	data, err := value.ToJSON(tv.AsValue())
	if err != nil {
		return nil, err
	}
	out := f.opts.New()
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	return out, nil
}

// withoutManagedFields is content with metadata.managedFields left out,
// sharing everything else.
func withoutManagedFields(content map[string]any) map[string]any {
	meta, ok := content["metadata"].(map[string]any)
	if !ok {
		return content
	}
	if _, has := meta["managedFields"]; !has {
		return content
	}
	out := make(map[string]any, len(content))
	for k, v := range content {
		out[k] = v
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}

// shallowWithoutManagedFields is a shallow copy of the struct obj points
// to, with managedFields cleared on the copy only.
func shallowWithoutManagedFields(obj runtime.Object) any {
	meta, err := accessor(obj)
	if err != nil || len(meta.GetManagedFields()) == 0 {
		return obj
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return obj
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	cp := c.Interface()
	if m, err := accessor(cp); err == nil {
		m.SetManagedFields(nil)
	}
	return cp
}

// accessor is obj's metadata.
func accessor(obj any) (metav1.Object, error) {
	switch o := obj.(type) {
	case metav1.Object:
		return o, nil
	case metav1.ObjectMetaAccessor:
		return o.GetObjectMeta(), nil
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}

// describe names an object in errors: "namespace/name; group/version, Kind=kind".
func describe(obj runtime.Object) string {
	ns, name := "<unknown>", "<unknown>"
	if m, err := accessor(obj); err == nil {
		ns, name = m.GetNamespace(), m.GetName()
	}
	return fmt.Sprintf("%s/%s; %v", ns, name, obj.GetObjectKind().GroupVersionKind())
}

// withoutJSONNumbers returns v with every json.Number (as custom objects
// decoded from storage hold their numbers) turned into an int64 or a
// float64, which structured-merge-diff reads; containers are copied only
// when something under them changed.
func withoutJSONNumbers(v any) (any, bool) {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, true
		}
		if f, err := t.Float64(); err == nil {
			return f, true
		}
		return t.String(), true
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			n, changed := withoutJSONNumbers(e)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, e2 := range t {
					out[k2] = e2
				}
			}
			out[k] = n
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range t {
			n, changed := withoutJSONNumbers(e)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), t...)
			}
			out[i] = n
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}
