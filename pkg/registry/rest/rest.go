package rest

import (
	"context"
	"net/http"
	"net/url"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/watch"
)

// Storage is the REST storage of one resource or subresource. The route
// installer offers each verb whose interface below the storage implements.
// Request handlers put the namespace into ctx (apirequest.WithNamespace).
type Storage interface {
	// New returns an empty object of the kind this storage serves.
	New() runtime.Object
	// Destroy releases what the storage holds (its watch cache).
	Destroy()
}

// Scoper says whether the resource lives in namespaces.
type Scoper interface {
	NamespaceScoped() bool
}

// KindProvider is implemented by subresources whose kind lives in another
// group or version than the parent (deployments/scale is autoscaling/v1 Scale).
type KindProvider interface {
	GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind
}

// ShortNamesProvider, CategoriesProvider and SingularNameProvider feed
// discovery.
type ShortNamesProvider interface{ ShortNames() []string }

// CategoriesProvider lists the categories ("all") a resource belongs to.
type CategoriesProvider interface{ Categories() []string }

// SingularNameProvider gives the singular resource name ("pod").
type SingularNameProvider interface{ GetSingularName() string }

// Getter serves GET of one object.
type Getter interface {
	Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error)
}

// ListOptions are a list or watch request's options, selectors parsed.
type ListOptions struct {
	LabelSelector        labels.Selector
	FieldSelector        fields.Selector
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	Limit                int64
	Continue             string
	Watch                bool
	AllowWatchBookmarks  bool
	SendInitialEvents    *bool
	TimeoutSeconds       *int64
}

// Lister serves LIST; TableConvertor renders its results as a Table.
type Lister interface {
	NewList() runtime.Object
	List(ctx context.Context, opts *ListOptions) (runtime.Object, error)
	TableConvertor
}

// Watcher serves WATCH.
type Watcher interface {
	Watch(ctx context.Context, opts *ListOptions) (watch.Interface, error)
}

// ValidateObjectFunc is an admission-style check run on the object a write
// is about to store (nil means none).
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// ValidateObjectUpdateFunc is the same check for updates.
type ValidateObjectUpdateFunc func(ctx context.Context, obj, old runtime.Object) error

// Creater serves POST.
type Creater interface {
	New() runtime.Object
	Create(ctx context.Context, obj runtime.Object, validate ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error)
}

// UpdatedObjectInfo computes the object an update writes from the current
// one: the body of a PUT, or a patch applied to the current object. It runs
// inside the storage's compare-and-swap loop, so a patch re-applies on
// conflict.
type UpdatedObjectInfo interface {
	// Preconditions are the uid and resourceVersion the caller pinned.
	Preconditions() *metav1.Preconditions
	// UpdatedObject returns the new object; old is nil on create-on-update.
	UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error)
}

// Updater serves PUT and PATCH. It returns the stored object and whether it
// was created.
type Updater interface {
	New() runtime.Object
	Update(ctx context.Context, name string, objInfo UpdatedObjectInfo, createValidation ValidateObjectFunc, updateValidation ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error)
}

// Applier serves a server-side apply (PATCH application/apply-patch+yaml):
// cfg is the parsed apply configuration, opts.FieldManager its (required)
// manager. It returns the stored object and whether it was created.
type Applier interface {
	Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error)
}

// ResetFieldsStrategy is an UpdateStrategy that resets fields a request
// through it cannot change (status at the main resource, spec at /status):
// no manager there owns them.
type ResetFieldsStrategy interface {
	GetResetFields() *fieldpath.Set
}

// GracefulDeleter serves DELETE. It returns the deleted object, or the
// object marked for deletion, and whether the delete completed now.
type GracefulDeleter interface {
	Delete(ctx context.Context, name string, validate ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error)
}

// CollectionDeleter serves DELETE on a collection.
type CollectionDeleter interface {
	DeleteCollection(ctx context.Context, validate ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *ListOptions) (runtime.Object, error)
}

// TableConvertor renders objects (one, or a list) as a meta/v1 Table.
type TableConvertor interface {
	ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error)
}

// NamedCreater serves POST on a subresource that names its parent
// (pods/binding, pods/eviction).
type NamedCreater interface {
	New() runtime.Object
	Create(ctx context.Context, name string, obj runtime.Object, validate ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error)
}

// Responder writes the error of a Connecter's handler that fails after
// Connect returned it, as the Status every other request answers with.
type Responder interface {
	Error(err error)
}

// Connecter serves a subresource that is a connection rather than an
// object (pods/log, pods/exec): Connect checks the request against the
// object named and returns the handler that streams or proxies it. The
// route installer offers the HTTP methods ConnectMethods lists; discovery
// shows GET as the verb get and POST as create.
type Connecter interface {
	// New returns an object of the kind discovery shows for the
	// subresource, when it has no KindProvider.
	New() runtime.Object
	// Connect returns the handler of a request on object name with query
	// opts; its error is answered as a Status before anything is written.
	Connect(ctx context.Context, name string, opts url.Values, r Responder) (http.Handler, error)
	// ConnectMethods are the HTTP methods served.
	ConnectMethods() []string
}

// SubpathConnecter is a Connecter that also serves the paths below its
// subresource (pods/proxy/any/path): the handler Connect returns finds
// the path in apirequest.SubpathFrom of the request's context.
type SubpathConnecter interface {
	Connecter
	// ServesSubpaths reports whether the paths below are served.
	ServesSubpaths() bool
}

// CreateOnGetConnecter is a Connecter whose GET requests (WebSocket
// upgrades) must be allowed the verb create as well as get, so that a role
// granting only get cannot run commands: Kubernetes authorizes pods/exec,
// pods/attach and pods/portforward this way.
type CreateOnGetConnecter interface {
	Connecter
	// AuthorizeGetAsCreate reports whether GET needs create too.
	AuthorizeGetAsCreate() bool
}
