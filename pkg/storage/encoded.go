package storage

import (
	"sync"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// EncodedObject wraps an object that many watchers receive in one event, so
// that its JSON is encoded once and the bytes are shared: the dispatch path
// never copies or re-encodes an object per watcher. It is read-only.
type EncodedObject struct {
	object runtime.Object
	encode func(runtime.Object) ([]byte, error)
	once   sync.Once
	data   []byte
	err    error
}

var _ runtime.Object = (*EncodedObject)(nil)

// NewEncodedObject wraps obj; encode must produce the object's wire JSON,
// apiVersion and kind included.
func NewEncodedObject(obj runtime.Object, encode func(runtime.Object) ([]byte, error)) *EncodedObject {
	return &EncodedObject{object: obj, encode: encode}
}

// JSON returns the encoding, computing it on the first call.
func (e *EncodedObject) JSON() ([]byte, error) {
	e.once.Do(func() { e.data, e.err = e.encode(e.object) })
	return e.data, e.err
}

// Unwrap returns the wrapped object; callers must not modify it.
func (e *EncodedObject) Unwrap() runtime.Object { return e.object }

// GetObjectKind implements runtime.Object.
func (e *EncodedObject) GetObjectKind() schema.ObjectKind { return e.object.GetObjectKind() }

// DeepCopyObject returns a copy of the wrapped object (not of the wrapper).
func (e *EncodedObject) DeepCopyObject() runtime.Object { return e.object.DeepCopyObject() }

// Unwrap returns obj itself, or the object an EncodedObject wraps.
func Unwrap(obj runtime.Object) runtime.Object {
	if e, ok := obj.(*EncodedObject); ok {
		return e.object
	}
	return obj
}
