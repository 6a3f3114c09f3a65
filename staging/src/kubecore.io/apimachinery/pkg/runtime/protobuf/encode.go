package protobuf

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// Marshal returns the message encoding of v, a struct or a pointer to one.
func (c *Codec) Marshal(v any) ([]byte, error) {
	return c.Append(nil, v)
}

// Append appends the message encoding of v, a struct or a pointer to one,
// to dst.
func (c *Codec) Append(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("encode nil %T", v)
		}
		rv = rv.Elem()
	}
	msg, err := c.table(rv.Type())
	if err != nil {
		return nil, err
	}
	out, err := appendMessage(dst, msg, rv)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", rv.Type(), err)
	}
	return out, nil
}

// Supports tells whether values of type t (a struct or a pointer to one)
// can be encoded, and if not, why.
func (c *Codec) Supports(t reflect.Type) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	_, err := c.table(t)
	return err
}

// appendMessage appends the fields of struct value v (not its key or
// length).
func appendMessage(b []byte, m *message, v reflect.Value) ([]byte, error) {
	if m.special != notSpecial {
		return appendSpecial(b, m.special, v)
	}
	var err error
	for _, f := range m.fields {
		fv := v.Field(f.index)
		switch f.shape {
		case shapeSingle:
			b = appendKey(b, f.num, f.wire)
			b, err = appendElem(b, f.elem, fv)
		case shapePointer:
			if fv.IsNil() {
				continue
			}
			b = appendKey(b, f.num, f.wire)
			b, err = appendElem(b, f.elem, fv.Elem())
		case shapeBytes:
			if fv.IsNil() {
				continue
			}
			b = appendKey(b, f.num, wireBytes)
			b = appendBytes(b, fv.Bytes())
		case shapeRepeated:
			for i := range fv.Len() {
				b = appendKey(b, f.num, f.wire)
				if b, err = appendElem(b, f.elem, fv.Index(i)); err != nil {
					return nil, fieldError(f, i, err)
				}
			}
		case shapeWrapped:
			if fv.IsNil() {
				continue
			}
			b = appendKey(b, f.num, wireBytes)
			var start int
			b, start = beginMessage(b)
			for i := range fv.Len() {
				b = appendKey(b, 1, f.elem.wire)
				if b, err = appendElem(b, f.elem, fv.Index(i)); err != nil {
					return nil, fieldError(f, i, err)
				}
			}
			b = endMessage(b, start)
		case shapeMap:
			b, err = appendMap(b, f, fv)
		}
		if err != nil {
			return nil, fieldError(f, -1, err)
		}
	}
	return b, nil
}

// appendMap appends one entry per key, in key order.
func appendMap(b []byte, f *field, v reflect.Value) ([]byte, error) {
	if v.Len() == 0 {
		return b, nil
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(x, y reflect.Value) int { return cmp.Compare(x.String(), y.String()) })
	var err error
	for _, k := range keys {
		val := v.MapIndex(k)
		b = appendKey(b, f.num, wireBytes)
		var start int
		b, start = beginMessage(b)
		b = appendKey(b, 1, wireBytes)
		b = appendString(b, k.String())
		if f.wrappedValue {
			b = appendKey(b, 2, wireBytes)
			var inner int
			b, inner = beginMessage(b)
			for i := range val.Len() {
				b = appendKey(b, 1, f.elem.wire)
				if b, err = appendElem(b, f.elem, val.Index(i)); err != nil {
					return nil, within(fmt.Sprintf("[%q][%d]", k.String(), i), err)
				}
			}
			b = endMessage(b, inner)
			b = endMessage(b, start)
			continue
		}
		// A nil []byte value is left out, as Kubernetes does.
		if f.elem.kind != reflect.Slice || f.elem.special != notSpecial || !val.IsNil() {
			b = appendKey(b, 2, f.elem.wire)
			if b, err = appendElem(b, f.elem, val); err != nil {
				return nil, within(fmt.Sprintf("[%q]", k.String()), err)
			}
		}
		b = endMessage(b, start)
	}
	return b, nil
}

// appendElem appends the payload of one value (after its key).
func appendElem(b []byte, e *elemCoder, v reflect.Value) ([]byte, error) {
	switch e.kind {
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendVarint(b, uint64(v.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return appendVarint(b, v.Uint()), nil
	case reflect.Float32:
		return appendFixed32(b, math.Float32bits(float32(v.Float()))), nil
	case reflect.Float64:
		return appendFixed64(b, math.Float64bits(v.Float())), nil
	}
	if e.special == notSpecial && e.kind == reflect.Slice {
		return appendBytes(b, v.Bytes()), nil
	}
	var start int
	b, start = beginMessage(b)
	var err error
	if e.special != notSpecial {
		b, err = appendSpecial(b, e.special, v)
	} else {
		b, err = appendMessage(b, e.msg, v)
	}
	if err != nil {
		return nil, err
	}
	return endMessage(b, start), nil
}

// appendSpecial appends the fields of a type with its own message form.
func appendSpecial(b []byte, s special, v reflect.Value) ([]byte, error) {
	switch s {
	case specialTime:
		t, _ := reflect.TypeAssert[metav1.Time](v)
		if t.IsZero() {
			return b, nil
		}
		return appendTimestamp(b, t.Unix(), 0), nil
	case specialMicroTime:
		t, _ := reflect.TypeAssert[metav1.MicroTime](v)
		if t.IsZero() {
			return b, nil
		}
		nanos := time.Duration(t.Nanosecond()).Truncate(time.Microsecond)
		return appendTimestamp(b, t.Unix(), int32(nanos)), nil
	case specialQuantity:
		q, _ := reflect.TypeAssert[resource.Quantity](v)
		b = appendKey(b, 1, wireBytes)
		return appendString(b, q.String()), nil
	case specialIntOrString:
		is, _ := reflect.TypeAssert[intstr.IntOrString](v)
		b = appendKey(b, 1, wireVarint)
		b = appendVarint(b, uint64(is.Type))
		b = appendKey(b, 2, wireVarint)
		b = appendVarint(b, uint64(int64(is.IntVal)))
		b = appendKey(b, 3, wireBytes)
		return appendString(b, is.StrVal), nil
	case specialRawExtension:
		re, _ := reflect.TypeAssert[runtime.RawExtension](v)
		raw := re.Raw
		if raw == nil && re.Object != nil {
			// An object not yet serialized travels as its JSON, as it
			// would in a JSON request.
			var err error
			if raw, err = json.Marshal(re.Object); err != nil {
				return nil, fmt.Errorf("encode the object of a RawExtension: %w", err)
			}
		}
		if raw == nil {
			return b, nil
		}
		b = appendKey(b, 1, wireBytes)
		return appendBytes(b, raw), nil
	case specialRawMessage:
		if v.IsNil() {
			return b, nil
		}
		b = appendKey(b, 1, wireBytes)
		return appendBytes(b, v.Bytes()), nil
	}
	return nil, fmt.Errorf("no encoding for %s", v.Type())
}

func appendTimestamp(b []byte, seconds int64, nanos int32) []byte {
	b = appendKey(b, 1, wireVarint)
	b = appendVarint(b, uint64(seconds))
	b = appendKey(b, 2, wireVarint)
	return appendVarint(b, uint64(int64(nanos)))
}
