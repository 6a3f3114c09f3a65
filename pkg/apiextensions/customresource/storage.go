package customresource

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/runtime/strictjson"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
	"kubecore.io/kubecore/pkg/cel"
	"kubecore.io/kubecore/pkg/openapi"
	"kubecore.io/kubecore/pkg/registry/generic"
	registrystrategy "kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Resource is the storage of one CustomResourceDefinition: one etcd
// storage and watch cache in the storage version, served in every served
// version.
type Resource struct {
	// Versions holds, for each served version, the storage of each path
	// ("crontabs", "crontabs/status", "crontabs/scale").
	Versions map[string]map[string]rest.Storage
	destroy  func()
	// terminating refuses creates: the definition is being deleted.
	terminating atomic.Bool
}

// Destroy stops the resource's watch cache.
func (r *Resource) Destroy() {
	if r.destroy != nil {
		r.destroy()
	}
}

// Terminate refuses every create from now on, while the definition's
// objects are being deleted.
func (r *Resource) Terminate() { r.terminating.Store(true) }

// REST serves the custom objects of one version.
type REST struct {
	*generic.Store
	*codec
	kind        schema.GroupVersionKind
	openAPI     *openapi.Schema
	deprecation string
	resource    *Resource
}

var (
	_ rest.KindProvider = (*REST)(nil)
	_ runtime.Decoder   = (*REST)(nil)
)

// GroupVersionKind implements rest.KindProvider.
func (r *REST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return r.kind }

// OpenAPISchema is the version's schema for its OpenAPI document.
func (r *REST) OpenAPISchema() *openapi.Schema { return r.openAPI }

// DeprecationWarning is the warning of a deprecated version, "" for
// others.
func (r *REST) DeprecationWarning() string { return r.deprecation }

// Create implements rest.Creater; the definition must not be terminating.
func (r *REST) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	if r.resource.terminating.Load() {
		err := apierrors.NewMethodNotSupported(r.DefaultQualifiedResource, "create")
		err.ErrStatus.Message = "create not allowed while custom resource definition is terminating"
		return nil, err
	}
	return r.Store.Create(ctx, obj, validate, opts)
}

// deprecationWarning is the warning requests to a deprecated version get:
// the definition's own, or Kubernetes' default wording.
func deprecationWarning(gv schema.GroupVersion, kind string, v *apiextensionsv1.CustomResourceDefinitionVersion) string {
	switch {
	case !v.Deprecated:
		return ""
	case v.DeprecationWarning != nil:
		return *v.DeprecationWarning
	}
	return fmt.Sprintf("%s %s is deprecated", gv, kind)
}

// StatusREST serves the status subresource of one version.
type StatusREST struct {
	*registrystrategy.StatusREST
	*codec
	kind schema.GroupVersionKind
}

// GroupVersionKind implements rest.KindProvider.
func (r *StatusREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return r.kind }

