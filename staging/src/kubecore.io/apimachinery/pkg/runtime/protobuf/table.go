package protobuf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// Codec encodes and decodes tagged Go structs as proto2 messages. It builds
// each type's field table once and is safe for concurrent use; the zero
// value is ready to use.
type Codec struct {
	tables sync.Map // reflect.Type -> *tableEntry

	// mu serializes building tables, so that recursive types resolve to
	// one table.
	mu sync.Mutex
}

// NewCodec returns an empty codec.
func NewCodec() *Codec { return &Codec{} }

type tableEntry struct {
	msg *message
	err error
}

// special names the types with their own message form.
type special uint8

const (
	notSpecial special = iota
	specialTime
	specialMicroTime
	specialQuantity
	specialIntOrString
	specialRawExtension
	specialRawMessage
)

// specialOf returns the message form of t, if it has its own.
func specialOf(t reflect.Type) special {
	switch t {
	case reflect.TypeFor[metav1.Time]():
		return specialTime
	case reflect.TypeFor[metav1.MicroTime]():
		return specialMicroTime
	case reflect.TypeFor[resource.Quantity]():
		return specialQuantity
	case reflect.TypeFor[intstr.IntOrString]():
		return specialIntOrString
	case reflect.TypeFor[runtime.RawExtension]():
		return specialRawExtension
	case reflect.TypeFor[json.RawMessage]():
		return specialRawMessage
	}
	return notSpecial
}

// message is the field table of a struct type.
type message struct {
	typ     reflect.Type
	special special
	// fields in field-number order.
	fields []*field
	// byNum finds a field by its number; nil beyond the largest.
	byNum []*field
}

func (m *message) lookup(num int) *field {
	if num < len(m.byNum) {
		return m.byNum[num]
	}
	if m.byNum == nil {
		return m.lookupSlow(num)
	}
	return nil
}

// shape is how a field's Go value maps onto the wire.
type shape uint8

const (
	// shapeSingle is a non-pointer value: always encoded.
	shapeSingle shape = iota
	// shapePointer is encoded when not nil.
	shapePointer
	// shapeBytes is a []byte, encoded when not nil.
	shapeBytes
	// shapeRepeated is a slice, one key per element.
	shapeRepeated
	// shapeMap is a map, one entry message {key = 1, value = 2} per key.
	shapeMap
	// shapeWrapped is a slice inside a message {repeated items = 1},
	// encoded when not nil.
	shapeWrapped
)

// field is one tagged struct field.
type field struct {
	num   int
	name  string // the tag's name=, for error paths
	index int
	wire  wireType
	shape shape
	// elem codes the element value: the field itself, the pointee, the
	// slice element, or the map value.
	elem *elemCoder
	// key codes the map key.
	key *elemCoder
	// wrappedValue: the map value is a slice (authorization's
	// map[string]ExtraValue), encoded as a message {repeated items = 1};
	// elem codes its elements then.
	wrappedValue bool
	// valueType is the map's value type when wrappedValue.
	valueType reflect.Type
}

// elemCoder codes one scalar or message value of a Go type.
type elemCoder struct {
	typ  reflect.Type
	kind reflect.Kind
	wire wireType
	// msg is the table of a struct value (nil for special types).
	msg     *message
	special special
}

