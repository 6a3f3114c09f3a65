package v1

import "kubecore.io/apimachinery/pkg/types"

// ListOptions are the query parameters of a LIST or WATCH request.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ListOptions struct {
	TypeMeta `json:",inline"`

	// LabelSelector restricts the result by labels ("app=web,tier!=db").
	LabelSelector string `json:"labelSelector,omitempty" protobuf:"bytes,1,opt,name=labelSelector"`
	// FieldSelector restricts the result by fields ("metadata.name=x").
	FieldSelector string `json:"fieldSelector,omitempty" protobuf:"bytes,2,opt,name=fieldSelector"`
	// Watch turns the request into a stream of watch events.
	Watch bool `json:"watch,omitempty" protobuf:"varint,3,opt,name=watch"`
	// AllowWatchBookmarks asks for BOOKMARK events on a watch.
	AllowWatchBookmarks bool `json:"allowWatchBookmarks,omitempty" protobuf:"varint,9,opt,name=allowWatchBookmarks"`
	// ResourceVersion is where the list is served from or the watch starts.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,4,opt,name=resourceVersion"`
	// ResourceVersionMatch says how ResourceVersion applies to a list.
	ResourceVersionMatch ResourceVersionMatch `json:"resourceVersionMatch,omitempty" protobuf:"bytes,10,opt,name=resourceVersionMatch"`
	// TimeoutSeconds bounds the duration of the call.
	TimeoutSeconds *int64 `json:"timeoutSeconds,omitempty" protobuf:"varint,5,opt,name=timeoutSeconds"`
	// Limit is the page size of a chunked list.
	Limit int64 `json:"limit,omitempty" protobuf:"varint,7,opt,name=limit"`
	// Continue is the token of the next page of a chunked list.
	Continue string `json:"continue,omitempty" protobuf:"bytes,8,opt,name=continue"`
	// SendInitialEvents makes a watch start with the current objects, then
	// a BOOKMARK annotated with InitialEventsAnnotationKey.
	SendInitialEvents *bool `json:"sendInitialEvents,omitempty" protobuf:"varint,11,opt,name=sendInitialEvents"`
}

// ResourceVersionMatch says how a list applies its resourceVersion.
type ResourceVersionMatch string

// The values of ResourceVersionMatch.
const (
	// ResourceVersionMatchNotOlderThan serves data at least as new as resourceVersion.
	ResourceVersionMatchNotOlderThan ResourceVersionMatch = "NotOlderThan"
	// ResourceVersionMatchExact serves data at exactly resourceVersion.
	ResourceVersionMatchExact ResourceVersionMatch = "Exact"
)

// GetOptions are the query parameters of a GET request.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type GetOptions struct {
	TypeMeta `json:",inline"`

	// ResourceVersion, when set, lets the server answer from its cache.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,1,opt,name=resourceVersion"`
}

// DeletionPropagation decides what the garbage collector does with the
// dependents of a deleted object.
type DeletionPropagation string

// The values of DeletionPropagation.
const (
	// DeletePropagationOrphan leaves the dependents in place.
	DeletePropagationOrphan DeletionPropagation = "Orphan"
	// DeletePropagationBackground deletes the owner now and the dependents after.
	DeletePropagationBackground DeletionPropagation = "Background"
	// DeletePropagationForeground deletes the blocking dependents first.
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// DryRunAll is the only dryRun value: run every stage but persist nothing.
const DryRunAll = "All"

// The values of the fieldValidation parameter.
const (
	// FieldValidationIgnore drops unknown fields silently.
	FieldValidationIgnore = "Ignore"
	// FieldValidationWarn drops unknown fields with a Warning header.
	FieldValidationWarn = "Warn"
	// FieldValidationStrict rejects unknown or duplicate fields with 400.
	FieldValidationStrict = "Strict"
)

// DeleteOptions are the body or query parameters of a DELETE request.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type DeleteOptions struct {
	TypeMeta `json:",inline"`

	// GracePeriodSeconds overrides the object's grace period; 0 deletes now.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	// Preconditions must hold or the delete fails with 409.
	Preconditions *Preconditions `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	// OrphanDependents is the deprecated form of PropagationPolicy=Orphan.
	OrphanDependents *bool `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	// PropagationPolicy chooses how dependents are garbage collected.
	PropagationPolicy *DeletionPropagation `json:"propagationPolicy,omitempty" protobuf:"bytes,4,opt,name=propagationPolicy"`
	// DryRun, when ["All"], validates without deleting.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential deletes an object
	// that cannot be decoded from storage.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty" protobuf:"varint,6,opt,name=ignoreStoreReadErrorWithClusterBreakingPotential"`
}

