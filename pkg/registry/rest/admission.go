package rest

import (
	"context"
	"reflect"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apirequest"
)

// Admission is the admission chain a Store (and every subresource that
// writes) calls on each write. The API server assembles it
// (pkg/controlplane, from the plugins of pkg/admission); the registry only
// knows this interface, so that new admission (webhooks, admission
// policies in CEL) joins the chain without the registry changing.
//
// Admit is the mutating phase: it runs before the strategy validates and
// may change a.Object. Validate is the validating phase: it runs after the
// strategy's validation, on the object about to be stored, inside an
// update's compare-and-swap loop (so it sees the fresh stored object as
// a.OldObject on every retry), and must not change anything. An error
// refuses the write and is returned to the client as it is (a Status
// error keeps its code).
type Admission interface {
	Admit(ctx context.Context, a *Attributes) error
	Validate(ctx context.Context, a *Attributes) error
}

// Operation is the kind of write admission sees, with Kubernetes' names.
type Operation string

// The operations of admission.
const (
	OperationCreate  Operation = "CREATE"
	OperationUpdate  Operation = "UPDATE"
	OperationDelete  Operation = "DELETE"
	OperationConnect Operation = "CONNECT"
)

// Attributes describe one write to admission, as Kubernetes' admission
// attributes do.
type Attributes struct {
	Operation Operation
	// Kind is the kind of Object (autoscaling/v1 Scale for a /scale write,
	// policy/v1 Eviction for pods/eviction); its version is empty when the
	// write did not come through an API request.
	Kind schema.GroupVersionKind
	// Resource is the resource written ("pods", not "pods/status"); its
	// version is that of the request, empty for in-process writes.
	Resource    schema.GroupVersionResource
	Subresource string
	Namespace   string
	Name        string
	// Object is the object to store (nil on DELETE); OldObject the stored
	// one (nil on CREATE).
	Object, OldObject runtime.Object
	// UserInfo is the requesting user; nil for the API server's own writes.
	UserInfo *apirequest.UserInfo
	DryRun   bool
	// Options are the write's options: *metav1.CreateOptions,
	// *metav1.UpdateOptions or *metav1.DeleteOptions (nil when none).
	Options runtime.Object
}

// NewAttributes fills the attributes every write shares from ctx: the
// user, the namespace, and the version of the resource and kind when the
// request names the resource gr. A nil pointer opts is no options.
func NewAttributes(ctx context.Context, op Operation, gr schema.GroupResource, subresource string, gk schema.GroupKind, name string, obj, old runtime.Object, dryRun bool, opts runtime.Object) *Attributes {
	if v := reflect.ValueOf(opts); opts != nil && v.Kind() == reflect.Pointer && v.IsNil() {
		opts = nil
	}
	a := &Attributes{
		Operation: op, Resource: gr.WithVersion(""), Subresource: subresource, Kind: gk.WithVersion(""),
		Namespace: apirequest.NamespaceValue(ctx), Name: name,
		Object: obj, OldObject: old, DryRun: dryRun, Options: opts,
	}
	if u, ok := apirequest.UserFrom(ctx); ok {
		a.UserInfo = u
	}
	if info, ok := apirequest.RequestInfoFrom(ctx); ok && info.APIGroup == gr.Group && info.Resource == gr.Resource {
		a.Resource.Version = info.APIVersion
		if a.Kind.Group == gr.Group {
			a.Kind.Version = info.APIVersion
		}
	}
	return a
}

// Admit runs adm's mutating phase; a nil adm admits everything.
func Admit(ctx context.Context, adm Admission, a *Attributes) error {
	if adm == nil {
		return nil
	}
	return adm.Admit(ctx, a)
}

// Validate runs adm's validating phase; a nil adm admits everything.
func Validate(ctx context.Context, adm Admission, a *Attributes) error {
	if adm == nil {
		return nil
	}
	return adm.Validate(ctx, a)
}
