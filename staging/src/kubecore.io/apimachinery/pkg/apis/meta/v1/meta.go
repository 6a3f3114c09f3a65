package v1

import "kubecore.io/apimachinery/pkg/types"

// TypeMeta names the kind and API version of a serialized object.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
}

// ObjectMeta is the metadata every persisted object carries.
type ObjectMeta struct {
	// Name is unique within a namespace (or the cluster, for cluster-scoped kinds) and cannot change.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// GenerateName asks the server for a unique name: this prefix plus a random suffix, used when name is empty.
	GenerateName string `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	// Namespace is the namespace the object lives in; empty for cluster-scoped kinds.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// SelfLink is deprecated and never set by the server.
	SelfLink string `json:"selfLink,omitempty" protobuf:"bytes,4,opt,name=selfLink"`
	// UID is unique in time and space, set by the server on create and never changed.
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid"`
	// ResourceVersion is an opaque version the server sets on every write; send it back to update only that version (optimistic concurrency) or to watch from it.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// Generation counts changes to the desired state (spec); the server bumps it.
	Generation int64 `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	// CreationTimestamp is a timestamp of the moment the server created the
	// object (RFC 3339, UTC); clients cannot set it.
	CreationTimestamp Time `json:"creationTimestamp,omitempty" protobuf:"bytes,8,opt,name=creationTimestamp"`
	// DeletionTimestamp is set when deletion was requested; the object goes once its grace period ends and its finalizers are gone.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	// DeletionGracePeriodSeconds is the grace period the deletion was requested with.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	// Labels are key/value pairs that selectors match on (for example by services and controllers).
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels"`
	// Annotations are key/value pairs for tools and humans; they are not selectable.
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`
	// OwnerReferences name the objects this one depends on; the garbage collector deletes it when every owner is gone.
	// +listType=map
	// +listMapKey=uid
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,13,rep,name=ownerReferences"`
	// Finalizers must all be removed before a deleted object is removed from storage.
	// +listType=set
	Finalizers []string `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`
	// ManagedFields record which manager set which fields, and when: the
	// server maintains them on every write (server-side apply).
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// ListMeta is the metadata of a list response.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty" protobuf:"bytes,1,opt,name=selfLink"`
	ResourceVersion    string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	Continue           string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"varint,4,opt,name=remainingItemCount"`
}

// OwnerReference points at the object that owns this one.
// +structType=atomic
type OwnerReference struct {
	APIVersion         string    `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	Kind               string    `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name               string    `json:"name" protobuf:"bytes,3,opt,name=name"`
	UID                types.UID `json:"uid" protobuf:"bytes,4,opt,name=uid"`
	Controller         *bool     `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	BlockOwnerDeletion *bool     `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ManagedFieldsEntry records which manager set which fields of an object,
// through which operation (Apply or Update), API version and subresource.
type ManagedFieldsEntry struct {
	Manager     string    `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	Operation   string    `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation"`
	APIVersion  string    `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	Time        *Time     `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	FieldsType  string    `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	FieldsV1    *FieldsV1 `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	Subresource string    `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// FieldsV1 is an opaque JSON description of a set of fields.
type FieldsV1 struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=Raw"`
}

// MarshalJSON writes the raw JSON, or null.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if f.Raw == nil {
		return []byte("null"), nil
	}
	return f.Raw, nil
}

// UnmarshalJSON keeps a copy of the raw JSON.
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		f.Raw = nil
		return nil
	}
	f.Raw = append(f.Raw[:0], b...)
	return nil
}

// LabelSelector selects objects by their labels; the requirements are ANDed.
// An empty selector matches everything; a nil one matches nothing.
// +structType=atomic
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one key/operator/values requirement.
type LabelSelectorRequirement struct {
	Key      string                `json:"key" patchStrategy:"merge" patchMergeKey:"key" protobuf:"bytes,1,opt,name=key"`
	Operator LabelSelectorOperator `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	Values   []string              `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// LabelSelectorOperator is the set operator of a LabelSelectorRequirement.
type LabelSelectorOperator string

// The operators of a LabelSelectorRequirement.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The values of ConditionStatus.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is the standard condition shape of newer APIs.
type Condition struct {
	Type               string          `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	LastTransitionTime Time            `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string          `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	Message            string          `json:"message" protobuf:"bytes,6,opt,name=message"`
}