// Preconditions must be fulfilled before an update or delete.
type Preconditions struct {
	// UID the object must have.
	UID *types.UID `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid"`
	// ResourceVersion the object must have.
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// NewDeleteOptions returns DeleteOptions with the given grace period.
func NewDeleteOptions(grace int64) *DeleteOptions {
	return &DeleteOptions{GracePeriodSeconds: &grace}
}

// NewPreconditionDeleteOptions returns DeleteOptions requiring the given UID.
func NewPreconditionDeleteOptions(uid string) *DeleteOptions {
	return &DeleteOptions{Preconditions: NewUIDPreconditions(uid)}
}

// NewUIDPreconditions returns Preconditions requiring the given UID.
func NewUIDPreconditions(uid string) *Preconditions {
	u := types.UID(uid)
	return &Preconditions{UID: &u}
}

// NewRVDeletionPrecondition returns DeleteOptions requiring the given resourceVersion.
func NewRVDeletionPrecondition(rv string) *DeleteOptions {
	return &DeleteOptions{Preconditions: &Preconditions{ResourceVersion: &rv}}
}

// CreateOptions are the query parameters of a POST request.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CreateOptions struct {
	TypeMeta `json:",inline"`

	// DryRun, when ["All"], validates without persisting.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`
	// FieldManager names the actor making the change.
	FieldManager string `json:"fieldManager,omitempty" protobuf:"bytes,3,opt,name=fieldManager"`
	// FieldValidation is Ignore, Warn or Strict.
	FieldValidation string `json:"fieldValidation,omitempty" protobuf:"bytes,4,opt,name=fieldValidation"`
}

// UpdateOptions are the query parameters of a PUT request.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type UpdateOptions struct {
	TypeMeta `json:",inline"`

	// DryRun, when ["All"], validates without persisting.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`
	// FieldManager names the actor making the change.
	FieldManager string `json:"fieldManager,omitempty" protobuf:"bytes,2,opt,name=fieldManager"`
	// FieldValidation is Ignore, Warn or Strict.
	FieldValidation string `json:"fieldValidation,omitempty" protobuf:"bytes,3,opt,name=fieldValidation"`
}

// PatchOptions are the query parameters of a PATCH request.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PatchOptions struct {
	TypeMeta `json:",inline"`

	// DryRun, when ["All"], validates without persisting.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`
	// Force re-acquires conflicting fields on apply; only for apply patches.
	Force *bool `json:"force,omitempty" protobuf:"varint,2,opt,name=force"`
	// FieldManager names the actor; required for apply patches.
	FieldManager string `json:"fieldManager,omitempty" protobuf:"bytes,3,opt,name=fieldManager"`
	// FieldValidation is Ignore, Warn or Strict.
	FieldValidation string `json:"fieldValidation,omitempty" protobuf:"bytes,4,opt,name=fieldValidation"`
}

// ApplyOptions are PatchOptions for an apply patch, where the field manager
// is required.
type ApplyOptions struct {
	TypeMeta `json:",inline"`

	// DryRun, when ["All"], validates without persisting.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,1,rep,name=dryRun"`
	// Force re-acquires fields owned by other managers.
	Force bool `json:"force" protobuf:"varint,2,opt,name=force"`
	// FieldManager names the actor.
	FieldManager string `json:"fieldManager" protobuf:"bytes,3,opt,name=fieldManager"`
}

// ToPatchOptions returns the equivalent PatchOptions.
func (o ApplyOptions) ToPatchOptions() PatchOptions {
	force := o.Force
	return PatchOptions{DryRun: o.DryRun, Force: &force, FieldManager: o.FieldManager}
}

// TableOptions are the query parameters of a request answered with a Table.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type TableOptions struct {
	TypeMeta `json:",inline"`

	// NoHeaders leaves out the column definitions; internal callers only.
	NoHeaders bool `json:"-"`
	// IncludeObject says what each row's object holds; Metadata by default.
	IncludeObject IncludeObjectPolicy `json:"includeObject,omitempty" protobuf:"bytes,1,opt,name=includeObject"`
}

// IncludeObjectPolicy says what a Table row's object holds.
type IncludeObjectPolicy string

// The values of IncludeObjectPolicy.
const (
	// IncludeNone leaves the object out.
	IncludeNone IncludeObjectPolicy = "None"
	// IncludeMetadata gives a PartialObjectMetadata (the default).
	IncludeMetadata IncludeObjectPolicy = "Metadata"
	// IncludeObject gives the full object.
	IncludeObject IncludeObjectPolicy = "Object"
)
