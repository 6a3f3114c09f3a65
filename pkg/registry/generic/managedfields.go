package generic

import (
	"context"
	"net/http"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/fieldmanager"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// managerName is the field manager of a write: the fieldManager option,
// else the first segment of the request's User-Agent.
func managerName(ctx context.Context, fieldManager string) string {
	return fieldmanager.ManagerName(fieldManager, apirequest.UserAgentValue(ctx))
}

// recordUpdate records in obj's managedFields what the write changes from
// live (nil on create). It never fails a write.
func (s *Store) recordUpdate(ctx context.Context, live, obj runtime.Object, fieldManager string) runtime.Object {
	if s.FieldManager == nil {
		return obj
	}
	return s.FieldManager.UpdateNoErrors(live, obj, managerName(ctx, fieldManager))
}

// applyInfo is the UpdatedObjectInfo of a server-side apply: it merges the
// configuration into the current object, recording managedFields itself.
type applyInfo struct {
	fm      *fieldmanager.FieldManager
	name    string
	cfg     map[string]any
	manager string
	force   bool
}

var _ rest.UpdatedObjectInfo = (*applyInfo)(nil)

func (a *applyInfo) Preconditions() *metav1.Preconditions { return nil }

// UpdatedObject merges the configuration into old. A configuration without
// a name creates nothing (422); into an existing object it keeps the live
// name, as Kubernetes does.
func (a *applyInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		if meta, _ := a.cfg["metadata"].(map[string]any); meta["name"] == nil || meta["name"] == "" {
			return nil, apierrors.NewInvalid(a.fm.Kind().GroupKind(), a.name, field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name is required in an apply configuration")})
		}
	}
	return a.fm.Apply(old, a.cfg, a.manager, a.force)
}

// recordsManagedFields reports an UpdatedObjectInfo that sets managedFields
// itself (an apply, or a subresource's translation of one).
func recordsManagedFields(info rest.UpdatedObjectInfo) bool {
	r, ok := info.(interface{ RecordsManagedFields() bool })
	return ok && r.RecordsManagedFields()
}

// RecordsManagedFields reports whether info sets managedFields itself; a
// REST that wraps an UpdatedObjectInfo (as its Update does) forwards it
// with a RecordsManagedFields method of its own, so that an apply through
// it is not also recorded as an Update.
func RecordsManagedFields(info rest.UpdatedObjectInfo) bool { return recordsManagedFields(info) }

// RecordsManagedFields marks an apply: the Store records no Update over it.
func (a *applyInfo) RecordsManagedFields() bool { return true }

// Apply implements rest.Applier: the configuration is merged into the
// object inside the storage's compare-and-swap loop; a missing object is
// created (not at a subresource).
func (s *Store) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return s.ApplyThrough(ctx, s, name, cfg, force, opts)
}

// ApplyThrough is Apply run by u's Update, where u is a REST wrapping this
// Store whose Update does more than the Store's (a Service's allocation of
// its cluster IP and node ports): an apply, a create-on-apply included,
// then gets what a PUT or a patch gets. Such a REST implements
// rest.Applier with it, or else the embedded Store's Apply would bypass
// its Update.
func (s *Store) ApplyThrough(ctx context.Context, u rest.Updater, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if s.FieldManager == nil {
		return nil, false, applyUnavailable(s.DefaultQualifiedResource.String())
	}
	return ApplyWith(ctx, u, s.FieldManager, s.Subresource == "", name, cfg, force, opts)
}

// ApplyWith is an apply served by u's Update with fm, the FieldManager of
// the kind and subresource u serves; allowCreate lets it create a missing
// object (never at a subresource). A REST that serves a Store's objects
// converted to another kind or version (autoscaling/v1 over v2) applies
// with it and a FieldManager of its own kind: u's Update converts the
// stored object for the merge and the merged object back. Every
// UpdatedObjectInfo u wraps the apply's in must forward
// RecordsManagedFields, or the Store records an Update over the apply.
func ApplyWith(ctx context.Context, u rest.Updater, fm *fieldmanager.FieldManager, allowCreate bool, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if fm == nil {
		return nil, false, applyUnavailable("this resource")
	}
	if opts == nil {
		opts = &metav1.UpdateOptions{}
	}
	info := &applyInfo{fm: fm, name: name, cfg: cfg, manager: opts.FieldManager, force: force}
	return u.Update(ctx, name, info, nil, nil, allowCreate, opts)
}

// applyUnavailable is the 415 of an apply to what records no managedFields.
func applyUnavailable(what string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: "server-side apply is not available for " + what,
	}}
}
