package storage

import (
	"bytes"
	"context"
	"fmt"
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

	// The protobuf encoding, for the clients that ask for it.
	pbOnce sync.Once
	pb     []byte
	pbErr  error
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

// Protobuf returns the object in Kubernetes' protobuf envelope, computing
// it with encode on the first call.
func (e *EncodedObject) Protobuf(encode func(runtime.Object) ([]byte, error)) ([]byte, error) {
	e.pbOnce.Do(func() { e.pb, e.pbErr = encode(e.object) })
	return e.pb, e.pbErr
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

// ItemBody is the object's JSON as a list item less its opening brace:
// the item is "{" followed by these bytes, which are shared and must not be
// modified. Kubernetes writes list items without the "kind" and
// "apiVersion" an event's object carries; they are left out when the
// encoding starts with them in that order, kept otherwise.
func (e *EncodedObject) ItemBody() ([]byte, error) {
	data, err := e.JSON()
	if err != nil {
		return nil, err
	}
	if body, ok := withoutTypeMeta(data); ok {
		return body, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("the encoding of %T is not a JSON object", e.object)
	}
	return data[1:], nil
}

// withoutTypeMeta returns what follows the leading "kind" and
// "apiVersion" members of an object's JSON, and its separating comma.
func withoutTypeMeta(data []byte) ([]byte, bool) {
	rest, found := bytes.CutPrefix(data, []byte(`{"kind":"`))
	if !found {
		return nil, false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 {
		return nil, false
	}
	rest, found = bytes.CutPrefix(rest[i+1:], []byte(`,"apiVersion":"`))
	if !found {
		return nil, false
	}
	if i = bytes.IndexByte(rest, '"'); i < 0 {
		return nil, false
	}
	rest = rest[i+1:]
	switch {
	case bytes.HasPrefix(rest, []byte(",")):
		return rest[1:], true
	case bytes.HasPrefix(rest, []byte("}")):
		return rest, true
	}
	return nil, false
}

// EncodedItems collects, for one list request, the shared encodings of the
// items a Store lists from the watch cache, so that the apiserver can
// write them as they are rather than encode the list again.
type EncodedItems struct {
	Items []*EncodedObject
	// Complete is set when every item of the list came with its encoding.
	// The list the Store returns then has no items of its own: the caller
	// writes them from these encodings.
	Complete bool
}

type encodedItemsKey struct{}

// WithEncodedItems returns ctx asking the Store to collect into items.
func WithEncodedItems(ctx context.Context, items *EncodedItems) context.Context {
	return context.WithValue(ctx, encodedItemsKey{}, items)
}

// EncodedItemsFrom returns the collector of ctx, if any.
func EncodedItemsFrom(ctx context.Context) (*EncodedItems, bool) {
	items, ok := ctx.Value(encodedItemsKey{}).(*EncodedItems)
	return items, ok
}

// ListObjects lists through list with the shared encodings of the watch
// cache collected, and returns the list with its items set from the
// objects those encodings wrap, each a *T: for a storage that converts
// the items (another version of the resource) and must never hand the
// API server the stored version's bytes. items points at the list's
// items field.
func ListObjects[T any](ctx context.Context, list func(context.Context) (runtime.Object, error), items func(runtime.Object) (*[]T, bool)) (runtime.Object, error) {
	collected := &EncodedItems{}
	obj, err := list(WithEncodedItems(ctx, collected))
	if err != nil {
		return nil, err
	}
	dst, ok := items(obj)
	if !ok || !collected.Complete {
		return obj, nil
	}
	*dst = make([]T, 0, len(collected.Items))
	for _, e := range collected.Items {
		it, ok := any(e.Unwrap()).(*T)
		if !ok {
			return nil, fmt.Errorf("listed a %T, not a %T", e.Unwrap(), it)
		}
		*dst = append(*dst, *it)
	}
	return obj, nil
}
