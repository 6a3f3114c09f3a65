package storage

import (
	"context"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
)

// Interface stores the objects of one resource under string keys such as
// "/pods/default/web-0", relative to the storage's prefix ("/registry" in
// etcd). Objects come back with their
// resourceVersion set: the etcd mod revision as a decimal string.
//
// Implementations return *StorageError for storage-level failures (not found,
// exists, conflict, expired, unreachable); the registry turns those into API
// Status errors. Returned objects belong to the caller, except where a
// method says otherwise.
type Interface interface {
	// Create stores obj at key and fails with ErrCodeKeyExists if the key
	// exists. obj must not have a resourceVersion.
	Create(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error)

	// Get returns the object at key, honouring opts.ResourceVersion:
	// "" reads the latest, "0" accepts any cached state, "N" at least N.
	Get(ctx context.Context, key string, opts GetOptions) (runtime.Object, error)

	// GetList returns the objects under key (a prefix when opts.Recursive)
	// that match opts.Predicate, one page of at most Predicate.Limit items
	// when set, with a continue token pinned to the first page's revision.
	GetList(ctx context.Context, key string, opts ListOptions) (*List, error)

	// GuaranteedUpdate reads the object at key (or uses cachedExisting when
	// it is current), checks preconditions, calls tryUpdate with a copy, and
	// writes the result with a compare-and-swap on the mod revision,
	// re-reading and calling tryUpdate again on conflict. An unchanged result
	// is not written. With ignoreNotFound a missing object is passed to
	// tryUpdate as nil (create-on-update).
	GuaranteedUpdate(ctx context.Context, key string, preconditions *Preconditions, ignoreNotFound bool, tryUpdate UpdateFunc, cachedExisting runtime.Object) (runtime.Object, error)

	// Delete removes the object at key when preconditions hold and validate
	// accepts the current state, and returns that last state.
	Delete(ctx context.Context, key string, preconditions *Preconditions, validate ValidateObjectFunc, cachedExisting runtime.Object) (runtime.Object, error)

	// Watch streams the changes under key (a prefix when opts.Recursive) that
	// match opts.Predicate, starting after opts.ResourceVersion ("" or "0":
	// the current state as ADDED events first, then changes). A revision
	// that was compacted or fell out of the watch cache yields one ERROR event
	// carrying a 410 Expired Status, then the channel closes. With
	// opts.ProgressNotify the watcher gets BOOKMARK events.
	Watch(ctx context.Context, key string, opts ListOptions) (watch.Interface, error)

	// CurrentResourceVersion returns the latest revision of the store (a
	// quorum read in etcd), which a consistent read must reach.
	CurrentResourceVersion(ctx context.Context) (uint64, error)
}

// UpdateFunc computes the new state of an object from its current one. It
// may be called more than once; it must not keep or modify current.
type UpdateFunc func(current runtime.Object) (updated runtime.Object, err error)

// ValidateObjectFunc vets the current state of an object before a delete.
type ValidateObjectFunc func(ctx context.Context, current runtime.Object) error

// Preconditions must hold on the stored object for an update or delete.
type Preconditions struct {
	UID             *types.UID
	ResourceVersion *string
}

// GetOptions are the options of Get.
type GetOptions struct {
	ResourceVersion string
	IgnoreNotFound  bool
}

// ListOptions are the options of GetList and Watch.
type ListOptions struct {
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	Predicate            SelectionPredicate
	Recursive            bool
	// ProgressNotify asks Watch for bookmarks (allowWatchBookmarks).
	ProgressNotify bool
	// SendInitialEvents, set, makes Watch a streaming list
	// (resourceVersionMatch NotOlderThan): true starts with the state at
	// a revision not older than ResourceVersion ("" the latest, "0" any)
	// as ADDED events, then, with ProgressNotify, a BOOKMARK at that
	// revision annotated k8s.io/initial-events-end; false starts after
	// that revision ("N": after N) with no initial events.
	SendInitialEvents *bool
}

// List is one page of a GetList.
type List struct {
	Items              []runtime.Object
	ResourceVersion    uint64
	Continue           string
	RemainingItemCount *int64
}