// NewResource builds the storage of crd's served versions; the definition
// has passed validation. now is the clock of printer columns' ages; hooks
// reach the conversion webhook of a definition with the Webhook strategy.
func NewResource(crd *apiextensionsv1.CustomResourceDefinition, opts generic.StoreOptions, now func() time.Time, hooks *ConversionWebhooks) (*Resource, error) {
	spec := &crd.Spec
	conv, err := newConverter(spec.Conversion, hooks)
	if err != nil {
		return nil, err
	}
	names := crd.Status.AcceptedNames
	if names.Plural == "" {
		names = spec.Names
	}
	var stored *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range spec.Versions {
		if spec.Versions[i].Storage {
			stored = &spec.Versions[i]
		}
	}
	if stored == nil {
		return nil, errors.New("no storage version")
	}
	gr := schema.GroupResource{Group: spec.Group, Resource: names.Plural}
	namespaced := spec.Scope == apiextensionsv1.NamespaceScoped
	// Each version's rules compile once; the storage version's Store and
	// its served one share them.
	rulesByVersion := map[string]*cel.Validator{}
	newStore := func(v *apiextensionsv1.CustomResourceDefinitionVersion) (*generic.Store, *strategy, error) {
		gv := schema.GroupVersion{Group: spec.Group, Version: v.Name}
		structural, errs := apischema.NewStructural(v.Schema.OpenAPIV3Schema, field.NewPath("schema"))
		if len(errs) > 0 {
			return nil, nil, fmt.Errorf("version %s: %w", v.Name, errs.ToAggregate())
		}
		rules, compiled := rulesByVersion[v.Name]
		if !compiled {
			var errs field.ErrorList
			if rules, errs = cel.Compile(structural, field.NewPath("schema")); len(errs) > 0 {
				return nil, nil, fmt.Errorf("version %s: %w", v.Name, errs.ToAggregate())
			}
			rulesByVersion[v.Name] = rules
		}
		st := &strategy{namespaced: namespaced, kind: gv.WithKind(names.Kind), schema: structural, rules: rules}
		if sub := v.Subresources; sub != nil {
			st.status = sub.Status != nil
			st.scale = newScaleSpec(sub.Scale)
		}
		tc, err := newTableConvertor(v.AdditionalPrinterColumns, now)
		if err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		listKind := names.ListKind
		store := &generic.Store{
			NewFunc: func() runtime.Object { return &unstructured.Unstructured{} },
			NewListFunc: func() runtime.Object {
				l := &unstructured.UnstructuredList{}
				l.SetGroupVersionKind(gv.WithKind(listKind))
				return l
			},
			DefaultQualifiedResource:  gr,
			SingularQualifiedResource: schema.GroupResource{Group: spec.Group, Resource: names.Singular},
			QualifiedKind:             schema.GroupKind{Group: spec.Group, Kind: names.Kind},
			ResourcePrefix:            spec.Group + "/" + names.Plural,
			CreateStrategy:            st,
			UpdateStrategy:            st,
			DeleteStrategy:            st,
			TableConvertor:            tc,
			ShortNamesList:            names.ShortNames,
			CategoriesList:            names.Categories,
			GetAttrs:                  attrFunc(namespaced, selectableFields(v)),
		}
		fm, err := newFieldManager(opts.FieldManagers, st.kind, v.Schema.OpenAPIV3Schema, st.status)
		if err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		store.FieldManager = fm
		return store, st, nil
	}

	// The storage version's Store builds the shared storage (and its watch
	// cache); every served version reads and writes through it.
	root, rootStrategy, err := newStore(stored)
	if err != nil {
		return nil, err
	}
	// The watch cache keeps the selectable fields of every version: under
	// the None strategy a version's fields are found in the stored object.
	all := make([]*apiextensionsv1.CustomResourceDefinitionVersion, len(spec.Versions))
	for i := range spec.Versions {
		all[i] = &spec.Versions[i]
	}
	root.GetAttrs = attrFunc(namespaced, selectableFields(all...))
	if err := root.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	// Objects read are defaulted with the storage version's schema, then
	// converted to the served version.
	shared := newDefaultingStorage(root.Storage, rootStrategy.schema)
	out := &Resource{Versions: map[string]map[string]rest.Storage{}, destroy: root.Destroy}
	storedAPIVersion := schema.GroupVersion{Group: spec.Group, Version: stored.Name}.String()
	for i := range spec.Versions {
		v := &spec.Versions[i]
		if !v.Served {
			continue
		}
		store, st, err := newStore(v)
		if err == nil {
			served := schema.GroupVersion{Group: spec.Group, Version: v.Name}.String()
			store.Storage = newVersionedStorage(shared, conv, served, storedAPIVersion)
			err = store.CompleteWithOptions(opts)
		}
		if err != nil {
			out.Destroy()
			return nil, err
		}
		c := &codec{strategy: st, json: &strictjson.Decoder{}}
		paths := map[string]rest.Storage{
			names.Plural: &REST{
				Store: store, codec: c, kind: st.kind, resource: out,
				openAPI:     OpenAPISchema(v.Schema.OpenAPIV3Schema),
				deprecation: deprecationWarning(st.kind.GroupVersion(), names.Kind, v),
			},
		}
		if st.status {
			paths[names.Plural+"/status"] = &StatusREST{StatusREST: registrystrategy.NewStatusREST(store, statusStrategy{st}), codec: c, kind: st.kind}
		}
		if st.scale != nil {
			paths[names.Plural+"/scale"] = registrystrategy.NewScaleREST(store, st.scale)
		}
		out.Versions[v.Name] = paths
	}
	return out, nil
}
