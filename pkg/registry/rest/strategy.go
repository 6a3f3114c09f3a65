package rest

import (
	"context"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// CreateStrategy is a resource's behaviour on create, plugged into the
// generic Store. Defaults are applied before it, at decode time.
type CreateStrategy interface {
	NamespaceScoped() bool
	// PrepareForCreate clears what clients may not set (status for
	// resources with a status subresource) and sets generation 1.
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	// Validate returns the object's validation errors with field paths.
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	// WarningsOnCreate returns warnings for the Warning header.
	WarningsOnCreate(ctx context.Context, obj runtime.Object) []string
	// Canonicalize normalizes the object before it is stored.
	Canonicalize(obj runtime.Object)
}

// UpdateStrategy is a resource's behaviour on update.
type UpdateStrategy interface {
	NamespaceScoped() bool
	// AllowCreateOnUpdate: may PUT create a missing object?
	AllowCreateOnUpdate() bool
	// PrepareForUpdate keeps what this endpoint may not change (status on
	// the main resource, spec on /status) and bumps generation on spec
	// changes.
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string
	Canonicalize(obj runtime.Object)
	// AllowUnconditionalUpdate: may a PUT without resourceVersion overwrite?
	AllowUnconditionalUpdate() bool
}

// DeleteStrategy is a resource's behaviour on delete.
type DeleteStrategy interface {
	NamespaceScoped() bool
}

// GracefulDeleteStrategy is implemented by resources that delete gracefully
// (pods on a node): CheckGracefulDelete sets the grace period in opts and
// reports whether the delete is graceful.
type GracefulDeleteStrategy interface {
	CheckGracefulDelete(ctx context.Context, obj runtime.Object, opts *metav1.DeleteOptions) bool
}

// GarbageCollectionPolicy is the default propagation of a resource's deletes
// (apps/v1 objects: background; the rest: background too, orphan on request).
type GarbageCollectionDeleteStrategy interface {
	DefaultGarbageCollectionPolicy(ctx context.Context) metav1.DeletionPropagation
}
