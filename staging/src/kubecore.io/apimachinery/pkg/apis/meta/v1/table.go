package v1

import "encoding/json"

// Table is the tabular form of a list or object that kubectl get prints,
// served as kind Table, apiVersion meta.k8s.io/v1 when the client asks for
// application/json;as=Table;v=v1;g=meta.k8s.io.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Table struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`

	// ColumnDefinitions describe the cells of every row, in order.
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	// Rows are the objects, one row each.
	Rows []TableRow `json:"rows"`
}

// TableColumnDefinition describes one column of a Table.
type TableColumnDefinition struct {
	// Name is the column header, e.g. "Name" or "Age".
	Name string `json:"name"`
	// Type is an OpenAPI type: string, integer, number, boolean, array.
	Type string `json:"type"`
	// Format is an OpenAPI format; "name" marks the object's name column.
	Format string `json:"format"`
	// Description explains the column.
	Description string `json:"description"`
	// Priority 0 columns are always shown; higher ones only with -o wide.
	Priority int32 `json:"priority"`
}

// TableRow is one object of a Table.
type TableRow struct {
	// Cells hold one JSON value per column: string, int64, float64, bool,
	// nil, or maps and slices of those.
	Cells []any `json:"cells"`
	// Conditions mark the row, e.g. Completed.
	Conditions []TableRowCondition `json:"conditions,omitempty"`
	// Object is the row's object as JSON, per the includeObject option: a
	// PartialObjectMetadata by default, the full object, or nothing.
	Object json.RawMessage `json:"object,omitempty"`
}

// TableRowCondition marks a row with extra information.
type TableRowCondition struct {
	// Type is the condition; RowCompleted is the only one defined.
	Type RowConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// Reason is the machine-readable reason of the last transition.
	Reason string `json:"reason,omitempty"`
	// Message is the human-readable detail.
	Message string `json:"message,omitempty"`
}

// RowConditionType is the type of a TableRowCondition.
type RowConditionType string

// RowCompleted marks a row whose object ran to completion; kubectl hides it
// unless asked to show all.
const RowCompleted RowConditionType = "Completed"

// PartialObjectMetadata is any object reduced to its metadata; Table rows
// carry it by default.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

// PartialObjectMetadataList is a list of PartialObjectMetadata.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PartialObjectMetadataList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the objects' metadata.
	Items []PartialObjectMetadata `json:"items" protobuf:"bytes,2,rep,name=items"`
}
