package v1

import (
	"encoding/json"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// WatchEvent is one line of a watch stream on the wire:
// {"type":"ADDED","object":{...}}. Object holds the object's JSON, or a
// Status for an ERROR event.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type WatchEvent struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Object is the encoded object.
	Object json.RawMessage `json:"object" protobuf:"bytes,2,opt,name=object"`
}

// GetObjectKind returns schema.EmptyObjectKind: a WatchEvent is never
// encoded with a kind of its own.
func (e *WatchEvent) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
