package fieldmanager

import (
	"fmt"
	"sort"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"kubecore.io/kubecore/pkg/openapi"
)

// nonResourceKinds are the kinds of a scheme that are no stored objects.
var nonResourceKinds = map[string]bool{
	"Status": true, "WatchEvent": true, "DeleteOptions": true, "CreateOptions": true, "UpdateOptions": true,
	"PatchOptions": true, "GetOptions": true, "ListOptions": true, "Table": true, "APIResourceList": true,
	"APIGroupList": true, "APIGroup": true, "APIVersions": true,
}

// NewSchemeTypeConverter builds the type converter of every kind scheme
// knows, from the OpenAPI documents pkg/openapi builds for them: the
// models the API server serves. Build it once at start and share it.
func NewSchemeTypeConverter(scheme *runtime.Scheme) (*TypeConverter, error) {
	groups := map[schema.GroupVersion][]openapi.Resource{}
	for gvk := range scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || gvk.Version == "__internal" || nonResourceKinds[gvk.Kind] {
			continue
		}
		groups[gvk.GroupVersion()] = append(groups[gvk.GroupVersion()], openapi.Resource{
			Path: strings.ToLower(gvk.Kind) + "s", Kind: gvk, Namespaced: true, Verbs: []string{"create", "get", "patch", "update"},
		})
	}
	spec := openapi.Spec{Scheme: scheme}
	gvs := make([]schema.GroupVersion, 0, len(groups))
	for gv := range groups {
		gvs = append(gvs, gv)
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].String() < gvs[j].String() })
	for _, gv := range gvs {
		rs := groups[gv]
		sort.Slice(rs, func(i, j int) bool { return rs[i].Kind.Kind < rs[j].Kind.Kind })
		spec.Groups = append(spec.Groups, openapi.GroupVersion{GroupVersion: gv, Resources: rs})
	}
	docs, err := openapi.Build(spec)
	if err != nil {
		return nil, fmt.Errorf("build openapi documents: %w", err)
	}
	models, err := ModelsFromDocuments(docs)
	if err != nil {
		return nil, err
	}
	return NewTypeConverter(models)
}

// Builder makes the FieldManagers of the Stores of built-in kinds.
type Builder struct {
	Scheme        *runtime.Scheme
	TypeConverter *TypeConverter
}

// For builds the FieldManager of the main resource whose objects newObj
// makes, with the fields its strategy resets. It reports false for a kind
// the type converter does not know (a kind with no schema gets no
// managedFields).
func (b *Builder) For(newObj func() runtime.Object, reset *fieldpath.Set) (*FieldManager, bool, error) {
	gvk, err := b.Scheme.ObjectKind(newObj())
	if err != nil {
		return nil, false, nil
	}
	if _, ok := b.TypeConverter.Type(gvk); !ok {
		return nil, false, nil
	}
	f, err := New(Options{Kind: gvk, TypeConverter: b.TypeConverter, New: newObj, Default: b.Scheme.Default, ResetFields: reset})
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// ForSubresource is f's kind served at the subresource sub ("status",
// "scale"), whose strategy resets the fields reset.
func (f *FieldManager) ForSubresource(sub string, reset *fieldpath.Set) (*FieldManager, error) {
	opts := f.opts
	opts.Subresource, opts.ResetFields = sub, reset
	return New(opts)
}

// Kind is the kind the FieldManager reads and writes.
func (f *FieldManager) Kind() schema.GroupVersionKind { return f.opts.Kind }

// Subresource is the endpoint's subresource, "" for the main resource.
func (f *FieldManager) Subresource() string { return f.opts.Subresource }

// ForView builds the FieldManager of a view of f's endpoint that serves
// the stored objects as another kind or version, whose objects newObj
// makes (autoscaling/v1 autoscalers over the stored autoscaling/v2 ones,
// events.k8s.io events over core events): the same subresource and reset
// fields, the view's schema, and its apiVersion in the entries it writes.
// It is nil when b or f is (the stored kind records no managedFields) or
// the type converter does not know the view's kind.
func (b *Builder) ForView(f *FieldManager, newObj func() runtime.Object) (*FieldManager, error) {
	if b == nil || f == nil {
		return nil, nil
	}
	gvk, err := b.Scheme.ObjectKind(newObj())
	if err != nil {
		return nil, nil
	}
	if _, ok := b.TypeConverter.Type(gvk); !ok {
		return nil, nil
	}
	opts := f.opts
	opts.Kind, opts.New, opts.TypeConverter, opts.Default = gvk, newObj, b.TypeConverter, b.Scheme.Default
	v, err := New(opts)
	if err != nil {
		return nil, fmt.Errorf("field manager of the view %s of %s: %w", gvk, f.opts.Kind, err)
	}
	return v, nil
}