// table returns the field table of struct type t.
func (c *Codec) table(t reflect.Type) (*message, error) {
	if e, ok := c.tables.Load(t); ok {
		te := e.(*tableEntry)
		return te.msg, te.err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.tables.Load(t); ok {
		te := e.(*tableEntry)
		return te.msg, te.err
	}
	b := &builder{building: map[reflect.Type]*message{}}
	msg, err := b.message(t)
	if err != nil {
		// Only the failure of t is remembered: the types it reached may
		// still be fine alone.
		c.tables.Store(t, &tableEntry{err: err})
		return nil, err
	}
	for typ, m := range b.building {
		c.tables.Store(typ, &tableEntry{msg: m})
	}
	return msg, nil
}

// builder builds the tables of a type and of the types it reaches.
type builder struct {
	building map[reflect.Type]*message
}

func (b *builder) message(t reflect.Type) (*message, error) {
	if m, ok := b.building[t]; ok {
		return m, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	m := &message{typ: t, special: specialOf(t)}
	b.building[t] = m
	if m.special != notSpecial {
		return m, nil
	}
	seen := map[int]string{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, tagged := sf.Tag.Lookup("protobuf")
		if tag == "-" {
			continue
		}
		if !tagged {
			if sf.Anonymous && sf.Type == reflect.TypeFor[metav1.TypeMeta]() || sf.Tag.Get("json") == "-" {
				continue
			}
			return nil, fmt.Errorf("%s.%s has no protobuf tag", t, sf.Name)
		}
		f, err := b.field(sf, tag)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		f.index = i
		if prev, dup := seen[f.num]; dup {
			return nil, fmt.Errorf("%s.%s: field number %d is also %s", t, sf.Name, f.num, prev)
		}
		seen[f.num] = sf.Name
		m.fields = append(m.fields, f)
	}
	slices.SortFunc(m.fields, func(a, b *field) int { return a.num - b.num })
	if n := len(m.fields); n > 0 && m.fields[n-1].num < 1024 {
		m.byNum = make([]*field, m.fields[n-1].num+1)
		for _, f := range m.fields {
			m.byNum[f.num] = f
		}
	}
	return m, nil
}

// field parses one tag, "bytes,3,opt,name=namespace", and checks it
// against the field's Go type.
func (b *builder) field(sf reflect.StructField, tag string) (*field, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		return nil, fmt.Errorf("malformed protobuf tag %q", tag)
	}
	num, err := strconv.Atoi(parts[1])
	if err != nil || num < 1 || num > maxFieldNumber || num >= 19000 && num <= 19999 {
		return nil, fmt.Errorf("invalid field number in protobuf tag %q", tag)
	}
	f := &field{num: num, name: sf.Name}
	for _, p := range parts[3:] {
		if name, ok := strings.CutPrefix(p, "name="); ok {
			f.name = name
		}
	}
	switch parts[0] {
	case "varint":
		f.wire = wireVarint
	case "bytes":
		f.wire = wireBytes
	case "fixed32":
		f.wire = wireFixed32
	case "fixed64":
		f.wire = wireFixed64
	default:
		return nil, fmt.Errorf("unknown wire type in protobuf tag %q", tag)
	}
	repeated := parts[2] == "rep"
	if !repeated && parts[2] != "opt" && parts[2] != "req" {
		return nil, fmt.Errorf("unknown cardinality in protobuf tag %q", tag)
	}

	t := sf.Type
	elemType := t
	switch {
	case t.Kind() == reflect.Map:
		if !repeated {
			return nil, fmt.Errorf("map field tagged %q, not rep", tag)
		}
		f.shape = shapeMap
		if f.key, err = b.elem(t.Key()); err != nil {
			return nil, fmt.Errorf("map key: %w", err)
		}
		if f.key.kind != reflect.String {
			return nil, fmt.Errorf("map key %s is not a string", t.Key())
		}
		elemType = t.Elem()
		if f.wire != wireBytes {
			return nil, fmt.Errorf("map field tagged %q, not bytes", tag)
		}
		if elemType.Kind() == reflect.Slice && elemType.Elem().Kind() != reflect.Uint8 && specialOf(elemType) == notSpecial {
			f.wrappedValue, f.valueType = true, elemType
			elemType = elemType.Elem()
		}
		f.elem, err = b.elem(elemType)
		return f, err
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && specialOf(t) == notSpecial:
		if repeated {
			return nil, fmt.Errorf("[]byte field tagged %q, not opt", tag)
		}
		f.shape = shapeBytes
	case t.Kind() == reflect.Slice && specialOf(t) == notSpecial:
		f.shape = shapeRepeated
		if !repeated {
			f.shape = shapeWrapped
		}
		elemType = t.Elem()
	case repeated:
		return nil, fmt.Errorf("%s field tagged %q, not opt", t, tag)
	case t.Kind() == reflect.Pointer:
		f.shape = shapePointer
		elemType = t.Elem()
	}
	if f.elem, err = b.elem(elemType); err != nil {
		return nil, err
	}
	want := f.elem.wire
	if f.shape == shapeWrapped || f.shape == shapeBytes {
		want = wireBytes
	}
	if f.wire != want {
		return nil, fmt.Errorf("%s is not encoded as %s", t, parts[0])
	}
	return f, nil
}

// elem returns the coder of a value of type t.
func (b *builder) elem(t reflect.Type) (*elemCoder, error) {
	e := &elemCoder{typ: t, kind: t.Kind(), special: specialOf(t)}
	switch {
	case e.special != notSpecial:
		e.wire = wireBytes
		return e, nil
	case e.kind == reflect.Bool, e.kind >= reflect.Int && e.kind <= reflect.Uint64:
		e.wire = wireVarint
	case e.kind == reflect.Float32:
		e.wire = wireFixed32
	case e.kind == reflect.Float64:
		e.wire = wireFixed64
	case e.kind == reflect.String:
		e.wire = wireBytes
	case e.kind == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		e.wire = wireBytes
	case e.kind == reflect.Struct:
		e.wire = wireBytes
		msg, err := b.message(t)
		if err != nil {
			return nil, err
		}
		e.msg = msg
	default:
		return nil, fmt.Errorf("type %s has no protobuf encoding", t)
	}
	return e, nil
}
