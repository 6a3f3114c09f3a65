package fieldmanager

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// A create's field set is a function of the new object's shape, not of
// most of its values: which fields are present, of what kind, how lists
// and maps are filled, the values inside list items (keys and set
// members) and the values where the empty object has one to compare
// with. Pods made from one template share their shape and differ only in
// values the set ignores (name, generated names, times), so the FieldsV1
// of a create is cached by shape, and a create whose shape was seen
// before costs one lean walk of the object instead of the reflection
// walk, the set building and the encoding.
//
// The shape key is written in one walk that mirrors how
// structured-merge-diff reads a Go object (value.NewValueReflect: json
// names, omitempty and omitzero, inline structs, json.Marshaler and
// UnstructuredConverter types, one level of pointer or interface) and
// records, in a self-delimiting encoding:
//
//   - every map and struct: its present keys, sorted, each followed by its
//     value;
//   - every list: its length and items;
//   - null, and the kind of every scalar (string, int, float, bool);
//   - the scalar values themselves inside any list item (the keys of
//     associative lists and the members of sets are read from there) and
//     wherever the empty object holds a value other than a map (Compare
//     tests those for equality).
//
// createFields reads nothing else of the new object (the schema, the
// empty object, the reset and stripped fields are the FieldManager's), so
// two objects with the same key get the same field set; a key may be
// finer than needed (an image inside a container is recorded), which only
// costs a cache miss.

// Key tags: each element of a key starts with one.
const (
	tagMap    = 'M' // keys and values, then tagEnd
	tagList   = 'L' // length, items, then tagEnd
	tagEnd    = 'E'
	tagNull   = 'N'
	tagString = 's' // a string's kind only
	tagInt    = 'i'
	tagFloat  = 'f'
	tagBool   = 'b'
	tagStrVal = 'S' // a string: length, bytes
	tagIntVal = 'I' // an int: 8 bytes
	tagFltVal = 'F' // a float: 8 bytes of its bits
	tagTrue   = 'T'
	tagFalse  = 'O'
)

// maxShapeKey bounds a key worth caching; a bigger object is recorded
// without the cache.
const maxShapeKey = 16 << 10

// shapeWriter writes one key; it is reused through shapeWriters.
type shapeWriter struct {
	buf  []byte
	keys []reflect.Value
}

var shapeWriters = sync.Pool{New: func() any { return &shapeWriter{buf: make([]byte, 0, 1024)} }}

// shapeKey appends obj's shape key to w.buf (emptied first), the empty
// object being empty (as plain maps, lists and scalars). It reports false
// when obj holds something the walk does not mirror (the create is then
// recorded without the cache).
func (w *shapeWriter) shapeKey(obj any, empty any) bool {
	w.buf = w.buf[:0]
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	return w.value(v, nil, false, empty, true) && len(w.buf) <= maxShapeKey
}

