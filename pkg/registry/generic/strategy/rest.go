package strategy

import (
	"context"

	"k8s.io/klog/v2"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// StatusREST serves a /status subresource: GET, and PUT or PATCH through
// the status strategy of a copy of the main resource's Store.
type StatusREST struct {
	store *generic.Store
}

var (
	_ rest.Getter  = (*StatusREST)(nil)
	_ rest.Updater = (*StatusREST)(nil)
)

// NewStatusREST serves main's objects with only status writable.
func NewStatusREST(main *generic.Store, status rest.UpdateStrategy) *StatusREST {
	return NewSubresourceREST(main, "status", status)
}

// NewSubresourceREST serves main's whole objects at the subresource sub
// (pods/ephemeralcontainers, say) with only what strategy takes from an
// update writable, as a /status is served.
func NewSubresourceREST(main *generic.Store, sub string, strategy rest.UpdateStrategy) *StatusREST {
	s := *main
	s.CreateStrategy, s.DeleteStrategy, s.UpdateStrategy = nil, nil, strategy
	s.DestroyFunc = nil
	s.Subresource = sub
	s.FieldManager = subresourceFieldManager(main.FieldManager, sub, strategy)
	return &StatusREST{store: &s}
}

// subresourceFieldManager is main's FieldManager at the subresource sub
// served under strategy (nil when main records no managedFields).
func subresourceFieldManager(main *fieldmanager.FieldManager, sub string, strategy any) *fieldmanager.FieldManager {
	if main == nil {
		return nil
	}
	var reset *fieldpath.Set
	if rs, ok := strategy.(rest.ResetFieldsStrategy); ok {
		reset = rs.GetResetFields()
	}
	f, err := main.ForSubresource(sub, reset)
	if err != nil {
		// New succeeded for the same kind: this cannot fail.
		klog.ErrorS(err, "No field manager for subresource", "kind", main.Kind(), "subresource", sub)
		return nil
	}
	return f
}

var _ rest.Applier = (*StatusREST)(nil)

// Apply implements rest.Applier: a server-side apply of the status; it
// never creates the object.
func (r *StatusREST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Apply(ctx, name, cfg, force, opts)
}

// ApplyThrough is Apply run by u's Update, where u wraps this StatusREST
// with an Update that does more (a check, a conversion); such a u
// implements rest.Applier with it, or an apply would bypass its Update.
func (r *StatusREST) ApplyThrough(ctx context.Context, u rest.Updater, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.ApplyThrough(ctx, u, name, cfg, force, opts)
}

// FieldManager is the FieldManager of the subresource, nil when its kind
// records no managedFields.
func (r *StatusREST) FieldManager() *fieldmanager.FieldManager { return r.store.FieldManager }

// New implements rest.Storage.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy implements rest.Storage; the main resource owns the storage.
func (r *StatusREST) Destroy() {}

// Get implements rest.Getter.
func (r *StatusREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, opts)
}

// Update implements rest.Updater. A status update never creates the
// object.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, opts)
}