// value writes v, a value of the Go type entry describes (nil: found from
// v). full records scalar values; lhs is the empty object's value at this
// place, when hasLHS.
func (w *shapeWriter) value(v reflect.Value, entry *value.TypeReflectCacheEntry, full bool, lhs any, hasLHS bool) bool {
	if !full && hasLHS && lhs != nil {
		if _, isMap := lhs.(map[string]any); !isMap {
			full = true
		}
	}
	if !v.IsValid() {
		w.buf = append(w.buf, tagNull)
		return true
	}
	if entry == nil {
		entry = value.TypeReflectEntryOf(v.Type())
	}
	if entry.CanConvertToUnstructured() {
		u, err := entry.ToUnstructured(v)
		if err != nil {
			return false
		}
		if u == nil {
			w.buf = append(w.buf, tagNull)
			return true
		}
		v = reflect.ValueOf(u)
	}
	// One level of pointer or interface, as the library dereferences.
	if k := v.Kind(); k == reflect.Pointer || k == reflect.Interface {
		if v.IsNil() {
			w.buf = append(w.buf, tagNull)
			return true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			w.buf = append(w.buf, tagNull)
			return true
		}
		return false
	case reflect.Struct:
		lhsMap := childLHS(full, lhs, hasLHS)
		w.buf = append(w.buf, tagMap)
		for _, f := range value.TypeReflectEntryOf(v.Type()).OrderedFields() {
			fv := f.GetFrom(v)
			if f.CanOmit(fv) {
				continue
			}
			w.str(f.JsonName)
			lc, ok := lhsMap[f.JsonName]
			if !w.value(fv, f.TypeEntry, full, lc, ok) {
				return false
			}
		}
		w.buf = append(w.buf, tagEnd)
		return true
	case reflect.Map:
		if v.IsNil() {
			w.buf = append(w.buf, tagNull)
			return true
		}
		if v.Type().Key().Kind() != reflect.String {
			return false
		}
		lhsMap := childLHS(full, lhs, hasLHS)
		elem := value.TypeReflectEntryOf(v.Type().Elem())
		k0 := len(w.keys)
		defer func() {
			clear(w.keys[k0:])
			w.keys = w.keys[:k0]
		}()
		iter := v.MapRange()
		for iter.Next() {
			w.keys = append(w.keys, iter.Key())
		}
		keys := w.keys[k0:]
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		w.buf = append(w.buf, tagMap)
		for _, k := range keys {
			name := k.String()
			w.str(name)
			lc, ok := lhsMap[name]
			if !w.value(v.MapIndex(k), elem, full, lc, ok) {
				return false
			}
		}
		w.buf = append(w.buf, tagEnd)
		return true
	case reflect.Slice:
		if v.IsNil() {
			w.buf = append(w.buf, tagNull)
			return true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			w.scalarString(full, v.Bytes())
			return true
		}
		elem := value.TypeReflectEntryOf(v.Type().Elem())
		n := v.Len()
		w.buf = append(w.buf, tagList)
		w.buf = binary.AppendUvarint(w.buf, uint64(n))
		// Items are recorded with their values: keys and set members
		// are read from them.
		for i := range n {
			if !w.value(v.Index(i), elem, true, nil, false) {
				return false
			}
		}
		w.buf = append(w.buf, tagEnd)
		return true
	case reflect.String:
		if full {
			w.buf = append(w.buf, tagStrVal)
			w.str(v.String())
		} else {
			w.buf = append(w.buf, tagString)
		}
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.scalarInt(full, v.Int())
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		w.scalarInt(full, int64(v.Uint()))
		return true
	case reflect.Float32, reflect.Float64:
		if full {
			w.buf = append(w.buf, tagFltVal)
			w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v.Float()))
		} else {
			w.buf = append(w.buf, tagFloat)
		}
		return true
	case reflect.Bool:
		switch {
		case !full:
			w.buf = append(w.buf, tagBool)
		case v.Bool():
			w.buf = append(w.buf, tagTrue)
		default:
			w.buf = append(w.buf, tagFalse)
		}
		return true
	}
	// Arrays, uint64, channels, functions: the library reads none of
	// them.
	return false
}

// childLHS is the empty object's map at a map or struct, whose entries
// are the empty object's values of its keys; nil when it has none there.
func childLHS(full bool, lhs any, hasLHS bool) map[string]any {
	if full || !hasLHS {
		return nil
	}
	m, _ := lhs.(map[string]any)
	return m
}

// str appends s, length first.
func (w *shapeWriter) str(s string) {
	w.buf = binary.AppendUvarint(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
}

func (w *shapeWriter) scalarString(full bool, b []byte) {
	if !full {
		w.buf = append(w.buf, tagString)
		return
	}
	w.buf = append(w.buf, tagStrVal)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(b)))
	w.buf = append(w.buf, b...)
}

func (w *shapeWriter) scalarInt(full bool, i int64) {
	if !full {
		w.buf = append(w.buf, tagInt)
		return
	}
	w.buf = append(w.buf, tagIntVal)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(i))
}

// maxShapes bounds a FieldManager's cache; when it is full it starts
// over, so a long-lived server keeps the shapes it sees now.
const maxShapes = 256

// shapeCache maps shape keys to the FieldsV1 of a create's Update entry
// (nil: the create records no entry). It is safe for concurrent use.
type shapeCache struct {
	mu     sync.RWMutex
	fields map[string][]byte
}

func newShapeCache() *shapeCache {
	return &shapeCache{fields: make(map[string][]byte)}
}

// get is the FieldsV1 cached for key, shared: callers copy it.
func (c *shapeCache) get(key []byte) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	raw, ok := c.fields[string(key)]
	return raw, ok
}

// put caches a copy of raw for key.
func (c *shapeCache) put(key, raw []byte) {
	if raw != nil {
		raw = slices.Clone(raw)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.fields) >= maxShapes {
		c.fields = make(map[string][]byte)
	}
	c.fields[string(key)] = raw
}

// len is how many shapes are cached (tests).
func (c *shapeCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.fields)
}
